"""Where an old file's lines are now: renames and moved lines, from a unified diff (`git diff -M`) or
from two versions of a file, so the diff of diagnostics can match an old finding to its new place.
"""
from __future__ import annotations

import re

from rt.core import git_unquoted


class FileMap:
    """One old file: its new path (None when deleted) and its changed blocks as (old start, old count,
    new start, new count), sorted; lines outside the blocks moved by the blocks above them. (Plain classes
    here, not dataclasses: the post-edit hook imports this module, and `dataclasses` imports `inspect`.)"""

    __slots__ = ("new_path", "hunks")

    def __init__(self, new_path: str | None, hunks: list[tuple[int, int, int, int]] = ()):
        self.new_path, self.hunks = new_path, hunks

    def line(self, old: int) -> tuple[int, bool]:
        """(new line, whether the old line itself was changed); a changed line maps into the block that
        replaced it, as far in as it was in the old block (or to the line after a deletion)."""
        shift = 0
        for o_start, o_count, n_start, n_count in self.hunks:
            end = o_start + o_count - 1 if o_count else o_start
            if o_count and o_start <= old <= end:
                return (n_start + min(old - o_start, n_count - 1) if n_count else n_start + 1), True
            if end < old:
                shift += n_count - o_count
            else:
                break
        return old + shift, False


class LineMap:
    """Old path -> FileMap for every file a change touched; untouched files keep path and lines."""

    __slots__ = ("files",)

    def __init__(self, files: dict[str, FileMap]):
        self.files = files

    def place(self, path: str, line: int) -> tuple[str, int, bool]:
        """(new path, new line, changed) of an old finding's place; changed is True when its line was
        edited or its file deleted."""
        fm = self.files.get(path)
        if fm is None:
            return path, line, False
        if fm.new_path is None:
            return path, line, True
        if not line:
            return fm.new_path, 0, False
        new, changed = fm.line(line)
        return fm.new_path, new, changed


_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def from_patch(patch: str) -> LineMap:
    """The map of a unified diff as `git diff -M` writes it (any context size; `diff -u` too): renames,
    deletions, and the exact changed blocks read from the hunks' lines."""
    files: dict[str, FileMap] = {}
    old: str | None = None
    new: str | None = None
    blocks: list[tuple[int, int, int, int]] = []
    o = n = 0                 # next old and new line inside the current hunk
    run: list[int] | None = None     # the open block [o_start, o_count, n_start, n_count]

    def end_run() -> None:
        nonlocal run
        if run is not None:
            blocks.append((run[0] if run[1] else run[0] - 1, run[1], run[2] if run[3] else run[2] - 1, run[3]))
            run = None

    def close() -> None:
        end_run()
        if old is not None and old != "/dev/null":
            files[old] = FileMap(None if new == "/dev/null" else new, sorted(blocks))

    # the lines the hunk's header says are still to come: a removed `-- x` is `--- x`, a line, not a header
    left_old = left_new = 0
    for ln in patch.replace("\r\n", "\n").split("\n"):
        h = _HUNK.match(ln)
        if h and old is not None:
            end_run()
            o, n = int(h[1]), int(h[3])
            left_old, left_new = int(h[2] or 1), int(h[4] or 1)
            if h[2] == "0":
                o += 1            # `-5,0`: nothing removed, the lines go after old line 5
            if h[4] == "0":
                n += 1
            continue
        if (left_old or left_new) and ln[:1] in (" ", "-", "+", "\\", ""):
            if ln.startswith("-"):
                run = run or [o, 0, n, 0]
                run[1] += 1
                o, left_old = o + 1, left_old - 1
            elif ln.startswith("+"):
                run = run or [o, 0, n, 0]
                run[3] += 1
                n, left_new = n + 1, left_new - 1
            elif not ln.startswith("\\"):
                end_run()
                o, n, left_old, left_new = o + 1, n + 1, left_old - 1, left_new - 1
            continue
        if ln.startswith("diff --git "):
            close()
            m = re.match(r'^diff --git ("a/(?:[^"\\]|\\.)*"|a/.+?) ("b/(?:[^"\\]|\\.)*"|b/.+)$', ln)
            old, new, blocks = (git_unquoted(m[1])[2:], git_unquoted(m[2])[2:], []) if m else (None, None, [])
        elif ln.startswith("rename from "):
            old = git_unquoted(ln.removeprefix("rename from "))
        elif ln.startswith("rename to "):
            new = git_unquoted(ln.removeprefix("rename to "))
        elif ln.startswith("--- "):
            path = _path(ln[4:])
            if old is not None and blocks and not ln.startswith(("--- a/", "--- /dev/null")):
                close()             # plain `diff -u` of several files: no `diff --git` line between them
                blocks = []
            old = path if path != "/dev/null" or old is None else "/dev/null"
        elif ln.startswith("+++ "):
            new = _path(ln[4:])
    close()
    return LineMap(files)


def _path(text: str) -> str:
    """The path of a `---` or `+++` line: a tab ends it (git's after a name with a space, `diff -u`'s before its
    time)."""
    path = git_unquoted(text.split("\t")[0].strip())
    return path if path == "/dev/null" else re.sub(r"^[ab]/", "", path)


def from_lines(old_lines: list[str], new_lines: list[str]) -> list[tuple[int, int, int, int]]:
    """The changed blocks between two versions of a file, in the form a unified diff's hunks give
    without context lines (git diff -U0)."""
    import difflib   # here: the post-edit hook maps no lines
    blocks = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        o_start = i1 + 1 if i2 > i1 else i1
        n_start = j1 + 1 if j2 > j1 else j1
        blocks.append((o_start, i2 - i1, n_start, j2 - j1))
    return blocks
