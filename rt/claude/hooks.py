"""`rt hook <event>`: Claude Code's hooks. Each reads the hook's JSON on stdin and answers on stdout.

    event             matcher                                  command                       on an internal error
    PreToolUse        Edit|Write|MultiEdit|NotebookEdit|Bash   rt hook pre-tool-use          closed: exit 2 + stderr
    PostToolUse       Edit|Write|MultiEdit|NotebookEdit|Bash   rt hook post-tool-use         open: additionalContext
    PostToolUseFailure Bash                                    rt hook post-tool-use         open: additionalContext
    SessionStart      (any source)                             rt hook session-start         open: additionalContext
    PreCompact        (manual and auto)                        rt hook pre-compact           open: plain stdout
    UserPromptSubmit  -                                        rt hook user-prompt-submit    open: additionalContext
    Stop              -                                        rt hook stop                  open: blocks once, saying so

`HOOKS` below lists these; `rt install` registers them as rt's hook client (`rt/claude/hook.sh <event>`, which asks
the repository's hook server, `rt/claude/hookserver.py`, and else runs `<python> -m rt hook <event>`, whose
process then starts the server: `rt hook serve`); `rt/__main__.py` sends `hook` here
before anything else is imported. `python3 -S -m rt hook ...` with rt's folder on PYTHONPATH also skips
the site-packages start-up, which rt does not need. `post-tool-use` answers PostToolUseFailure too:
a Bash command that fails may still have written files outside the scope.

SessionStart, UserPromptSubmit and PreCompact also record the session's transcript path
(`rt/session/transcripts.py`), which `rt usage` reads.

The hooks act only where rt is in use: a repository without `.rt/` gets no answer at all (exit 0).
Subagents (payloads with `agent_id`) meet the same edit gate and git guard as the main agent; the Stop
check is for the main agent only. In intent mode (`rt/claude/intent.py`) UserPromptSubmit records each
message's leading command and PreToolUse holds edits, commits and pushes to it.
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from rt.core import PathError, Repo, Result, RtError, command_arg, find_repo, to_rel

HOOKS: tuple[tuple[str, str | None, str, int], ...] = (
    ("SessionStart", None, "session-start", 30),
    ("UserPromptSubmit", None, "user-prompt-submit", 300),
    ("PreToolUse", "Edit|Write|MultiEdit|NotebookEdit|Bash", "pre-tool-use", 30),
    ("PostToolUse", "Edit|Write|MultiEdit|NotebookEdit|Bash", "post-tool-use", 180),
    ("PostToolUseFailure", "Bash", "post-tool-use", 180),
    ("Stop", None, "stop", 60),
    ("PreCompact", None, "pre-compact", 30),
)
"""(Claude Code event, tool matcher, `rt hook` argument, timeout in seconds): the hooks rt answers and
`rt install` registers (the plugin's `hooks/hooks.json` is tested against it).

`/runtask` on a large repository snapshots it and builds the index before the first request (75 s wall
for 20,000 files on a busy 2-core machine), so its hook gets a long timeout: one that is cut off leaves
the model without the manifest and pack."""

EVENTS = {arg: event for event, _, arg, _ in reversed(HOOKS)}
"""`rt hook` argument -> the Claude Code event it answers (the first, for `post-tool-use`)."""

EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})

RUNTASK = r"(?s)\s*/(?:[\w.-]+:)?runtask(?:\s+(.*))?\Z"
"""The raw `/runtask <task>` prompt (slash commands reach UserPromptSubmit unexpanded). Patterns here are
kept as text and compiled by `re`'s cache at their first use: most hooks use none."""


class HookInputError(RtError):
    """The hook's stdin is not the JSON payload Claude Code sends."""


class Reply:
    """What the hook process prints and exits with."""

    def __init__(self, stdout: str = "", stderr: str = "", code: int = 0):
        self.stdout, self.stderr, self.code = stdout, stderr, code


def context(event: str, text: str) -> Reply:
    """Text that reaches the model in its next request (`additionalContext`)."""
    return Reply(_dump({"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}))


def decision(decision: str, reason: str) -> Reply:
    """A PreToolUse permission decision: `deny` (the model sees the reason) or `ask` (the user approves)."""
    return Reply(_dump({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                               "permissionDecisionReason": reason}}))


def _dump(data: dict) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=False)


# ---------------------------------------------------------------- entry points

def main(argv: list[str]) -> int:
    """The lean entry point `rt/__main__.py` calls for `rt hook ...`: no argparse, no command table."""
    if argv == ["serve"]:
        from rt.claude.hookserver import serve
        return serve(served)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in EVENTS:
        known = ", ".join(EVENTS)
        if argv and argv[0] in ("-h", "--help"):
            print(f"usage: rt hook <event>  (reads the hook's JSON on stdin; events: {known})")
            return 0
        what = f"unknown event {argv[0]!r}" if argv else "no event given"
        print(f"rt hook: {what}; use one of: {known}", file=sys.stderr)
        return 2
    raw = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read().decode("utf-8", "replace")
    reply = respond(argv[0], raw)
    remember_interpreter(os.environ.get("CLAUDE_PLUGIN_DATA"))
    for stream, text in ((sys.stdout, reply.stdout), (sys.stderr, reply.stderr)):
        if text:   # UTF-8 whatever the locale, a byte a record kept from a Latin-1 terminal as `?`
            stream.flush()
            stream.buffer.write((text + "\n").encode("utf-8", "replace"))
        stream.flush()
    if os.environ.get("RT_HOOK_ROOT"):   # the hooks' client found no server there: one for the next hook
        from rt.claude.hookserver import ensure
        ensure(os.environ["RT_HOOK_ROOT"])
    return reply.code


INTERPRETER = "python"
"""In the plugin's data folder: the interpreter the plugin's hooks start (`hooks/rt-hook` reads it)."""


def remember_interpreter(data: str | None) -> None:
    """Keep this interpreter's path in the plugin's data folder (`data`, Claude Code's CLAUDE_PLUGIN_DATA; plugin
    hooks only), for the plugin's launcher to start it directly next time and not through a version manager's
    `python3` shim; rewritten when it names another (one that was removed: the launcher fell back to `python3`).
    Outside the repository, in the folder Claude Code gives the plugin; a hook never fails for it."""
    if not data or not sys.executable:
        return
    path = os.path.join(data, INTERPRETER)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read().strip() == sys.executable:
                return
    except OSError:
        pass
    try:
        os.makedirs(data, exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(sys.executable + "\n")
        os.replace(tmp, path)
    except OSError:
        pass


def args_hook(p) -> None:
    p.add_argument("event", choices=sorted(EVENTS), help="the hook event; the payload is read from stdin")


def cmd_hook(ctx, args):
    """`rt hook` through the command table (in-process use); the same answers as `main`."""
    reply = respond(args.event, sys.stdin.read())
    if reply.stderr:
        print(reply.stderr, file=sys.stderr)
    return Result(reply.stdout, json.loads(reply.stdout) if reply.stdout else {}, reply.code)


def served(event: str, raw: str, root: Path, kept=None) -> Reply | None:
    """The hook server's answer for the repository at `root`: `respond`'s, or None (the client then runs the
    hook itself) for an unknown event or a session whose task lives in another repository. A command line
    (`rt find ...` sent by `hookserver.ask`) goes to `rt.cli.served`, with the index the server keeps."""
    from rt.claude.hookserver import COMMAND_LINE
    if event == COMMAND_LINE:
        from rt.cli import served as command_line
        got = command_line(raw, root, kept)
        return None if got is None else Reply(*got)
    if event not in HANDLERS:
        return None
    try:
        where = _where(_payload(raw))
    except (RtError, OSError):
        return respond(event, raw)   # its answer says what is wrong with the payload
    if where is None or where[0].root.resolve() != root:
        return None
    global _kept
    _kept = kept
    try:
        return respond(event, raw)
    finally:
        _kept = None


_kept = None
"""While the hook server answers a hook: the index it keeps (`index.Kept`), for the commands a hook runs."""


def respond(event: str, raw: str) -> Reply:
    """The answer to one hook call. Internal errors fail closed for PreToolUse and open for the rest."""
    payload: dict = {}
    try:
        payload = _payload(raw)
        return HANDLERS[event](payload)
    except Exception as e:  # every failure is reported where the model or the user sees it
        if os.environ.get("RT_DEBUG"):
            raise
        why = str(e) if isinstance(e, RtError) else f"internal error: {type(e).__name__}: {e}"
        return _failed(event, why, payload)


def _failed(event: str, why: str, payload: dict) -> Reply:
    if event == "pre-tool-use":
        return Reply(stderr=f"rt hook {event}: {why}. The tool call is blocked to be safe; fix the cause "
                            f"(`rt doctor`, `rt repair`) or ask the user.", code=2)
    if event == "pre-compact":   # the compaction goes on; its summariser is not told about rt's failure
        return Reply(stderr=f"rt hook {event}: {why}")
    if event == "stop":
        if payload.get("stop_hook_active") is False:
            reason = f"rt could not check the task before stopping: {why}. Run `rt status` and `rt verify` yourself."
            return Reply(_dump({"decision": "block", "reason": reason}))
        return Reply(_dump({"systemMessage": f"rt hook stop: {why}"}))  # the user sees it; no second block
    name = _post_event(payload) if event == "post-tool-use" else EVENTS[event]
    return context(name, f"rt could not run its {name} hook: {why}")


def _payload(raw: str) -> dict:
    if not raw.strip():
        raise HookInputError("stdin is empty; a hook reads Claude Code's JSON payload on stdin")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):   # RecursionError: nested past Python's reader
        raise HookInputError("stdin is not JSON; a hook reads Claude Code's JSON payload on stdin") from None
    if not isinstance(data, dict):
        raise HookInputError("stdin is JSON but not an object; a hook reads Claude Code's JSON payload")
    return data


def _text(payload: dict, name: str) -> str:
    """A text of the payload; a lone surrogate JSON may carry (`\\ud800`), which no file can hold, made a `?`."""
    value = payload.get(name)
    if not isinstance(value, str):
        raise HookInputError(f"the payload has no {name!r} (a string); is this Claude Code's hook JSON?")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


def _object(payload: dict, name: str) -> dict:
    value = payload.get(name)
    if not isinstance(value, dict):
        raise HookInputError(f"the payload has no {name!r} (an object); is this Claude Code's hook JSON?")
    return value


def _cwd(payload: dict) -> Path:
    """The session's folder: the payload's `cwd`, else the hook's own (Claude Code runs hooks there)."""
    cwd = payload.get("cwd")
    return Path(cwd) if isinstance(cwd, str) and os.path.isdir(cwd) else Path.cwd()


def _where(payload: dict) -> tuple[Repo, Path] | None:
    """The task's repository and the session's folder, or None when rt is not in use there (no `.rt/`).

    The repository is the nearest folder up from the session's folder that holds `.rt/`, not the nearest
    `.git`: a submodule, a vendored repository or a test fixture with its own `.git` stays under the task.
    Within the project Claude Code reports (CLAUDE_PROJECT_DIR) the walk stops at the project's git top
    level; a shell that left the project is still under the project's task."""
    cwd = _cwd(payload)
    project = os.environ.get("CLAUDE_PROJECT_DIR")
    project_dir = Path(project).resolve() if project and os.path.isdir(project) else None
    top = find_repo(project_dir).root if project_dir else None
    for start in (cwd, project_dir):
        root = _store_root(start, top) if start else None
        if root is not None:
            return Repo(root, os.path.lexists(root / ".git")), cwd
    return None


def _store_root(start: Path, top: Path | None) -> Path | None:
    """The nearest folder from `start` up holding `.rt/`, not above `top` when `start` is under it."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".rt").is_dir():
            return folder
        if folder == top:
            break
    return None


def _store(repo: Repo):
    from rt.store import Store
    return Store(repo)


def _ctx(repo: Repo):
    """A command context bound to the session's repository, for reusing rt's commands."""
    from rt.cli import Ctx
    ctx = Ctx(False)
    ctx.repo = repo
    ctx.kept = _kept
    return ctx


# ---------------------------------------------------------------- PreToolUse: the edit gate and the git guard

def pre_tool_use(payload: dict) -> Reply:
    tool = _text(payload, "tool_name")
    if tool not in EDIT_TOOLS and tool != "Bash":
        return Reply()
    tool_input = _object(payload, "tool_input")
    if tool == "Bash":
        return _bash_gate(payload, _text(tool_input, "command"))
    path = _text(tool_input, "notebook_path" if tool == "NotebookEdit" else "file_path")
    where = _where(payload)
    if where is None:
        return Reply()
    from rt.claude.intent import edit_denial  # intent mode: edits only in a /go or /runtask turn
    why = edit_denial(where[0], payload)
    return decision("deny", why) if why else _edit_gate(*where, path)


def _edit_gate(repo: Repo, cwd: Path, path: str) -> Reply:
    """Deny an edit unless a planned task's approved scope holds the file; `verified` counts as editable
    (the post-edit hook moves the task back to `building`, so it must be verified again)."""
    from rt import state
    try:
        rel = to_rel(repo, path, cwd)
    except PathError as e:
        return decision("deny", f"rt: {e}. Edit only files inside the repository.")
    task = state.active_task(_store(repo), required=False)
    if task is None:
        return decision("deny", "rt: no active task, so edits are blocked. Ask the user for the task: they start it "
                                "with `/runtask <task>` (or run `rt start \"<task>\"`); then record the scope with "
                                "`rt plan --edit F ...`.")
    if task["state"] not in state.EDITABLE:
        return decision("deny", f"rt: task {task['id']} is {task['state']}: no approved scope yet, so edits are "
                                f"blocked. Next: {state.NEXT_STEP[task['state']]}.")
    scope = state.scope_paths(task) or set()
    if rel in scope:
        failed, limit = task.get("failed_verifies", 0), state.fix_limit(task)
        if failed >= limit:
            return decision("deny", f"rt: {failed} failed `rt verify` runs in a row reached the fix-attempt limit "
                                    f"({limit}; `fix_attempts` in rt.toml), so edits are stopped. Tell the user what "
                                    f"fails and what you tried: more attempts are their decision (`rt allow-fix`, "
                                    f"which they approve), else `rt block \"<what fails>\"`.")
        return Reply()
    listed = state.listing(sorted(scope)) or "nothing"
    return decision("deny", f"rt: {rel} is outside the approved scope of task {task['id']} (scope: {listed}). "
                            f"Changing the scope is the user's decision: ask the user whether {rel} may be added; "
                            f"if they agree, run `rt scope add {command_arg(rel)}` and they approve it.")


def _bash_gate(payload: dict, command: str) -> Reply:
    """The git guard, judged against the task's repository wherever the shell is (a nested repository,
    `-C`, `--git-dir` and `GIT_DIR` included)."""
    where = _where(payload)
    if where is None:
        return Reply()
    from rt.claude.gitguard import check
    from rt.core import git
    repo, cwd = where

    def alias_of(name: str) -> str | None:
        out = git(cwd, "config", "--get", f"alias.{name}")
        return out.decode("utf-8", "replace").strip() if out else None

    verdict = check(command, str(cwd.resolve()), str(repo.root), alias_of)
    if verdict is None:
        return Reply()
    if verdict.decision == "deny":
        from rt.claude.gitguard import sole_operation
        from rt.claude.intent import git_decision  # a live /commit or /push lets exactly one through
        answer = git_decision(repo, payload, lambda: sole_operation(command, str(cwd.resolve()), str(repo.root)),
                              verdict.reason)
        if answer:
            return decision(*answer)
    if verdict.decision == "plan":
        from rt import state
        task = state.active_task(_store(repo), required=False)
        if task is None or task.get("scope") is None:
            return Reply()
        return decision("ask", verdict.reason)
    return decision(verdict.decision, verdict.reason)


# ---------------------------------------------------------------- PostToolUse: state, formatter, checks, scope

def _post_event(payload: dict) -> str:
    return "PostToolUseFailure" if payload.get("hook_event_name") == "PostToolUseFailure" else "PostToolUse"


def post_tool_use(payload: dict) -> Reply:
    event = _post_event(payload)
    tool = _text(payload, "tool_name")
    if tool not in EDIT_TOOLS and tool != "Bash":
        return Reply()
    where = _where(payload)
    if where is None:
        return Reply()
    repo, cwd = where
    from rt import state
    task = state.active_task(_store(repo), required=False)
    if task is None:
        return Reply()
    ctx = _ctx(repo)
    if tool == "Bash":
        text = _outside_scope(ctx, task)
    elif event == "PostToolUseFailure":
        return Reply()
    else:
        tool_input = _object(payload, "tool_input")
        path = _text(tool_input, "notebook_path" if tool == "NotebookEdit" else "file_path")
        text = _after_edit(ctx, to_rel(repo, path, cwd))
    return context(event, text) if text else Reply()


def _after_edit(ctx, rel: str) -> str:
    """Move the task to `building`, format the file, and report the diagnostics new since the baseline."""
    from rt import state
    store = ctx.store
    with store.locked():
        task = state.active_task(store)
        if task["state"] in ("planned", "verified"):
            state.move(task, "building", f"edited {rel}")
            state.save_task(store, task)
    lines = []
    formatted = _format(ctx, task, rel)
    if formatted:
        lines.append(formatted)
    from rt.task.verify import check_file, format_file_check
    result = check_file(ctx, task, rel)
    result.could_not_run = _not_said_yet(ctx, task, result.could_not_run)
    report = format_file_check(result)
    if report:
        lines.append(report)
    return "\n".join(lines)


def _not_said_yet(ctx, task: dict, blind: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The checks that could not run which no earlier edit of this task reported: a missing program is said
    once, with that it will not be said again, not after every edit (`rt verify` reports it each time)."""
    if not blind:
        return blind
    import re
    seen_file = f"tasks/{task['id']}/hook-blind.json"
    store = ctx.store
    with store.locked():
        seen = (store.read_json(seen_file) or {}).get("checks", {})
        keys = {name: re.sub(r"\d+", "#", why) for name, why in blind}   # "3 diagnostic(s)" says the same as "4"
        fresh = [(name, why) for name, why in blind if seen.get(name) != keys[name]]
        if fresh:
            store.write_json(seen_file, {"checks": seen | {name: keys[name] for name, _ in fresh}})
    return [(name, f"{why} (said once: `rt verify` stays INCOMPLETE while it cannot run)") for name, why in fresh]


def _format(ctx, task: dict, rel: str) -> str:
    """Run the project's formatter on the file; a line for the model only when it changed the file or failed. A
    `[format]` table changed after the task started (an agent's edit of rt.toml) runs nothing, as a check would not."""
    from rt.checks import formatter_for, load_config
    argv = formatter_for(ctx.repo, rel)
    if not argv:
        return ""
    if "format" in task and load_config(ctx.repo).get("format", {}) != task["format"]:
        return f"rt did not format {rel}: the config's [format] changed after the task started"
    import subprocess   # here: an edit of a file no formatter or check applies to starts no program

    from rt.core import run
    from rt.sandbox import bounded
    from rt.snapshot import current_bytes
    before = current_bytes(ctx.repo, rel)
    if before is None:   # gone since the edit (a shell command, the user): nothing to format
        return ""
    try:
        proc = run(bounded(ctx.repo.root, argv), ctx.repo.root, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"rt could not run the formatter `{argv[0]}` on {rel}: {type(e).__name__}: {e}"
    if proc.returncode != 0:
        first = (proc.stderr or proc.stdout).decode("utf-8", "replace").strip().splitlines()[:1]
        return f"the formatter `{' '.join(argv)}` failed on {rel}: " + (first[0] if first else f"exit {proc.returncode}")
    if current_bytes(ctx.repo, rel) != before:
        return f"rt formatted {rel} with `{' '.join(argv)}`; read it again before the next edit."
    return ""


def _outside_scope(ctx, task: dict) -> str:
    """Files a shell command changed outside the approved scope, each reported once until it changes again."""
    from rt.task.changes import format_change, task_changes
    outside = [c for c in task_changes(ctx, task) if c.in_scope is not True]
    seen_file = f"tasks/{task['id']}/hook-outside.json"
    key = {c.path: f"{c.status} {c.added} {c.removed}" for c in outside}
    store = ctx.store
    with store.locked():
        seen = (store.read_json(seen_file) or {}).get("files", {})
        if key == seen:
            return ""
        store.write_json(seen_file, {"files": key})
    fresh = [c for c in outside if seen.get(c.path) != key[c.path]]
    if not fresh:
        return ""
    what = "the approved scope" if task.get("scope") is not None else "any approved scope (no plan yet)"
    more = [f"  ... and {len(fresh) - OUTSIDE_SHOWN} more (`rt delta` lists them all)"] if len(fresh) > OUTSIDE_SHOWN else []
    return "\n".join([f"rt: the shell changed {len(fresh)} file(s) outside {what} of task {task['id']}:"]
                     + [f"  {format_change(c)}" for c in fresh[:OUTSIDE_SHOWN]] + more
                     + [UNDO_OR_ASK])


UNDO_OR_ASK = "Tell the user, and undo these changes unless they agree to add the files (`rt scope add F`, which they approve)."

OUTSIDE_SHOWN = 10
"""Files a shell command changed outside the scope that are named, the rest counted: a build or an install writing
hundreds would otherwise pass the client's 10,000 characters, and the model would get a preview of a saved file."""


# ---------------------------------------------------------------- SessionStart, UserPromptSubmit, Stop

HANDOFF_SOURCES = ("compact", "resume", "clear")
"""SessionStart sources after which the model has lost the task's detail (or never had it in this
context): they get the whole handoff; a fresh start gets the status and where the handoff is."""


def session_start(payload: dict) -> Reply:
    """After compaction, resume or clear: the active task's handoff (`rt handoff`), so its decisions,
    patterns and errors are not lost (a resume whose context holds the same handoff gets a line
    saying so); on a fresh start, its status."""
    where = _where(payload)
    if where is None:
        return Reply()
    from rt import state
    from rt.claude.intent import session_line
    store = _store(where[0])
    _remember(store, payload)
    task = state.active_task(store, required=False)
    lines = [session_line(where[0])]
    if task is not None and payload.get("source") in HANDOFF_SOURCES:
        lines.append(_handoff(store, task, payload))
    elif task is not None:
        from rt.task.commands import describe
        lines.append("rt: a task is active in this repository.\n" + describe(task)
                     + "\n`rt handoff` gives its decisions, patterns and error history.")
    text = "\n".join(line for line in lines if line)
    return context("SessionStart", text) if text else Reply()


def _handoff(store, task: dict, payload: dict) -> str:
    """The handoff, unless this session resumes with the very same one already in its context (each
    SessionStart text stays in the conversation, so a second copy would only be paid for again)."""
    import hashlib

    from rt.session.handoff import handoff_text
    from rt.session.transcripts import give_handoff, handoff_given
    text = "rt: a task is active in this repository.\n" + handoff_text(_ctx(store.repo), task)
    digest = hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:16]
    session = payload.get("session_id")
    if not isinstance(session, str) or not session:
        return text
    if payload.get("source") == "resume" and handoff_given(store, session) == digest:
        return (f"rt: task {task['id']} is active; the handoff given earlier in this session still holds "
                f"(`rt handoff` prints it again).")
    give_handoff(store, session, digest)
    return text


def _remember(store, payload: dict) -> None:
    """Keep the session's transcript path for `rt usage` (a read; a write the first time only)."""
    from rt.session.transcripts import remember
    remember(store, payload)


def pre_compact(payload: dict) -> Reply:
    """Before the client summarises the conversation under an active task: ask its summariser to keep the
    two sections a summary loses first (plain stdout is appended to its instructions); rt's own records
    come back after it anyway, as the handoff."""
    where = _where(payload)
    if where is None:
        return Reply()
    from rt import state
    store = _store(where[0])
    _remember(store, payload)
    if state.active_task(store, required=False) is None:   # no handoff will follow: the summary's own format
        return Reply()
    from rt.session.handoff import PRECOMPACT
    return Reply(PRECOMPACT)


def user_prompt_submit(payload: dict) -> Reply:
    """`/runtask [paths:] <task>` starts the task and hands the model what it most likely needs; then,
    where rt is in use, the turn's intent command is recorded (`rt/claude/intent.py`)."""
    reply = _runtask_prompt(payload)
    where = _where(payload)  # after /runtask, which creates .rt/
    if where is not None:
        _remember(_store(where[0]), payload)
        from rt.claude.intent import on_prompt
        note = on_prompt(where[0], payload, _text(payload, "prompt"))
        if note:  # only for /fail /win /mem /commit /push, never with /runtask's context
            return context("UserPromptSubmit", note)
    return reply


def _runtask_prompt(payload: dict) -> Reply:
    """The task started, and the injection (`rt/pack/inject.py`): one index load and one ranking serve it
    and the manifest and pack written beside the task."""
    text = _runtask_text(_text(payload, "prompt"))
    if text is None:
        return Reply()
    if not text:
        return context("UserPromptSubmit", "rt: /runtask needs the task: `/runtask <what to do>`. Ask the user for it.")
    where = _where(payload)
    project = os.environ.get("CLAUDE_PROJECT_DIR")
    repo = where[0] if where else find_repo(Path(project) if project and os.path.isdir(project) else _cwd(payload))
    from rt import state
    from rt.task.commands import describe
    ctx = _ctx(repo)
    current = state.active_task(ctx.store, required=False)
    if current is not None:
        return context("UserPromptSubmit", f"rt: task {current['id']} is already active, so no new task was "
                                           f"started. Finish it (`rt finish`) or block it (`rt block \"<reason>\"`) "
                                           f"first, or tell the user.\n{describe(current)}")
    try:
        text, pins = runtask_pins(repo, _cwd(payload), text)
    except PathError as e:   # the user's own typo: shown to them, nothing sent to the model
        return Reply(_dump({"decision": "block", "reason": f"rt: {e}. Name existing files or folders before the "
                                                           f"colon: /runtask src/a.py src/b/: <task>"}))
    import gc

    from rt.index import history
    from rt.index.index import built
    cold = not built(ctx.store)
    if cold:   # a cold repository: its partial index takes over the bytes the snapshot reads
        ctx.texts = {}
    ctx.history = history.Reading(repo, ctx.store)   # git's log read on another core while the task starts
    collecting = gc.isenabled()
    if collecting:   # the scan, the index's shards (a cold repository's partial index) and the ranking make
        gc.disable()  # ever more objects, none in a cycle: as in a full build (`index._build`), the collector's
        # passes over them free nothing (a warm hook on babel: 276 passes, 40 ms, 18 objects freed)
    try:
        return context("UserPromptSubmit", _start(ctx, text, pins))
    finally:
        if collecting:
            gc.enable()


def _start(ctx, text: str, pins: list[str]) -> str:
    """`/runtask`'s task started, and the injection."""
    from types import SimpleNamespace

    from rt.task.commands import cmd_start
    started = cmd_start(ctx, SimpleNamespace(text=text, path=[str(ctx.repo.root / p) for p in pins], force=False,
                                             no_baseline=False))
    from rt.context import task_files
    from rt.core import IndexDamaged
    from rt.pack.inject import injection
    task = started.data["task"]

    def inject() -> str:
        view, files = task_files(ctx, task)
        text = injection(view, task["id"], started.data.get("baseline", {}), files)
        if not view.index.complete:   # a cold repository: its index is built after this hook, not in it
            from rt.index.partial import start_build
            start_build(ctx.repo)
        return text
    try:
        return inject()
    except IndexDamaged as e:   # only a cache: asked again, built again where damaged
        from rt.index.index import retried
        return retried(ctx, inject, e)


def _runtask_text(prompt: str) -> str | None:
    """The task text of a `/runtask ...` or `/<plugin>:runtask ...` prompt, or None for other prompts."""
    m = re.match(RUNTASK, prompt)
    return None if m is None else (m.group(1) or "").strip()


PINS = r"(?s)((?:[^\s:]+\s+)*[^\s:]+):\s+(\S.*)"
"""`/runtask src/a.py src/b/: <task>`: paths before the first colon that ends a word are pinned."""


def runtask_pins(repo: Repo, cwd: Path, text: str) -> tuple[str, list[str]]:
    """The task text and the repository paths pinned in front of it. The words before the colon are
    paths only when one of them exists (`fix: the bug` stays a task); then every one must exist."""
    m = re.fullmatch(PINS, text)
    if m is None:
        return text, []
    words = m.group(1).split()
    rels = []
    for w in words:
        try:
            rel = to_rel(repo, w, cwd)
        except PathError:
            return text, []
        rels.append(rel)
    exists = [os.path.lexists(repo.root / rel) for rel in rels]
    if not any(exists):
        return text, []
    missing = [w for w, ok in zip(words, exists) if not ok]
    if missing:
        raise PathError(f"/runtask {missing[0]}: no such file or folder")
    return m.group(2).strip(), sorted(set(rels))


def stop(payload: dict) -> Reply:
    """Block the main agent's stop once when the task changed files since its last verify."""
    if payload.get("stop_hook_active") or "agent_id" in payload:
        return Reply()
    where = _where(payload)
    if where is None:
        return Reply()
    from rt import state
    from rt.snapshot import changes, scan
    repo = where[0]
    store = _store(repo)
    task = state.active_task(store, required=False)
    if task is None:
        return Reply()
    tree = scan(repo, store)
    verified = task.get("verify")
    if verified:
        if verified.get("fingerprint") == tree.fingerprint:
            return Reply()
        why = "changed files since its last `rt verify`"
    else:
        made = state.made_by_checks(store, task, tree.files)   # what the baseline's checks wrote is not the task's
        if all(p in made for p, _ in changes(state.load_snapshot(store, task), tree.files)):
            return Reply()
        why = "changed files and was never verified"
    if task["state"] in state.EDITABLE:
        todo = "run `rt verify`, then `rt finish`"
    else:  # changed through the shell before any plan: verify needs one
        todo = f"{state.NEXT_STEP[task['state']]}; then `rt verify` and `rt finish`"
    return Reply(_dump({"decision": "block", "reason": f"rt: task {task['id']} {why}. Before ending: {todo}, or "
                                                       f"`rt block \"<reason>\"` if it cannot be finished now."}))


HANDLERS = {
    "pre-tool-use": pre_tool_use,
    "post-tool-use": post_tool_use,
    "session-start": session_start,
    "user-prompt-submit": user_prompt_submit,
    "stop": stop,
    "pre-compact": pre_compact,
}
