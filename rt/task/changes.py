"""What the task changed: `rt delta` (files, line counts, scope) and `rt review` (diffs), with no commit needed.

Both measure against the task's snapshot, so changes that were uncommitted before the task don't count.
"""
from __future__ import annotations

from rt import state
from rt.core import ExitCode, Result, shown, to_rel
from rt.snapshot import Change, changes, count_lines, current_bytes, kind_change, original, scan, text_lines

MARK = {"modified": "M", "added": "A", "deleted": "D"}


def task_changes(ctx, task: dict, before: dict | None = None, now: dict | None = None) -> list[Change]:
    """Every file the task changed since its snapshot, with line counts and whether the scope allows it;
    files the task's check runs made and left so (`state.made_by_checks`) are theirs, not counted.

    A caller that already holds the snapshot (`before`) or a scan of the tree (`now`) passes it, so a
    20,000-file tree is not scanned twice in one command."""
    before = state.load_snapshot(ctx.store, task) if before is None else before
    now = scan(ctx.repo, ctx.store).files if now is None else now
    scope = state.scope_paths(task)
    made = state.made_by_checks(ctx.store, task, now)
    out = []
    for path, status in changes(before, now):
        if path in made:
            continue
        old = original_lines(ctx, task, path, before) if status != "added" else []
        new = text_lines(current_bytes(ctx.repo, path)) if status != "deleted" else []
        added, removed = count_lines(old, new)
        note = kind_change(before.get(path), now.get(path))
        out.append(Change(path, status, added, removed, None if scope is None else path in scope, note))
    return out


def original_lines(ctx, task: dict, path: str, before: dict) -> list[str] | None:
    """A file's lines before the task: from the snapshot, else the copy `rt plan` saved."""
    snap = before[path][0] if path in before else None
    digest = snap or task["originals"].get(path)
    return text_lines(original(ctx.repo, ctx.store, digest)) if digest else None


def format_change(c: Change) -> str:
    """A file's line: its counts, and what became of it besides its bytes (`note`), which stands for the counts
    where lines are not counted (a binary file made executable changed nothing else a line could say)."""
    counts = f"+{c.added} -{c.removed}" if c.added is not None else c.note or "binary or not saved"
    note = f"  {c.note}" if c.note and c.added is not None else ""
    flag = "  OUTSIDE SCOPE" if c.in_scope is False else ""
    return f"{MARK[c.status]} {shown(c.path)}  {counts}{note}{flag}"


def args_delta(p) -> None:
    pass


def cmd_delta(ctx, args) -> Result:
    task = state.active_task(ctx.store)
    tree = scan(ctx.repo, ctx.store)
    if tree.unchanged and tree.fingerprint == state.snapshot_fingerprint(ctx.store, task):
        return _delta_result(task, [], [])   # the tree is the snapshot's: nothing to decode or compare
    before, now = state.load_snapshot(ctx.store, task), tree.files
    found = task_changes(ctx, task, before, now)
    made = state.made_by_checks(ctx.store, task, now)
    return _delta_result(task, found, [(p, s, made[p]) for p, s in changes(before, now) if p in made])


def _delta_result(task: dict, found: list[Change], theirs: list[tuple[str, str, str]]) -> Result:
    outside = [c.path for c in found if c.in_scope is False]
    head = f"{len(found)} file(s) changed since task {task['id']} started"
    if task.get("scope") is None and found:
        head += " (no plan yet: scope not checked)"
    if outside:
        head += f"; {len(outside)} outside the planned scope"
    lines = [head] + [format_change(c) for c in found]
    if theirs:
        lines.append("made by the checks themselves (not counted): "
                     + ", ".join(f"{MARK[s]} {shown(p)} ({check})" for p, s, check in theirs))
    data = {"task": task["id"], "changes": [c._asdict() for c in found], "outside_scope": outside,
            "by_checks": [{"path": p, "status": s, "check": check} for p, s, check in theirs]}
    return Result("\n".join(lines), data, ExitCode.FINDING if outside else ExitCode.OK)


def args_review(p) -> None:
    p.add_argument("files", nargs="*", metavar="F", help="only these files")
    p.add_argument("--stat", action="store_true", help="a line per file with its +/- counts")


def cmd_review(ctx, args) -> Result:
    task = state.active_task(ctx.store)
    before = state.load_snapshot(ctx.store, task)
    found = task_changes(ctx, task, before)
    if args.files:   # a folder names the files under it, the repository's root every one
        wanted = {to_rel(ctx.repo, f) for f in args.files}
        found = [c for c in found if "." in wanted or any(c.path == w or c.path.startswith(w + "/") for w in wanted)]
    if args.stat:
        lines = [format_change(c) for c in found]
        total_add = sum(c.added or 0 for c in found)
        total_del = sum(c.removed or 0 for c in found)
        lines.append(f"{len(found)} file(s), +{total_add} -{total_del}")
        return Result("\n".join(lines), {"changes": [c._asdict() for c in found]})
    chunks = []
    for c in found:
        old = [] if c.status == "added" else original_lines(ctx, task, c.path, before)
        new = [] if c.status == "deleted" else text_lines(current_bytes(ctx.repo, c.path))
        a = "/dev/null" if c.status == "added" else shown(f"a/{c.path}")   # quoted as git quotes a name
        b = "/dev/null" if c.status == "deleted" else shown(f"b/{c.path}")   # with a line break, a tab ...
        head = f"--- {a}\n+++ {b}\n" + (f"({c.note})\n" if c.note else "")
        if old is None or new is None:   # the note, as in delta, stands for the lines where none are counted
            chunks.append(head if c.note else f"{head}(binary, large, or original not saved: no text diff)\n")
            continue
        import difflib   # here: the post-edit hook imports this module and diffs nothing
        diff = list(_terminated(difflib.unified_diff(old, new, a, b)))[2:]   # its own head is `head` but the note
        chunks.append(head + "".join(diff))   # a mode's change alone has no hunk
    text = "".join(chunks) if chunks else "no changes since the task started" + (" in the files named" if args.files else "")
    return Result(text.rstrip("\n"), {"diff": "".join(chunks), "files": [c.path for c in found]})


def _terminated(lines):
    """Diff lines with a newline each, marking a last line that had none, as `diff -u` does."""
    for line in lines:
        if line.endswith("\n"):
            yield line
        else:
            yield line + "\n\\ No newline at end of file\n"
