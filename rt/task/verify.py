"""Baseline, check, verify and claim: only what the task's edits made new, and a verdict that hides nothing.

`rt baseline` runs the required checks before any edit and keeps their diagnostics; `rt check F` and
`rt verify` run them again and report only what is new against it. A check that could not run, or
that has no baseline to compare with, is never counted as clean.
"""
from __future__ import annotations

from collections import Counter

from rt import state
from rt.task.changes import MARK, original_lines, task_changes
from rt.checks import (CONFIG, Check, Ran, cut_note, detect, failed_test_reruns, fix_attempt_limit, run_all, run_check,
                       seconds, select)
from rt.core import ExitCode, Result, StateError, UsageError, command_arg, first_few, shown, to_rel
from rt.diagnostics.diff import DETAILS_SHOWN, VERDICT_EXIT, Run, diff, explaining, format_changed, strip_root, verdict
from rt.diagnostics.linemap import FileMap, LineMap, from_lines
from rt.diagnostics.model import ANSI, Diagnostic
from rt.snapshot import changes, current_bytes, fingerprint, hash_path, scan, text_lines

SHOWN = 10
"""New diagnostics listed in verify.md; the rest are counted, with the path of the full output. The
first ten say what broke; every one more is paid for again on each later request of the session."""


def task_dir(task: dict) -> str:
    return f"tasks/{task['id']}"


def _dump(run: Run, check: Check) -> dict:
    return {"status": run.status, "reason": run.reason, "head": run.head, "command": check.command,
            "per_file": check.per_file, "diagnostics": [d._asdict() for d in run.diagnostics]}


def held(check: Check, task: dict, baseline: dict[str, dict]) -> str | None:
    """Why `check` is not run for the task, None when it may run: a check added to the config, or its command changed,
    after the task started (an agent's edit of rt.toml) never runs for it, and its findings could not be told new
    from old anyway. Against the checks recorded at `rt start`, else (a task from an rt before that) the baseline's."""
    known = task.get("checks")
    if known is not None:
        if check.name not in known:
            return "added to the config after the task started, so not run for it (a task started after the change runs it)"
        then = known[check.name]
    elif not baseline or check.name not in baseline or baseline[check.name]["status"] == "could_not_run":
        return None
    else:
        then = [baseline[check.name].get("command", check.command), baseline[check.name].get("per_file", check.per_file)]
    if then != [list(check.command), check.per_file and list(check.per_file)]:
        return (f"its command changed after the task started (`{' '.join(then[0])}` then), so it is not run for it: "
                f"new could not be told from old (a task started after the change runs it)")
    return None


def _not_run(check: Check, why: str) -> Ran:
    return Ran(Run(check.name, check.required, "could_not_run", [], why), "", 0.0, 0, False)


def baseline_files(baseline: dict[str, dict]) -> set[str]:
    """The files the baseline has findings in ("" for a finding of no file)."""
    return {d["file"] for entry in baseline.values() for d in entry["diagnostics"]}


def load_baseline(store, task: dict) -> dict[str, dict]:
    """Check name -> its baseline run as kept ({status, reason, head, command, diagnostics: [dict]}); empty
    when none was taken. `compare` builds the diagnostics it compares: after an edit, only the file's."""
    return (store.read_json(f"{task_dir(task)}/baseline.json") or {"checks": {}})["checks"]


def without_root(ctx, text: str) -> str:
    """Text for a model with the repository's absolute path taken out of tools' output (byte-stable)."""
    return strip_root(text, str(ctx.repo.root))


def _head(run: Run) -> str:
    """The first lines of what a check that could not run printed, indented under it."""
    return "".join(f"\n    | {ln}" for ln in run.head.splitlines())


def _baseline_line(check: str, ran: Ran, log: str) -> str:
    run = ran.run
    if run.status == "could_not_run":
        return f"- {check}: could not run: {run.reason}" + _head(run) + _cut_line(ran, log)
    return f"- {check}: {len(run.diagnostics)} diagnostic(s)" + _cut_line(ran, log)


def _cut_line(ran: Ran, log: str) -> str:
    return f"\n    {cut_note(ran)}; full output: {log}" if ran.cut else ""


# ---------------------------------------------------------------- running the checks, watching the tree

def run_watched(ctx, task: dict, checks: list[Check], timeout: int | None, logs: str,
                fresh: bool = False, baseline: bool = False) -> tuple[list[Ran], dict]:
    """Run the checks with the tree scanned around each (the stat cache keeps that cheap): a file one
    makes, changes or deletes that the task had left as it was (or as a check left it) is the check's,
    recorded in the task's effects, not the task's change. The runs, and the tree after the last.
    Who wrote a file is not known, only that it changed while the check ran: after the `baseline`, a file
    the task left as it was, that no check wrote before, is the check's only when the check made it;
    changed or deleted, it may be an edit made meanwhile, and stays a change like any other (scope-checked).
    `fresh`: the task's snapshot was just taken, so it is the tree before the first check (`ctx.files` when
    `rt start` wrote it in this process)."""
    store = ctx.store
    before = ctx.files if fresh and ctx.files is not None else state.load_snapshot(store, task)
    effects = state.load_effects(store, task)
    known = dict(effects)
    tree = dict(before) if fresh else scan(ctx.repo, store).files

    def after(check: Check, ran: Ran) -> None:
        nonlocal tree
        if ran.printed is None:   # it never started (a missing program): nothing in the tree is its
            return
        now = scan(ctx.repo, store).files
        for path, _ in changes(tree, now):
            was = tree.get(path)
            theirs = path in effects and was == effects[path][1]   # as a check of this task left it
            if theirs or was == before.get(path) and (baseline or was is None):
                effects[path] = (check.name, now.get(path))
        tree = now

    ran = run_all(ctx.repo, checks, timeout, logs, after)
    if effects != known:
        with store.locked():
            state.save_effects(store, task, effects)
    return ran, tree


# ---------------------------------------------------------------- baseline

def take_baseline(ctx, with_: list[str] | None = None, timeout: int | None = None, *,
                  just_snapshotted: bool = False) -> Result:
    """Run the required (and named optional) checks on the untouched tree and keep what they report.

    Refused once files differ from the task's snapshot (not checked again by `rt start`, which has just
    taken it)."""
    store = ctx.store
    task = state.active_task(store)
    if task["state"] not in ("scanned", "ready"):
        raise StateError(f"task {task['id']} is {task['state']}; a baseline is taken before editing, "
                         f"in scanned or ready (start a new task to take a fresh one)")
    moved = []
    if not just_snapshotted:
        files = scan(ctx.repo, store).files
        made = state.made_by_checks(store, task, files)
        moved = [(p, s) for p, s in changes(state.load_snapshot(store, task), files) if p not in made]
    if moved:
        raise StateError(f"{len(moved)} file(s) changed since `rt start` (first: {moved[0][0]}); a baseline of "
                         f"edited files would hide their problems: undo them, or `rt start --force` a new task")
    checks = select(ctx.repo, with_ or [])
    logs = f"{task_dir(task)}/baseline"
    ran, _ = run_watched(ctx, task, checks, timeout, logs, fresh=just_snapshotted, baseline=True)
    with store.locked():
        task = state.still_active(store, task)
        path = f"{task_dir(task)}/baseline.json"
        kept = (store.read_json(path) or {"checks": {}})["checks"]
        for check, r in zip(checks, ran):
            kept[check.name] = _dump(r.run, check)
        store.write_json(path, {"checks": kept})
        if task["state"] == "scanned":
            state.move(task, "ready", "baseline")
        state.save_task(store, task)
    lines = [f"baseline for task {task['id']}: {len(checks)} check(s)"]
    lines += [_baseline_line(c.name, r, f".rt/{logs}/{c.name}.log") for c, r in zip(checks, ran)]
    if not checks:
        lines.append(f"no checks found; `rt verify` will be INCOMPLETE until some are declared (see `rt checks`, {CONFIG})")
    failed = [c.name for c, r in zip(checks, ran) if r.run.status == "could_not_run"]
    none_ran = bool(checks) and len(failed) == len(checks)
    if none_ran:
        lines.append("no check could run, so the baseline holds nothing: `rt verify` will be INCOMPLETE until "
                     "they run; fix them (see each reason above) and run `rt baseline` again before editing")
    elif failed:
        lines.append(f"{', '.join(failed)} could not run: verify cannot tell new problems from old there; "
                     f"fix it and run `rt baseline` again before editing")
    lines.append(f"next: {state.NEXT_STEP[task['state']]}")
    data = {"task": task["id"], "checks": {c.name: _dump(r.run, c) for c, r in zip(checks, ran)}}
    return Result(without_root(ctx, "\n".join(lines)), data, ExitCode.INCOMPLETE if none_ran else ExitCode.OK)


def run_options(p) -> None:
    """The options `rt baseline` and `rt verify` share: which optional checks, and the timeout."""
    p.add_argument("--with", dest="with_", action="append", default=[], metavar="CHECK",
                   help="also run this optional check (repeatable)")
    p.add_argument("--timeout", type=seconds, metavar="S", help="seconds per check (over the config file)")


def args_baseline(p) -> None:
    run_options(p)


def cmd_baseline(ctx, args) -> Result:
    return take_baseline(ctx, args.with_, args.timeout)


# ---------------------------------------------------------------- comparing one check with its baseline

class Compared:
    """One check's run against its baseline: `run` as counted for the verdict (no baseline to compare with
    counts as not run), the new diagnostics, how many old ones were fixed and unchanged, `changed`, the
    tests still failing with another message, and `flaky`, new failures a rerun did not repeat (not
    counted as new). (Plain classes here, not dataclasses: the post-edit hook builds them, and
    `dataclasses` imports `inspect`, `ast` and `dis`.)"""

    __slots__ = ("check", "run", "new", "fixed", "unchanged", "ran", "changed", "flaky")

    def __init__(self, check: Check, run: Run, new: list[Diagnostic], fixed: int, unchanged: int, ran: Ran,
                 changed: list[Diagnostic] = ()):
        self.check, self.run, self.new, self.fixed, self.unchanged = check, run, new, fixed, unchanged
        self.ran, self.changed, self.flaky = ran, changed, []


def compare(check: Check, ran: Ran, baseline: dict[str, dict], only: str | None = None,
            moved: LineMap | None = None) -> Compared:
    """The new diagnostics of one run against the baseline (only those in file `only`, when given);
    `moved` (the task's renames and edited lines) keeps a moved file's or line's old findings old."""
    run = ran.run
    if run.status == "could_not_run":
        return Compared(check, run, [], 0, 0, ran)
    before = baseline.get(check.name)
    found = [d for d in run.diagnostics if only is None or d.file == only]
    if before is None or before["status"] == "could_not_run":
        if not found:
            return Compared(check, run, [], 0, 0, ran)
        why = "no baseline was taken" if before is None else "its baseline run could not run"
        blind = Run(check.name, check.required, "could_not_run", run.diagnostics,
                    f"{len(found)} diagnostic(s) but {why}, so new cannot be told from old "
                    f"(run `rt baseline` before editing)", "")
        return Compared(check, blind, [], 0, 0, ran)
    old = [Diagnostic(**d) for d in before["diagnostics"]
           if only is None or d["file"] == only or moved is not None and moved.place(d["file"], 0)[0] == only]
    result = diff(old, found, moved=moved)
    return Compared(check, run, result.new, result.fixed, result.unchanged, ran, [now for _, now in result.changed])


def rerun_failed(ctx, task: dict, compared: list[Compared], baseline: dict[str, dict], moved: LineMap,
                 timeout: int | None, logs: str, times: int) -> dict | None:
    """Run each test check with new failures again, up to `times` times while some remain: a new
    diagnostic that a rerun does not repeat moves to the check's `flaky` (a test that fails under load
    now and then must not fail the task nor use up its fix attempts); one that every run repeats stays
    new. The whole check runs again, not only its failing tests: its command may be anything (`make
    test`), and a test broken by another one's leftovers passes alone, so run alone it would look flaky.
    A rerun that could not run, stopped early or was read in part proves nothing gone, and so does one with a
    new failure the first run did not have (another test, or the same one saying another pid): nothing passed
    when run again, and that failure counts as new too. The tree after the last rerun, None when none ran."""
    tree = None
    for c in compared:
        if c.check.kind != "test":
            continue
        for _ in range(times):
            if not c.new:
                break
            (ran,), tree = run_watched(ctx, task, [c.check], timeout, logs)
            if ran.run.status not in ("ok", "findings") or ran.cut:
                break
            again = compare(c.check, ran, baseline, moved=moved).new
            left, extra = Counter(d.key() for d in c.new), []
            for d in again:
                if left[d.key()] > 0:
                    left[d.key()] -= 1
                else:
                    extra.append(d)
            if extra:
                c.new = c.new + extra
                break
            back = Counter(d.key() for d in again)
            still = []
            for d in c.new:
                (still if back[d.key()] > 0 else c.flaky).append(d)
                back[d.key()] -= 1
            c.new = still
    return tree


# ---------------------------------------------------------------- rt check FILE

class FileCheck:
    """What `rt check F` and the post-edit hook found in one file: the new diagnostics, (check, reason) for
    each check that could not run, the checks that ran, and whether the file is there at all."""

    __slots__ = ("path", "new", "could_not_run", "ran", "exists")

    def __init__(self, path: str, new: list[Diagnostic], could_not_run: list[tuple[str, str]],
                 ran: list[str] = (), exists: bool = True):
        self.path, self.new, self.could_not_run = path, new, could_not_run
        self.ran, self.exists = list(ran), exists


def check_file(ctx, task: dict, rel: str) -> FileCheck:
    """New diagnostics in one file, quickly: each applicable check's per-file form, else its full run
    filtered to the file. Builds and test suites without a per-file form are left to `rt verify`."""
    new: list[Diagnostic] = []
    failed: list[tuple[str, str]] = []
    if not (ctx.repo.root / rel).is_file():
        return FileCheck(rel, new, failed, exists=False)  # deleted, or not a file: nothing to check in it
    baseline = load_baseline(ctx.store, task)
    moved = _moved_to(ctx, task, rel, baseline)
    done: list[Compared] = []
    for check in detect(ctx.repo):
        if not check.required or not check.applies_to(rel) or check.kind == "build":
            continue
        if check.kind == "test" and not check.per_file:
            continue
        why = held(check, task, baseline)
        ran = _not_run(check, why) if why else run_check(ctx.repo, check, file=rel if check.per_file else None)
        # a test run reports failures in the test files, not in the edited one
        got = compare(check, ran, baseline, only=None if check.kind == "test" else rel, moved=moved)
        done.append(got)
        new += got.new
        if got.run.status == "could_not_run":
            failed.append((check.name, got.run.reason))
    result = FileCheck(rel, sorted(new, key=_order), failed,
                       [c.check.name for c in done if c.run.status != "could_not_run"])
    if done:
        blob = hash_path(ctx.repo, rel)
        verdict_ = "FAIL" if new else "INCOMPLETE" if failed else "PASS"
        _record_run(ctx, task, "check", verdict_, done, {rel: blob[0] if blob else None}, target=[rel])
    return result


def _moved_to(ctx, task: dict, rel: str, baseline: dict[str, dict]) -> LineMap | None:
    """Where `rel` came from when the task moved it (and maybe edited it) from a file the baseline has findings in
    that is gone now, paired as verify pairs them (`edited_renames`): its old findings stay old. None for a file
    with findings of its own, or no such file gone (each file the baseline names is looked at; the snapshot is
    read only when one is gone)."""
    import os
    named = baseline_files(baseline) - {""}
    if rel in named:
        return None
    gone = [p for p in sorted(named) if not os.path.lexists(os.path.join(ctx.repo.top, p))]
    if not gone:
        return None
    before = state.load_snapshot(ctx.store, task)
    if rel in before:
        return None
    pairs = edited_renames(ctx, task, before, [p for p in gone if p in before], [rel])
    return LineMap({old: FileMap(new, blocks) for old, (new, blocks) in pairs.items()}) if pairs else None


def _record_run(ctx, task: dict, kind: str, verdict_: str, compared: list[Compared], files: dict,
                target: list[str] | None = None, outside: list[str] = (), undone: list[str] = ()) -> None:
    """Keep this run in the task's history (`rt/session/runs.py`): what failed, verbatim, and what it saw."""
    from rt.session.runs import quote, record
    record(ctx.store, task, {
        "kind": kind, "verdict": verdict_, "target": target, "complete": target is None, "files": files,
        "ran": sorted(c.check.name for c in compared if c.run.status != "could_not_run"),
        "failures": [d._asdict() for c in compared for d in sorted(c.new, key=_order)],
        "blind": [{"check": c.check.name, "reason": c.run.reason} for c in compared if c.run.status == "could_not_run"],
        "outputs": {c.check.name: quote(without_root(ctx, ANSI.sub("", c.ran.output)))
                    for c in compared if c.new or c.run.status == "could_not_run"},
        "outside": list(outside), "undone": list(undone)})


def _order(d: Diagnostic) -> tuple:
    return (d.file, d.line, d.column, d.check, d.code, d.message)


def format_diagnostic(d: Diagnostic, checks: str | None = None) -> str:
    where = f"{d.file}:{d.line}" + (f":{d.column}" if d.column else "") if d.file else "(no file)"
    code = d.code[len(d.file) + 2:] if d.file and d.code.startswith(f"{d.file}::") else d.code   # a test id's path is the place's
    code = f" [{code}]" if code else ""
    kind = " (error)" if d.kind == "error" else ""    # a test's setup, teardown or collection broke
    return f"{where} {checks or d.check}{code}{kind} {d.message}"


def merged(found: list[Diagnostic]) -> list[tuple[Diagnostic, str | None]]:
    """One line for what several checks report at the same place (go build, vet and test each print a
    compile error, vet in other words): the first check's findings there, the first of them naming the
    other checks too. Without a column, only the same message counts as the same place."""
    places: dict[tuple, list[Diagnostic]] = {}
    for d in found:
        place = (d.file, d.line, d.column, d.kind) if d.column else (d.file, d.line, d.kind, d.message)
        places.setdefault(place, []).append(d)
    out = []
    for there in places.values():
        first = [d for d in there if d.check == there[0].check]
        names = list(dict.fromkeys(d.check for d in there))
        out.append((first[0], ", ".join(names) if len(names) > 1 else None))
        out += [(d, None) for d in first[1:] if d.message != first[0].message]
    return out


def folded(groups: list[tuple[Diagnostic, str | None]]) -> list[tuple[Diagnostic, str | None, list[int]]]:
    """The same finding at several lines of one file (ruff's E402 for each import below a statement) as one
    entry with its other lines; a finding with details of its own (a test's failure) stays alone."""
    out: list[tuple[Diagnostic, str | None, list[int]]] = []
    first: dict[tuple, int] = {}
    for d, checks in groups:
        key = (d.file, checks or d.check, d.code, d.kind, d.message) if d.file and not d.detail else None
        if key is not None and key in first:
            out[first[key]][2].append(d.line)
            continue
        if key is not None:
            first[key] = len(out)
        out.append((d, checks, []))
    return out


FOLDED_LINES = 8
"""The other lines of a folded finding named; the rest counted."""


def format_folded(d: Diagnostic, checks: str | None, lines: list[int]) -> str:
    if not lines:
        return format_diagnostic(d, checks)
    named = first_few(list(map(str, lines)), FOLDED_LINES)
    return f"{format_diagnostic(d, checks)} (also line{'s' if len(lines) > 1 else ''} {named})"


def format_file_check(result: FileCheck) -> str:
    """Short text for the model after an edit; '' when nothing new appeared and every check ran."""
    if not result.new and not result.could_not_run:
        return ""
    lines = []
    if result.new:
        lines.append(f"{len(result.new)} new diagnostic(s) after editing {result.path}:")
        groups = folded(merged(result.new))
        lines += [f"  {format_folded(*g)}" for g in groups[:SHOWN]]
        if len(groups) > SHOWN:
            lines.append(f"  ... and {sum(1 + len(g[2]) for g in groups[SHOWN:])} more (`rt check {command_arg(result.path)}`)")
    for name, reason in result.could_not_run:
        lines.append(f"{name} could not check {result.path}: {reason}")
    return "\n".join(lines)


def args_check(p) -> None:
    p.add_argument("files", nargs="+", metavar="F", help="the file(s) to check")


def cmd_check(ctx, args) -> Result:
    task = state.active_task(ctx.store)
    rels = [to_rel(ctx.repo, f) for f in args.files]
    for rel in rels:
        if (ctx.repo.root / rel).is_dir():
            raise UsageError(f"{shown(rel)}: a folder; `rt check` takes files (`rt verify` runs every check on the tree)")
    results = [check_file(ctx, task, rel) for rel in rels]
    text = "\n".join(filter(None, (line for r in results for line in (_nothing_new(r), format_file_check(r)))))
    new = sum(len(r.new) for r in results)
    code = ExitCode.FINDING if new else ExitCode.INCOMPLETE if any(r.could_not_run for r in results) else ExitCode.OK
    data = {"files": [{"path": r.path, "new": [d._asdict() for d in r.new],
                       "could_not_run": [list(x) for x in r.could_not_run], "ran": r.ran} for r in results]}
    return Result(without_root(ctx, text), data, code)


def _nothing_new(result: FileCheck) -> str:
    """`rt check`'s line for a file in which nothing new was found, saying what was checked: a file no per-file
    check reads was not checked at all, which "nothing new" alone would hide; "" when something new was found or
    no check could run (`format_file_check` says so)."""
    if result.new or result.could_not_run and not result.ran:
        return ""
    if not result.exists:
        return f"{result.path}: no such file now, nothing to check"
    if result.ran:
        return f"nothing new in {result.path} ({', '.join(result.ran)})"
    return f"no check reads {result.path} on its own, so nothing was checked (`rt verify` runs every check)"


# ---------------------------------------------------------------- verify

def task_line_map(ctx, task: dict, before: dict, now: dict, wanted: set[str]) -> LineMap:
    """Where the task moved the lines of the files in `wanted` (those the baseline has findings in):
    renamed files by content, or by likeness when also edited (`edited_renames`), edited ones line by line
    against their original."""
    moved = renames(before, now)
    files = {old: FileMap(new) for old, new in moved.items()}
    for path, status in changes(before, now):
        if path in wanted and status == "modified":
            old = original_lines(ctx, task, path, before)
            new = text_lines(current_bytes(ctx.repo, path))
            if old is not None and new is not None:
                files[path] = FileMap(path, from_lines(old, new))
    gone = [p for p in sorted(set(before) - set(now)) if p in wanted and p not in moved]
    came = [p for p in sorted(set(now) - set(before)) if p not in moved.values()]
    for path, (new_path, blocks) in edited_renames(ctx, task, before, gone, came).items():
        files[path] = FileMap(new_path, blocks)
    return LineMap(files)


RENAME_LIKENESS = 0.5
MAX_RENAME_PAIRS = 400
"""A deleted file and an added one are one file moved and edited when half their lines or more are alike (git's
`-M` default); past this many (deleted x added) pairs, only files of the same name are compared."""


def edited_renames(ctx, task: dict, before: dict, gone: list[str], came: list[str]) -> dict[str, tuple]:
    """Deleted files paired with the added file most like each, as `git diff -M` pairs them: old path ->
    (new path, changed blocks), so a file the task moved and edited keeps its old findings old."""
    import difflib   # here: only a task that moved and edited a file with findings compares files
    if not gone or not came:
        return {}
    same_name = len(gone) * len(came) > MAX_RENAME_PAIRS
    added = {p: text_lines(current_bytes(ctx.repo, p)) for p in came}
    out: dict[str, tuple] = {}
    for path in gone:
        old = original_lines(ctx, task, path, before)
        if not old:
            continue
        best, best_ratio = None, RENAME_LIKENESS
        for cand, new in added.items():
            if not new or same_name and cand.rsplit("/", 1)[-1] != path.rsplit("/", 1)[-1]:
                continue
            matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
            if matcher.quick_ratio() >= best_ratio and (ratio := matcher.ratio()) >= best_ratio:
                best, best_ratio = cand, ratio
        if best is not None:
            out[path] = (best, from_lines(old, added.pop(best)))
    return out


def renames(before: dict, now: dict) -> dict[str, str]:
    """Files the task moved without changing them (old path -> new), matched by content."""
    gone: dict[str, list[str]] = {}
    for path in sorted(set(before) - set(now)):
        gone.setdefault(before[path][0], []).append(path)
    came: dict[str, list[str]] = {}
    for path in sorted(set(now) - set(before)):
        came.setdefault(now[path][0], []).append(path)
    return {gone[h][0]: came[h][0] for h in gone if len(gone[h]) == 1 and len(came.get(h, [])) == 1}


def scope_mismatch(task: dict, found) -> tuple[list[str], list[str]]:
    """(changed outside the plan, planned but not done); both empty when no plan exists."""
    scope = task.get("scope")
    if scope is None:
        return [], []
    outside = [c.path for c in found if c.in_scope is False]
    status = {c.path: c.status for c in found}
    undone = [p for p in scope["edit"] if p not in status]
    undone += [p for p in scope["create"] if status.get(p) != "added"]
    undone += [p for p in scope["delete"] if status.get(p) != "deleted"]
    return outside, sorted(undone)


def _check_line(c: Compared, log: str) -> str:
    """A check that failed or could not run, on a line of its own with the path of its full output."""
    head = f"- {c.check.name} ({c.check.kind}{'' if c.check.required else ', optional'}): "
    if c.run.status == "could_not_run":
        # a program that never started printed nothing, and one whose one line is the reason printed no more:
        # the log holds what is already given
        return head + f"could not run: {c.run.reason}" + _head(c.run) + (
            _cut_line(c.ran, log) or (f"\n    full output: {log}" if c.ran.printed is not None and c.run.head else ""))
    if c.new:
        return head + f"failed: {len(c.new)} new{_counts(c)}" + (_cut_line(c.ran, log) or f"; full output: {log}")
    if c.run.status == "partial":
        return (head + f"stopped early, nothing new where it got to{_counts(c)}: {c.run.reason}"
                + (_cut_line(c.ran, log) or f"; full output: {log}"))
    return head + "passed: nothing new" + _cut_line(c.ran, log)   # only read in part: said on its own line


def _counts(c: Compared) -> str:
    """The old and fixed diagnostics of a check, those it has: a zero says nothing."""
    bits = [f"{n} {what}" for n, what in ((c.unchanged, "old"), (c.fixed, "fixed")) if n]
    return f" ({', '.join(bits)})" if bits else ""


def _passed_line(passed: list[Compared]) -> str:
    """The checks that passed, on one line: what the model needs of them is that nothing is new."""
    return "- passed, nothing new: " + ", ".join(f"{c.check.name}{_counts(c)}" for c in passed)


def _flaky_line(c: Compared, log: str) -> str:
    """A check's flaky failures, on one line: where each is and that it was not counted (its message is
    in the log; it is not the task's to fix)."""
    where = "; ".join(format_diagnostic(d._replace(message="")).rstrip() for d in c.flaky[:SHOWN])
    more = f" (and {len(c.flaky) - SHOWN} more, in {log})" if len(c.flaky) > SHOWN else ""
    return f"- flaky: {where}{more} failed, then passed when run again (not counted)"


GONE = "run by the baseline, no longer a check: rt.toml or the project's files changed since the task started"
"""Why a check the baseline ran is not run now (no `rt baseline` mends it: a baseline is refused once files changed)."""


def _summary(verdict_: str, compared: list[Compared], outside: list[str], undone: list[str], gone: list[str]) -> str:
    bits = []
    new = [c for c in compared if c.new]
    if new:
        bits.append(f"{sum(len(c.new) for c in new)} new diagnostic(s) ("
                    + ", ".join(f"{c.check.name} {len(c.new)}" for c in new) + ")")
    blind = [c.check.name for c in compared if c.run.status == "could_not_run" and c.check.required]
    if blind:
        bits.append(f"could not run: {', '.join(blind)}")
    if gone:
        bits.append(f"no longer run: {', '.join(gone)}")
    stopped = [c.check.name for c in compared if c.run.status == "partial" and c.check.required and not c.new]
    if stopped:
        bits.append(f"stopped early: {', '.join(stopped)}")
    if outside:
        bits.append(f"{len(outside)} file(s) changed outside the plan")
    if undone:
        bits.append(f"{len(undone)} planned file(s) not done")
    if not compared:
        bits.append("no checks configured")
    if not bits:
        bits.append(f"{len(compared)} check(s) ran, nothing new")
    flaky = [c for c in compared if c.flaky]
    if flaky:
        bits.append(f"{sum(len(c.flaky) for c in flaky)} flaky, not counted ("
                    + ", ".join(f"{c.check.name} {len(c.flaky)}" for c in flaky) + ")")
    return f"{verdict_}: " + "; ".join(bits)


def args_verify(p) -> None:
    run_options(p)


def cmd_verify(ctx, args) -> Result:
    store = ctx.store
    task = state.active_task(store)
    if task["state"] not in ("planned", "building", "verified"):
        raise StateError(f"task {task['id']} is {task['state']}; verify needs a plan: record the scope with "
                         f"`rt plan --edit F ...` first")
    every = detect(ctx.repo)
    checks = select(ctx.repo, args.with_)
    baseline = load_baseline(store, task)
    base = task_dir(task)
    why = {c.name: w for c in checks if (w := held(c, task, baseline))}
    ran, now = run_watched(ctx, task, [c for c in checks if c.name not in why], args.timeout, f"{base}/verify")
    run_ = iter(ran)
    ran = [_not_run(c, why[c.name]) if c.name in why else next(run_) for c in checks]
    before = state.load_snapshot(store, task)
    wanted = baseline_files(baseline)
    moves = task_line_map(ctx, task, before, now, wanted)
    compared = [compare(c, r, baseline, moved=moves) for c, r in zip(checks, ran)]
    now = rerun_failed(ctx, task, compared, baseline, moves, args.timeout, f"{base}/verify/rerun",
                       failed_test_reruns(ctx.repo)) or now
    found = task_changes(ctx, task, before, now)
    outside, undone = scope_mismatch(task, found)
    new = [d for c in compared for d in c.new]
    names = {c.name for c in every}   # a check the baseline ran that is gone now was not run: never a silent pass
    gone = sorted(n for n, entry in baseline.items() if n not in names and entry["status"] != "could_not_run")
    result = verdict([c.run for c in compared] + [Run(n, True, "skipped", []) for n in gone], len(new),
                     not (outside or undone))
    limit = fix_attempt_limit(ctx.repo)
    made = state.made_by_checks(store, task, now)
    by_checks = [{"path": p, "status": s, "check": made[p]} for p, s in changes(before, now) if p in made]
    with store.locked():
        task = state.still_active(store, task)
        failures = task.get("failed_verifies", 0)  # FAIL verdicts since the last PASS
        failures = failures + 1 if result == "FAIL" else 0 if result == "PASS" else failures
        task["failed_verifies"] = failures
        task["fix_limit"] = limit   # read by the edit gate, which must not load the config on every edit
        limit = state.fix_limit(task)
        if task["state"] == "planned":
            state.move(task, "building", "rt verify")
        if result == "PASS":
            state.move(task, "verified", "rt verify: PASS")
        elif task["state"] == "verified":
            state.move(task, "building", f"rt verify: {result}")
        summary = _summary(result, compared, outside, undone, gone)
        task["verify"] = {"verdict": result, "summary": summary,
                          "fingerprint": fingerprint(now)}
        record = {
            "verdict": result, "summary": summary, "outside": outside, "undone": undone,
            "changed": [f"{c.status[0].upper()} {c.path}" for c in found],
            "by_checks": by_checks,
            "checks": [{"name": c.check.name, "kind": c.check.kind, "required": c.check.required,
                        "status": "failed" if c.new else "could_not_run" if c.run.status == "could_not_run" else "passed",
                        "new": len(c.new), "flaky": len(c.flaky), "reason": c.run.reason}
                       for c in compared],
            "flaky": [d._asdict() for c in compared for d in c.flaky],
            "not_run": [{"name": c.name, "kind": c.kind, "reason": "optional, not asked"}
                        for c in every if c.name not in {x.name for x in checks}]
                       + [{"name": n, "kind": None, "reason": GONE} for n in gone],
            "missing_kinds": [k for k in ("typecheck", "lint", "test") if not any(c.kind == k for c in every)],
        }
        store.write_json(f"{base}/verify.json", record)
        text = without_root(ctx, _verify_md(task, record, compared, new, limit, failures))
        store.write_text(f"{base}/verify.md", text + "\n")
        state.save_task(store, task)
    seen = {p: now[p][0] if p in now else None for p, _ in changes(before, now)}
    _record_run(ctx, task, "verify", result, compared, seen, outside=outside, undone=undone)
    data = record | {"task": task["id"], "new": [d._asdict() for d in new], "failed_verifies": failures,
                     "fix_attempt_limit": limit, "report": f".rt/{base}/verify.md"}
    return Result(text, data, VERDICT_EXIT[result])


def _verify_md(task: dict, record: dict, compared: list[Compared], new: list[Diagnostic], limit: int,
               failures: int) -> str:
    """The report: failed and blind checks one per line, the rest on a line each kind, then what is new.
    Neither the task's text nor its id: the session has both."""
    base = f".rt/{task_dir(task)}"
    lines = [f"# verify: {record['verdict']}", "", "## checks"]
    lines += [_check_line(c, f"{base}/verify/{c.check.name}.log") for c in compared
              if c.new or c.run.status in ("could_not_run", "partial") or c.ran.cut]
    passed = [c for c in compared if not c.new and c.run.status not in ("could_not_run", "partial") and not c.ran.cut]
    lines += [_passed_line(passed)] if passed else []
    lines += [_flaky_line(c, f"{base}/verify/{c.check.name}.log") for c in compared if c.flaky]
    skipped = [f"{n['name']} (optional: `rt verify --with {n['name']}`)" if n["kind"] else f"{n['name']} ({n['reason']})"
               for n in record["not_run"]]
    if record["missing_kinds"]:
        skipped.append(f"no {', '.join(record['missing_kinds'])} check configured (see `rt checks`)")
    lines += ["- skipped: " + "; ".join(skipped)] if skipped else []
    planned = task.get("scope") is not None and not (record["outside"] or record["undone"])
    if planned:
        lines.append(f"- scope: as planned ({len(record['changed'])} file(s) changed)")
    if new:
        groups = merged(new)
        alike = f", {len(new) - len(groups)} more at the same place by another check" if len(groups) < len(new) else ""
        lines += ["", f"## new diagnostics ({len(groups)}{alike})"]
        entries = folded(groups)
        explained = [d for d, _, _ in entries[:SHOWN] if d.detail][:DETAILS_SHOWN]
        for d, checks, also in entries[:SHOWN]:
            lines.append(f"- {format_folded(d, checks, also)}")
            lines += [f"    | {ln}" for ln in explaining(d.message, d.detail)] if d in explained else []
        if len(entries) > SHOWN:
            logs = sorted({f"{base}/verify/{d.check}.log" for d, _, _ in entries[SHOWN:]})
            lines.append(f"- ... and {sum(1 + len(e[2]) for e in entries[SHOWN:])} more, in {', '.join(logs)}")
    changed = [d for c in compared for d in c.changed]
    if changed:
        lines += ["", "## old failures"]
        lines += [f"- {format_changed(d)}" for d in changed[:SHOWN]]
    if not planned:
        lines += ["", "## scope"]
        lines += ["- no plan: scope not checked"] if task.get("scope") is None else []
        lines += [f"- changed outside the plan: {shown(p)} (approve it with `rt scope add {command_arg(p)}`, or undo it)"
                  for p in record["outside"]]
        lines += [f"- planned but not done: {shown(p)} (do it, or drop it with `rt scope remove {command_arg(p)}`)"
                  for p in record["undone"]]
    if record["by_checks"]:
        lines += ["", "## made by the checks themselves (theirs, not the task's: not counted)"]
        lines += [f"- {MARK[m['status']]} {shown(m['path'])} ({m['check']})" for m in record["by_checks"]]
    if record["verdict"] == "FAIL":
        lines += ["", "## fix attempts"]
        if failures >= limit:
            lines.append(f"- {failures} failed verify runs in a row (limit {limit}): edits are blocked now. Tell the "
                         f"user what fails and what you tried; more attempts are their decision (`rt allow-fix`, "
                         f"which they approve), else `rt block \"{record['summary']}\"`")
        else:
            lines.append(f"- failed verify {failures} of {limit}: fix the above and run `rt verify` again")
    return "\n".join(lines)


# ---------------------------------------------------------------- claims

def args_claim(p) -> None:
    p.add_argument("text", help="what you assert that rt did not measure")


def cmd_claim(ctx, args) -> Result:
    text = " ".join(state.checked_text("claim", args.text).split())
    if not text:
        raise UsageError("the claim is empty; say what you assert: rt claim \"the page renders in Safari\"")
    store = ctx.store
    with store.locked():
        task = state.active_task(store)
        task["claims"].append({"text": text})
        state.save_task(store, task)
    return Result(f"claim {len(task['claims'])} recorded as unverified: {text}", {"claims": task["claims"]})
