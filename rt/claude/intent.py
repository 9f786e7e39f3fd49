"""Intent mode: the user names what a turn is for with a leading command, and the hooks hold the agent to it.

A word list that guesses "order or conversation" misses both ways (seed 002); two characters from the
user do not. `/go` allows edits in its turn (so does `/runtask`); a message without a leading command is
conversation, and every edit in its turn is denied. `/commit` and `/push` let exactly one such git
operation through within TTL seconds, only for the main agent. `/fail`, `/win`, `/mem` go to the journal.

The UserPromptSubmit hook records the turn's command in `.rt/intent.json` under the session, keyed by the
payload's `prompt_id`; PreToolUse reads it on every tool call of that turn (subagents carry the parent's
`prompt_id`, and `agent_id`). A call whose prompt has no record (a background subagent outliving its
turn, a hook that timed out) is tied by reading the transcript, where a typed command is stored as
`<command-name>/go</command-name>` markup, not as the text typed: `parse` reads both forms.
"""
from __future__ import annotations

import json
import re
from collections import namedtuple
from collections.abc import Callable

from rt import journal, state
from rt.core import Repo, Result, UsageError

Meaning = namedtuple("Meaning", "summary deny")
"""A command's one-line summary (its description in Claude Code) and, unless it allows edits, why an
edit in its turn is denied (said to the model, and shown to the user)."""

ALLOW_EDITS = "`/go` allows edits"
COMMANDS: dict[str, Meaning] = {
    "go": Meaning("Do it now (edits allowed in this turn); the reply begins with \"Understood as ...\"", None),
    "q": Meaning("Answer only, in words; change nothing",
                 f"the user asked with /q: answer in words only; nothing is edited in this turn ({ALLOW_EDITS})"),
    "iq": Meaning("Ask your last question again as a choice of options (AskUserQuestion)",
                  f"/iq: ask your last question again with AskUserQuestion, as a choice of options; nothing is "
                  f"edited in this turn ({ALLOW_EDITS})"),
    "redo": Meaning("You misunderstood; restate my instruction in your words and wait for /go",
                    "/redo: restate the user's instruction in your words and wait for /go; nothing is edited "
                    "in this turn"),
    "stop": Meaning("Stop and report where things stand (rt status)",
                    f"/stop: stop, run `rt status` and report where things stand; nothing is edited in this "
                    f"turn ({ALLOW_EDITS})"),
    "commit": Meaning("Allow exactly one git commit, within ten minutes",
                      f"this is a /commit turn: make the one commit; nothing is edited in it ({ALLOW_EDITS})"),
    "push": Meaning("Allow exactly one git push, within ten minutes",
                    f"this is a /push turn: make the one push; nothing is edited in it ({ALLOW_EDITS})"),
    "fail": Meaning("Record a miss in rt's journal, in my words",
                    f"/fail was recorded in rt's journal; nothing is edited in this turn ({ALLOW_EDITS})"),
    "win": Meaning("Record an approval in rt's journal, in my words",
                   f"/win was recorded in rt's journal; nothing is edited in this turn ({ALLOW_EDITS})"),
    "mem": Meaning("Record a fact to remember in rt's journal, in my words (it joins the task pack)",
                   f"/mem was recorded in rt's journal; nothing is edited in this turn ({ALLOW_EDITS})"),
}
"""The intent commands. Shipped as `skill/intent/<name>/SKILL.md`; none is a Claude Code built-in but
`/stop` (a background-session command), which a project command overrides (tests/test_intent_names.py)."""

EDITING = frozenset({"go", "runtask"})
"""Turns in which edits are allowed: `/runtask <task>` counts as `/go` for its turn."""

CONVERSATION = ("this message has no leading command, so it is conversation: answer in words; nothing is "
                "edited in this turn. To allow edits, the user starts a message with /go")

PLUGIN = "rt"
"""The plugin's name: under the plugin a command is `/rt:go` (typing `/go` finds it too)."""

Intent = namedtuple("Intent", "name args form near", defaults=(None, "", None, None))
"""What a message asks for: `name` (an intent command, `runtask`, or None for conversation), its `args`,
the `form` it came in (`typed` or `markup`), and `near`: the command a mistyped one (`/gp`) resembles."""

_TYPED = r"(?s)\s*/(?:([\w.-]+):)?([\w-]+)(?=\s|\Z)(.*)\Z"
_MARKUP = r"\s*<command-(?:message|name|args)>"
_NAME_TAG = r"<command-name>/?(?:([\w.-]+):)?([\w-]+)</command-name>"
_ARGS_TAG = r"(?s)<command-args>(.*?)</command-args>"
"""The forms of a message's leading command, compiled (by `re`'s own cache) at the first message read: the
edit gate imports this module on every tool call and reads none."""


def parse(text: str) -> Intent:
    """The command a user message starts with, typed (`/go fix it`, as UserPromptSubmit gets it) or as the
    markup the client stores in its transcript and request (`<command-message>go</command-message>
    <command-name>/go</command-name><command-args>fix it</command-args>`). Anything else is conversation."""
    if re.match(_MARKUP, text):
        m = re.search(_NAME_TAG, text)
        if m is None:
            return Intent()
        args = re.search(_ARGS_TAG, text)
        return _named(m.group(1), m.group(2), args.group(1).strip() if args else "", "markup")
    m = re.match(_TYPED, text)
    if m is None:
        return Intent()
    return _named(m.group(1), m.group(2), m.group(3).strip(), "typed")


def _named(plugin: str | None, name: str, args: str, form: str) -> Intent:
    if plugin not in (None, PLUGIN) or (name not in COMMANDS and name != "runtask"):
        near = _near(name) if plugin is None and form == "typed" else None
        return Intent(None, "", None, near)
    return Intent(name, args, form)


def _near(word: str) -> str | None:
    """The intent command one typo away from `word` (a letter changed, added, dropped or two swapped, or
    capitals)."""
    word = word.lower()
    for name in COMMANDS:
        if word == name:
            return name
        if abs(len(word) - len(name)) > 1:
            continue
        if len(word) == len(name):
            diff = [i for i, (a, b) in enumerate(zip(word, name)) if a != b]
            if len(diff) == 1 or (len(diff) == 2 and diff[1] == diff[0] + 1
                                  and word[diff[0]] == name[diff[1]] and word[diff[1]] == name[diff[0]]):
                return name
        else:
            short, long = sorted((word, name), key=len)
            if any(long[:i] + long[i + 1:] == short for i in range(len(long))):
                return name
    return None


def transcript_intent(path: str, prompt_id: str, tail: int = 4 << 20) -> Intent | None:
    """The command of the user message `prompt_id` as the client stored it in its transcript (markup for a
    typed command), or None when the transcript lacks it. Only the last `tail` bytes are read."""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            f.seek(max(0, f.tell() - tail))
            data = f.read()
    except OSError:
        return None
    key = prompt_id.encode()
    for line in data.splitlines():
        if key not in line or b'"user"' not in line:
            continue
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if (record.get("type") != "user" or record.get("promptId") != prompt_id or record.get("isMeta")
                or record.get("isSidechain")):
            continue
        content = (record.get("message") or {}).get("content")
        if isinstance(content, list):
            if any(isinstance(b, dict) and b.get("type") == "tool_result" for b in content):
                continue
            content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
        return parse(content) if isinstance(content, str) else None
    return None


# ---------------------------------------------------------------- the mode and the turn record

def configured(repo: Repo) -> bool | None:
    """rt.toml's `intent` key (`checks.intent_setting`). Neither config file naming `intent` means no key:
    then rt.toml's reader (a heavy import for a hook that runs on every prompt) is not loaded."""
    from rt.core import read_text
    if not any("intent" in (read_text(repo, name) or "") for name in ("rt.toml", "pyproject.toml")):
        return None
    from rt.checks import intent_setting
    return intent_setting(repo)


def _store(repo: Repo):
    from rt.store import Store
    return Store(repo)


MAX_TURNS = 8
MAX_SESSIONS = 20
"""Turn records kept per session (a background subagent may outlive its turn) and sessions kept."""


_MODE_OFF = ("rt: intent mode is off in this project, so /{name} grants nothing and rt's git guard still blocks it; "
             "tell the user (they turn the mode on with `rt intent on`, or do it themselves).")


def _id(payload: dict, key: str) -> str | None:
    """A session's or prompt's id from the payload: a string, else None (a list there would be no key to file under)."""
    value = payload.get(key)
    return value if isinstance(value, str) else None


def on_prompt(repo: Repo, payload: dict, prompt: str) -> str:
    """UserPromptSubmit: record the turn's command, grant `/commit` or `/push`, journal `/fail /win /mem`.
    Returns a line for the model when something needs saying, else ''."""
    if payload.get("agent_id") is not None:   # only the user types a prompt: a subagent's payload grants nothing
        return ""
    store = _store(repo)
    intent = parse(prompt)
    notes = []
    if intent.name in journal.KINDS:
        if intent.args:
            try:
                journal.add_entry(store, intent.name, intent.args)
            except UsageError as e:   # over the cap: say so, and the turn goes on
                notes.append(f"rt: {e}. Nothing was recorded; tell the user.")
        else:
            notes.append(f"rt: /{intent.name} needs the words to record: `/{intent.name} <text>`; nothing was recorded. "
                         f"Tell the user.")
    setting = configured(repo)
    if not journal.mode_on(store, setting) and not store.path(journal.INTENT_FILE).is_file():
        if intent.name in journal.GRANT_KINDS:
            notes.append(_MODE_OFF.format(name=intent.name))
        return "\n".join(notes)
    session, prompt_id, now = _id(payload, "session_id") or "", _id(payload, "prompt_id"), state.now()
    with store.locked():
        data = journal.load_intent(store)
        on = journal.mode_on(store, setting)
        turns = data.setdefault("turns", {}).setdefault(session, [])
        if turns and prompt_id and turns[0]["prompt"] == prompt_id:
            if intent.name is not None:  # a command typed while the turn runs replaces its command
                turns[0].update(command=intent.name, near=None, on=on)
        else:
            turns.insert(0, {"prompt": prompt_id, "command": intent.name, "near": intent.near, "on": on, "at": now})
            del turns[MAX_TURNS:]
        newest = sorted(data["turns"], key=lambda s: data["turns"][s][0]["at"], reverse=True)
        data["turns"] = {s: data["turns"][s] for s in newest[:MAX_SESSIONS]}
        grants = journal.live_grants(data, now)
        if on and intent.name in journal.GRANT_KINDS:
            grants = [g for g in grants if not (g["kind"] == intent.name and g["session"] == session)]
            grants.append({"kind": intent.name, "session": session, "at": now})
        data["grants"] = grants
        journal.save_intent(store, data)
    if intent.name in journal.GRANT_KINDS and not on:
        notes.append(_MODE_OFF.format(name=intent.name))
    return "\n".join(notes)


def _turn(repo: Repo, payload: dict) -> dict | None:
    """The recorded turn this tool call belongs to, or None when intent mode is not in play.

    Without a record for the call's prompt, the mode is asked of rt.toml and the project switch, and the
    command of the prompt is read from the transcript; failing that the turn is `unknown` (edits denied)."""
    store = _store(repo)
    if not store.path(journal.INTENT_FILE).is_file():
        return None  # intent mode was never on here
    data = journal.load_intent(store)
    prompt_id = _id(payload, "prompt_id")
    for turn in data.get("turns", {}).get(_id(payload, "session_id") or "", []):
        if not prompt_id or turn["prompt"] == prompt_id:
            return turn if turn["on"] else None
    if not journal.mode_on(store, configured(repo)):
        return None
    path = payload.get("transcript_path")
    found = transcript_intent(path, prompt_id) if isinstance(path, str) and prompt_id else None
    if found is None:
        return {"command": None, "unknown": True}
    return {"command": found.name, "near": found.near}


def edit_denial(repo: Repo, payload: dict) -> str | None:
    """Why intent mode denies this edit, or None (mode off, or a `/go` or `/runtask` turn)."""
    turn = _turn(repo, payload)
    if turn is None or turn["command"] in EDITING:
        return None
    if turn.get("unknown"):
        return ("rt: intent mode is on, but rt has no record of the command of this message (its "
                "UserPromptSubmit hook did not record it), so nothing is edited: answer in words, and ask the "
                "user to send the message again starting with /go if they want edits.")
    if turn["command"] is None:
        near = turn.get("near")
        typo = f" (the message starts with a command rt does not know; did you mean /{near}?)" if near else ""
        return f"rt: {CONVERSATION}{typo}."
    return f"rt: {COMMANDS[turn['command']].deny}."


# ---------------------------------------------------------------- /commit and /push

def git_decision(repo: Repo, payload: dict, operation: Callable[[], str | None],
                 refused: str) -> tuple[str, str] | None:
    """The PreToolUse answer for a Bash command the git guard refused (`refused` is its reason): `allow`
    when the command is exactly one plain commit or push and the session holds a live permission of that
    kind, else a `deny` saying why the permission did not apply; None when intent mode is not in play.
    `operation()` is the git guard's reading of the command (`gitguard.sole_operation`): `commit`, `push`,
    or None for anything else; it is asked only when intent mode is in play."""
    store = _store(repo)
    if not store.path(journal.INTENT_FILE).is_file():
        return None
    kind = operation()
    session, now = _id(payload, "session_id") or "", state.now()
    with store.locked():
        data = journal.load_intent(store)
        mine = [g for g in data.get("grants", []) if g["session"] == session]
        live = [g for g in mine if not journal.expired(g, now)]
        turns = data.get("turns", {}).get(session) or [{}]
        if not live and (kind is None or not turns[0].get("on")):
            return None  # no permission to explain, and no /commit to suggest with the mode off
        if kind is None:
            return "deny", (f"{refused}. The /{live[0]['kind']} permission lets through one plain "
                            f"`git {live[0]['kind']}` with nothing else in the command that rt blocks (no amend, no "
                            f"force, no second commit or push)")
        if _is_subagent(payload):
            return "deny", (f"rt: a subagent cannot use the user's /{kind} permission; only the main agent "
                            f"may {kind}. Report back and let the main agent do it.")
        for grant in live:
            if _kind_fits(grant, kind):
                _spend(data, grant)
                journal.save_intent(store, data)
                return "allow", f"rt: /{kind}: this one {kind} is let through; the permission is now spent."
    if live:
        other = live[0]["kind"]
        why = f"the user allowed one {other} (/{other}), not a {kind}"
    elif any(_kind_fits(g, kind) for g in mine):
        why = f"the /{kind} permission expired ({journal.TTL // 60} minutes after the user typed it)"
    else:
        why = f"the user has not allowed a {kind}"
    return "deny", f"{refused}. ({why}; the user types /{kind} to allow exactly one within {journal.TTL // 60} minutes)"


def _is_subagent(payload: dict) -> bool:
    """Hooks fired inside a subagent carry `agent_id`; the main agent's do not."""
    return "agent_id" in payload


def _kind_fits(grant: dict, kind: str) -> bool:
    """A `/commit` permission does not allow a push, nor `/push` a commit."""
    return grant["kind"] == kind


def _spend(data: dict, grant: dict) -> None:
    """A permission is spent by its first use."""
    data["grants"].remove(grant)


# ---------------------------------------------------------------- what the model is told once per session

SESSION_LINE = ("rt intent mode is on: the user starts a message with /go to allow edits in that turn (begin your "
                "reply with \"Understood as: ...\"); a message without a command is conversation: answer in words, "
                "edits are denied. git commit and push only after the user's /commit or /push.")


def session_line(repo: Repo) -> str:
    """The line SessionStart adds when intent mode is on, so a conversation turn does not try an edit."""
    from rt.core import RtError
    try:
        on = journal.mode_on(_store(repo), configured(repo))
    except RtError as e:  # a broken rt.toml: say so rather than guess the mode
        return f"rt: intent mode unknown: {e}"
    return SESSION_LINE if on else ""


# ---------------------------------------------------------------- rt intent, rt journal

def args_intent(p) -> None:
    p.add_argument("action", nargs="?", choices=["show", "on", "off", "revoke"], default="show",
                   help="show (default): the mode, live permissions and the commands; on/off: this project's "
                        "switch; revoke: drop live /commit and /push permissions")
    p.add_argument("kind", nargs="?", choices=list(journal.GRANT_KINDS), help="with revoke: only this kind")


def cmd_intent(ctx, args) -> Result:
    store = ctx.store
    setting = configured(ctx.repo)
    if args.kind and args.action != "revoke":
        raise UsageError(f"rt intent {args.action} takes no kind; only `rt intent revoke [commit|push]` does")
    if args.action in ("on", "off"):
        on = args.action == "on"
        journal.set_mode(store, on)
        if not on:
            _revoke(store, None)
        text = f"intent mode switched {args.action} for this project"
        if setting is not None and setting != on:
            text += f"; rt.toml says `intent = {'true' if setting else 'false'}`, which wins, so the mode stays " \
                    f"{'on' if setting else 'off'}"
        return Result(text, {"on": journal.mode_on(store, setting), "switch": on, "configured": setting})
    if args.action == "revoke":
        gone = _revoke(store, args.kind)
        text = "revoked: " + ", ".join(f"{g['kind']} permission" for g in gone) if gone else \
            "no live permission to revoke"
        return Result(text, {"revoked": [g["kind"] for g in gone]})
    on = journal.mode_on(store, setting)
    source = "set in rt.toml" if setting is not None else "set by `rt intent on|off`"
    lines = [f"intent mode: {'on' if on else 'off'} ({source})"]
    now = state.now()
    grants = journal.live_grants(journal.load_intent(store), now) if store.dir.is_dir() else []
    lines += [f"permission: {journal.describe_grant(g, now)}" for g in grants]
    lines += ["", "commands (at the start of a message in Claude Code):"]
    lines += [f"  /{name:<7} {m.summary}" for name, m in COMMANDS.items()]
    lines += ["  (none)   conversation: answer in words, edits denied", "  /runtask counts as /go for its turn"]
    return Result("\n".join(lines), {"on": on, "configured": setting,
                                     "permissions": [{"kind": g["kind"], "seconds_left": journal.TTL - (now - g["at"])}
                                                     for g in grants],
                                     "commands": {name: m.summary for name, m in COMMANDS.items()}})


def _revoke(store, kind: str | None) -> list[dict]:
    if not store.path(journal.INTENT_FILE).is_file():
        return []
    with store.locked():
        data = journal.load_intent(store)
        now = state.now()
        gone = [g for g in journal.live_grants(data, now) if kind in (None, g["kind"])]
        data["grants"] = [g for g in journal.live_grants(data, now) if g not in gone]
        journal.save_intent(store, data)
    return gone


def args_journal(p) -> None:
    p.add_argument("--kind", choices=list(journal.KINDS), help="only this kind of entry")


def cmd_journal(ctx, args) -> Result:
    found = journal.entries(ctx.store, args.kind)
    if not found:
        what = f"no /{args.kind} entries" if args.kind else "the journal is empty"
        return Result(f"{what}; /fail, /win and /mem in Claude Code add to it (.rt/{journal.JOURNAL_FILE})",
                      {"entries": []})
    lines = []
    for i, e in enumerate(found, 1):
        task = f" [task {e['task']}]" if e.get("task") else ""
        first, *more = e["text"].splitlines() or [""]
        lines.append(f"{i}. {e['kind']}{task}: {first}")
        lines += [f"   {line}" for line in more]
    return Result("\n".join(lines), {"entries": found})
