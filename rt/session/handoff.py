"""`rt handoff`: the active task's state in eight sections, from rt's own records (never by a model).

Goal, Constraints, Progress, Key decisions, Next steps, Critical context (the six sections of a common
compaction summary), then Architecture and patterns and Error history, the two a summary loses first:
the structure agreed on, and every error met with its path, line and message verbatim and what made it
go away. The SessionStart hook injects it after compaction, resume and clear; the PreCompact hook asks
the client's own summariser to keep the same two sections (`PRECOMPACT`).

Byte-stable: the same records give the same bytes (no time, no absolute path, every list in a fixed
order). At most HANDOFF_CHARS; when the records are longer, items are dropped in the order of `RANK`:
Progress detail first, Error history and Architecture last, each cut said in the text.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rt import state
from rt.core import Result, shown
from rt.diagnostics.model import Diagnostic, normalise
from rt.journal import memory_facts
from rt.session import notes, runs

HANDOFF_CHARS = 6000
"""The handoff's cap: a SessionStart hook's text reaches the model whole only up to 10,000 characters,
and after a compaction every character is paid for again on every request until the next one."""

SECTIONS = ("Goal", "Constraints", "Progress", "Key decisions", "Next steps", "Critical context",
            "Architecture and patterns", "Error history")

NEVER = float("inf")
RANK = {
    "step": 1,          # Progress: the notes of each step, oldest first
    "file": 2,          # Progress: the files changed, one by one (their count stays)
    "output": 3,        # Error history: quoted tool output, oldest first
    "goal": 4,          # Goal: the task text cut to its head
    "resolved": 5,      # Error history: errors that went away, oldest first
    "decision": 6,      # Key decisions, oldest first
    "open": 7,          # Error history: errors still there, oldest first
    "pattern": 8,       # Architecture and patterns, oldest first
}
"""The drop order when the handoff is over HANDOFF_CHARS: every item of a lower rank goes before any of
a higher one; within a rank the oldest goes first. Unranked lines (counts, state, scope, next step)
always stay."""

GOAL_CHARS = (state.TEXT_SHOWN, 200)
"""The task text shown in Goal: its head, as everywhere a model reads it (the whole is in `rt status
--json`), cut to 200 characters at rank `goal`."""

PRECOMPACT = (
    "rt keeps this task's records and re-injects them after compaction (`rt handoff`). In your summary add two "
    "sections after the others and keep their content verbatim: \"Architecture and patterns\": the structural "
    "decisions agreed (patterns, layers, conventions); \"Error history\": every error met, with its file path, line "
    "number and message exactly as printed, and what made it go away (the change and the file). Keep exact file "
    "paths, names, commands and error messages; say which files were created, modified or deleted.")
"""What the PreCompact hook prints: the client appends it to its summariser's instructions, then sends it
again after the compaction, so every character is paid twice. Static, for the prompt cache."""


# ---------------------------------------------------------------- the error history

@dataclass
class Error:
    """One error across the runs that saw it: its first sighting verbatim, the later ones, and how it ended."""
    kind: str                  # "diagnostic", "blind" (a check that could not run) or "scope"
    check: str
    file: str
    text: str                  # the line shown: path:line check [code] message, verbatim
    runs: list[int] = field(default_factory=list)
    also: list[str] = field(default_factory=list)     # other lines or wordings it was seen with
    gone: int | None = None    # the run where it was no longer there
    changed: list[str] = field(default_factory=list)  # files changed between its last sighting and `gone`
    steps: list[str] = field(default_factory=list)    # step notes recorded in between
    output: tuple[int, str] | None = None              # (run, check) whose output to quote


def _label(run: dict) -> str:
    target = f" {', '.join(map(shown, run['target']))}" if run.get("target") else ""
    return f"run {run['n']} ({run['kind']}{target})"


def _covers(run: dict, err: Error) -> bool:
    """Whether `run` would have seen `err` again: its check ran there (on its file, for a one-file check run)."""
    if err.kind == "scope":
        return run["kind"] == "verify"
    if err.check not in run["ran"]:
        return False
    return err.kind == "blind" or run.get("target") is None or err.file in run["target"]


def _sightings(run: dict) -> list[tuple[tuple, str, str, str, str]]:
    """(key, kind, check, file, text) of every failure in one run."""
    from rt.task.verify import format_diagnostic   # the line verify.md and the editing hooks print
    out = []
    for f in run["failures"]:
        d = Diagnostic(**f)
        out.append((("d",) + d.key(), "diagnostic", d.check, d.file, format_diagnostic(d)))
    for b in run["blind"]:
        out.append((("b", b["check"], normalise(b["reason"])), "blind", b["check"], "",
                    f"{b['check']} could not run: {b['reason']}"))
    for p in run.get("outside", []):   # a planned file not done yet is the plan's business: Next steps
        out.append((("o", p), "scope", "", p, f"{shown(p)} changed outside the plan"))
    return out


def error_history(task: dict, history: list[dict], snapshot: dict) -> list[Error]:
    """Every error the task's runs met, in the order first seen, each with how it ended."""
    open_: dict[tuple, Error] = {}
    done: list[Error] = []
    last_run: dict[int, dict] = {}
    for run in history:
        present: dict[tuple, list[tuple[str, str, str, str]]] = {}
        for key, kind, check, file, text in _sightings(run):
            present.setdefault(key, []).append((kind, check, file, text))
        for key, err in list(open_.items()):
            if key not in present and _covers(run, err):
                err.gone = run["n"]
                before = last_run[err.runs[-1]]
                err.changed = _changed_between(before, run, snapshot)
                err.steps = [s["note"] for s in task["steps"][before["steps"]:run["steps"]]]
                done.append(open_.pop(key))
        for key, seen in present.items():
            kind, check, file, text = seen[0]
            err = open_.get(key)
            if err is None:
                err = open_[key] = Error(kind, check, file, text)
            err.also += [t for *_, t in seen if t != err.text and t not in err.also]   # other lines, other wording
            err.runs.append(run["n"])
            if check in run.get("outputs", {}):
                err.output = (run["n"], check)
        last_run[run["n"]] = run
    return sorted(done + list(open_.values()), key=lambda e: (e.runs[0], e.text))


def _changed_between(a: dict, b: dict, snapshot: dict) -> list[str]:
    """Files whose content differs between two runs, as far as both saw them (a one-file check run
    knows only its file; verify knows every file, the unchanged ones being as the snapshot holds them)."""
    unknown = object()

    def known(run: dict, path: str):
        if path in run["files"]:
            return run["files"][path]
        return snapshot.get(path, (None,))[0] if run["complete"] else unknown

    out = []
    for path in sorted(set(a["files"]) | set(b["files"])):
        x, y = known(a, path), known(b, path)
        if x is not unknown and y is not unknown and x != y:
            out.append(path)
    return out


def _seen(err: Error, labels: dict[int, str]) -> str:
    if len(err.runs) == 1:
        return f"seen in {labels[err.runs[0]]}"
    return f"seen in {len(err.runs)} runs, {labels[err.runs[0]]} to {labels[err.runs[-1]]}"


def _also(err: Error, indent: str) -> list[str]:
    more = [f"{indent}also {len(err.also) - 5} more"] if len(err.also) > 5 else []
    return [f"{indent}also: {a}" for a in err.also[:5]] + more


def _open_lines(err: Error, labels: dict[int, str]) -> str:
    return "\n".join([f"- {err.text}", *_also(err, "  "), f"  {_seen(err, labels)}; still there"])


def _gone_lines(errors: list[Error], labels: dict[int, str]) -> str:
    """The errors one run no longer saw, under what changed before it: the files and the last steps noted."""
    first = errors[0]
    how = f"after changes to {', '.join(map(shown, first.changed))}" if first.changed else "with no file changed in between"
    steps = "".join(f"; step: {state.line(s, 'note', 200)}" for s in first.steps[-2:])
    lines = [f"- gone in {labels[first.gone]} {how}{steps}:"]
    for err in errors:
        lines += [f"  - {err.text}; {_seen(err, labels)}", *_also(err, "    ")]
    return "\n".join(lines)


# ---------------------------------------------------------------- sections and the cap

@dataclass
class Item:
    text: str
    rank: float = NEVER
    short: str | None = None    # shown instead when dropped; None: left out, and counted


def _ranked(kind: str, texts: list[str]) -> list[Item]:
    """Items of one rank, the oldest (first) dropped first."""
    return [Item(t, RANK[kind] + i / (len(texts) + 1)) for i, t in enumerate(texts)]


def render(sections: dict[str, list[Item]], title: str, level: float) -> tuple[str, int]:
    """The handoff with every item of rank <= level dropped; and how many were dropped."""
    out, dropped = [title], 0
    for name in SECTIONS:
        lines, gone = [], 0
        for item in sections[name]:
            if item.rank > level:
                lines.append(item.text)
            elif item.short is not None:
                lines.append(item.short)
            else:
                gone += 1
        if gone:
            lines.append(_left_out(gone))
        dropped += gone
        out += ["", f"## {name}", *lines]
    return "\n".join(out), dropped


def _left_out(gone: int) -> str:
    """The line saying a section's `gone` items were left out."""
    return f"- ({gone} more left out to fit; `rt handoff --json` has them all)"


def _more(gone: int) -> int:
    """The length `render` gives the line saying `gone` items were left out, with its line break (0 for none)."""
    return len(_left_out(gone)) + 1 if gone else 0


def fit(sections: dict[str, list[Item]], title: str, limit: int = HANDOFF_CHARS) -> tuple[str, int]:
    """Drop items in rank order until the text fits `limit`; a text that still does not fit is cut. Each level's
    length is reckoned from the last one's, so the handoff is drawn twice, not once per item (10,000 notes: 21 s)."""
    text, dropped = render(sections, title, float("-inf"))
    size, gone, level = len(text), dict.fromkeys(sections, 0), None
    ranked = sorted((i.rank, name, n) for name, items in sections.items() for n, i in enumerate(items) if i.rank != NEVER)
    for k, (rank, name, n) in enumerate(ranked if size > limit else ()):
        item = sections[name][n]
        if item.short is not None:
            size += len(item.short) - len(item.text)
        else:
            size += _more(gone[name] + 1) - _more(gone[name]) - len(item.text) - 1
            gone[name] += 1
        if k + 1 == len(ranked) or ranked[k + 1][0] != rank:   # every item of this rank dropped
            level = rank
            if size <= limit:
                break
    if level is not None:
        text, dropped = render(sections, title, level)
    if len(text) > limit:
        tail = "\n[... cut to fit; `rt handoff --json` has it all]"
        text = text[:limit - len(tail)].rsplit("\n", 1)[0] + tail
    return text, dropped


# ---------------------------------------------------------------- building it

def build(ctx, task: dict) -> tuple[dict[str, list[Item]], dict]:
    """The eight sections of the task's handoff, uncut, and their data for `--json`."""
    from rt.checks import detect, fix_attempt_limit
    from rt.snapshot import fingerprint, scan
    from rt.task.changes import format_change, task_changes
    from rt.task.verify import scope_mismatch
    store = ctx.store
    history = runs.load(store, task)
    snapshot = state.load_snapshot(store, task)
    now = scan(ctx.repo, store).files
    found = task_changes(ctx, task, snapshot, now)
    errors = error_history(task, history, snapshot)
    labels = {r["n"]: _label(r) for r in history}
    opened = [e for e in errors if e.gone is None]
    resolved = [e for e in errors if e.gone is not None]
    limit = fix_attempt_limit(ctx.repo)
    in_a_row = task.get("failed_verifies", 0)
    last = task.get("verify")
    s: dict[str, list[Item]] = {name: [] for name in SECTIONS}

    text = task["text"]
    s["Goal"] = [Item(state.head(text, limit=GOAL_CHARS[0]), RANK["goal"], state.head(text, limit=GOAL_CHARS[1]))]

    scope = task.get("scope")
    s["Constraints"].append(Item("- scope: " + ("; ".join(f"{k} {', '.join(map(shown, v))}" for k, v in scope.items() if v)
                                                or "empty") if scope is not None else
                                 "- scope: no plan yet, so every edit is denied until `rt plan --edit F ...`"))
    if task.get("paths"):
        s["Constraints"].append(Item("- pinned: " + ", ".join(map(shown, task["paths"]))))
    checks = detect(ctx.repo)
    s["Constraints"].append(Item("- checks: " + (", ".join(f"{c.name} ({c.kind}{'' if c.required else ', optional'})"
                                                           for c in checks) or "none configured")))
    s["Constraints"].append(Item(f"- at most {limit} failed `rt verify` runs in a row, then stop and `rt block`"))

    verifies = [r for r in history if r["kind"] == "verify"]
    counts = ", ".join(f"{sum(r['verdict'] == v for r in verifies)} {v}" for v in ("PASS", "FAIL", "INCOMPLETE")
                       if any(r["verdict"] == v for r in verifies))
    s["Progress"].append(Item(f"- state: {task['state']}; {len(task['steps'])} step(s); {len(verifies)} verify run(s)"
                              + (f" ({counts})" if counts else "")
                              + f"; {len(history) - len(verifies)} check run(s) after edits"))
    if last:
        s["Progress"].append(Item(f"- last verify: {last['summary']}"))
    added = sum(c.added or 0 for c in found)
    removed = sum(c.removed or 0 for c in found)
    s["Progress"].append(Item(f"- files changed: {len(found)} (+{added} -{removed})"))
    s["Progress"] += [Item(f"  {format_change(c)}", RANK["file"] + i / (len(found) + 1)) for i, c in enumerate(found)]
    s["Progress"] += _ranked("step", [f"- step {i + 1}: {state.head(st['note'], 'note', 300)}"
                                      for i, st in enumerate(task["steps"])])

    decided = ([(f"- approach (plan): {task['plan_note']}", "`rt status --json`")] if task.get("plan_note") else []) + \
        [(f"- {d}", "`rt note`") for d in notes.decisions(store, task)] + \
        [(f"- the user (/mem): {m}", "`rt journal`") for m in reversed(memory_facts(store))]
    s["Key decisions"] = _ranked("decision", [state.head(d, "decision", 500, whole) for d, whole in decided]) or \
        [Item("- none recorded (`rt note --decision \"...\"` keeps one)")]

    nxt = [f"- {state.NEXT_STEP[task['state']]}"]
    blind = sum(e.kind == "blind" for e in opened)   # a check that cannot run: no error fixing the code ends
    if len(opened) > blind:
        nxt.append(f"- {len(opened) - blind} error(s) still there (Error history): fix what this task caused, "
                   "then `rt verify`")
    if blind:
        nxt.append(f"- {blind} check(s) could not run (Error history): `rt verify` stays "
                   "INCOMPLETE until they run; tell the user what they need")
    outside, undone = scope_mismatch(task, found)
    if undone and task["state"] in ("building", "verified"):
        nxt.append(f"- planned, not done yet: {', '.join(map(shown, undone))}")
    if last and last["verdict"] == "FAIL" and in_a_row >= limit:
        nxt.append(f"- {in_a_row} failed verify runs in a row (limit {limit}): stop fixing; tell the user and "
                   f"`rt block \"<what fails, what was tried>\"`")
    s["Next steps"] = [Item(t) for t in nxt]

    crit = ["- rt gates this task: an edit outside the approved scope is denied (ask the user; only they extend it, "
            "`rt scope add F`); git commit/push are the user's; end with `rt verify`, then `rt finish` or `rt block`"]
    if last and last.get("fingerprint") != fingerprint(now):
        crit.append("- files changed after the last `rt verify`: its verdict does not cover them")
    if outside:
        crit.append(f"- changed outside the plan: {', '.join(map(shown, outside))} (undo, or ask the user)")
    crit += [f"- unverified claim (the agent's word, not measured): {state.head(c['text'], 'claim', 300)}"
             for c in task.get("claims", [])]
    if 0 < in_a_row < limit:   # at the limit, Next steps says to stop
        crit.append(f"- failed verify runs in a row: {in_a_row} of {limit}")
    s["Critical context"] = [Item(t) for t in crit]

    s["Architecture and patterns"] = _ranked("pattern", [f"- {state.head(p, 'pattern', 500, '`rt note`')}" for p in notes.patterns(store)]) or \
        [Item("- none recorded (`rt note --pattern \"...\"` keeps one)")]

    quoted: list[Item] = []
    for e in opened:
        if e.output:
            n, check = e.output
            body = next(r for r in history if r["n"] == n)["outputs"][check]
            if not body.strip():   # it printed nothing: the reason above is all there is
                continue
            block = f"output of {check} in {labels[n]}:\n" + "\n".join(f"  | {ln}" for ln in body.splitlines())
            if block not in (q.text for q in quoted):
                quoted.append(Item(block))
    for i, q in enumerate(quoted):
        q.rank = RANK["output"] + i / (len(quoted) + 1)
    gone: dict[tuple, list[Error]] = {}   # by the run that no longer saw them (and what changed before it)
    for e in sorted(resolved, key=lambda e: (e.gone, e.runs[-1], e.runs[0], e.text)):
        gone.setdefault((e.gone, e.runs[-1]), []).append(e)
    s["Error history"] = (_ranked("open", [_open_lines(e, labels) for e in opened]) +
                          _ranked("resolved", [_gone_lines(g, labels) for g in gone.values()]) + quoted) or \
        [Item("- none: no check run of this task has failed")]

    data = {"task": task["id"], "state": task["state"],
            "sections": {name: [i.text for i in items] for name, items in s.items()},
            "errors": [{"kind": e.kind, "check": e.check, "file": e.file, "text": e.text, "runs": e.runs,
                        "also": e.also, "gone": e.gone, "changed": e.changed, "steps": e.steps} for e in errors]}
    return s, data


def title(task: dict) -> str:
    return (f"# rt handoff: task {task['id']} ({task['state']})\n"
            "From rt's records, not a model's summary. `rt handoff` prints it again; `rt handoff --json` has every item.")


def handoff_text(ctx, task: dict) -> str:
    sections, _ = build(ctx, task)
    return fit(sections, title(task))[0]


def args_handoff(p) -> None:
    pass


def cmd_handoff(ctx, args) -> Result:
    task = state.active_task(ctx.store)
    sections, data = build(ctx, task)
    text, dropped = fit(sections, title(task))
    uncut = render(sections, title(task), float("-inf"))[0]
    return Result(text, data | {"chars": len(text), "uncut_chars": len(uncut), "dropped": dropped, "limit": HANDOFF_CHARS})
