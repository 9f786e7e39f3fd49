"""Which files the repository's recent commits changed together, and the words their messages used, from
git's log.

A task's best-ranked files lead to the files that changed with them before (`rank.changed_with`): a
feature's component and the registry it is listed in, a handler and its options, a string's code and the
locale file. The commits whose messages read most like the task lend their files a share too
(`rank.like_commits`): the place a kind of change was made before. The log is read once per HEAD and
kept in `.rt/history.json`; when HEAD moves, only the commits not kept are read (`git rev-list` names the
window, cheaply). Without git, or in a repository without history, there is none. A vague task's pack shows the
files of the work going on where each was changed last (`changed_lines`), asked of git each time.
"""
from __future__ import annotations

import os
import re

from rt.core import StoreError, git, git_unquoted
from rt.index.terms import text_counts

COMMITS = 500
"""The most recent commits read (merges and the first commit left out, which add files made elsewhere or
every file at once): enough for a file's usual companions, little to read."""
WIDEST = 30
"""A commit changing more files than this says nothing of which belong together (a rename sweep, a
formatter's run, a translation sync): left out."""
FILE = "history.json"
VERSION = 3
MESSAGE = 2000
"""The characters of a commit's message whose words are kept: its subject and the start of its body."""


class History:
    """Recent commits as lists of paths, newest first, the ranking keys of each one's message (`words`, joined
    by spaces: a third smaller kept), and the commits changing each path."""

    def __init__(self, commits: list[list[str]], words: list[str] | None = None):
        self.commits = commits
        self.words = words if words is not None else ["" for _ in commits]
        self.of: dict[str, list[int]] = {}
        for i, paths in enumerate(commits):
            for p in paths:
                self.of.setdefault(p, []).append(i)

    def partners(self, path: str) -> dict[str, tuple[int, int]]:
        """The files changed with `path`: each one's (commits changing both, commits changing `path`)."""
        mine = self.of.get(path, ())
        counts: dict[str, int] = {}
        for i in mine:
            for p in self.commits[i]:
                if p != path:
                    counts[p] = counts.get(p, 0) + 1
        return {p: (n, len(mine)) for p, n in counts.items()}


def _files(root, commits: list[str]) -> dict[str, list] | None:
    """Each commit's [changed files, its message's ranking keys joined by spaces], the files as `git log` names
    them (a rename by its new name); no files for a commit wider than WIDEST. None when git fails."""
    out = git(root, "-c", "core.quotePath=false", "log", "--no-walk=unsorted", "--stdin", "--name-only", "-z",
              "--format=format:%x01%H%x02%s%n%n%b%x03", input="\n".join(commits).encode() + b"\n")
    if out is None:
        return None
    files = {}
    for block in out.decode("utf-8", "surrogateescape").split("\x01")[1:]:
        commit, _, rest = block.partition("\x02")
        message, _, names = rest.partition("\x03")
        paths = [p for p in names.lstrip("\n").split("\0") if p]
        files[commit] = [paths if len(paths) <= WIDEST else [], " ".join(sorted(text_counts(message[:MESSAGE])))]
    return files


WHOLE = 1 << 30
"""The end of a range covering a file whatever its length (its reader cuts it)."""
CHANGED_COMMITS = 30
"""The last commits `changed_lines` looks through for a file's newest change."""
_HUNK = re.compile(rb"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _new_path(name: bytes) -> str | None:
    """The path of a diff's `+++ ` line (`b/PATH`, quoted as git quotes it), a tab after it when the path holds a
    space (GNU patch's end of a name: a tab of the path's own is escaped); None for `/dev/null`."""
    path = git_unquoted(os.fsdecode(name.removesuffix(b"\t")))
    return path[2:] if path.startswith("b/") else None


def changed_lines(repo, paths: list[str], uncommitted: set[str]) -> dict[str, list[tuple[int, int]]]:
    """Where each of `paths` was changed last, as line ranges of the file as it is now (1-based, inclusive; a
    removal as the lines either side of it): for those in `uncommitted`, against HEAD; for the others, by the
    newest of the last CHANGED_COMMITS commits changing them (no later commit changed them, so its lines are
    the file's now). What a vague task's pack shows of the work going on. None found: no entry."""
    out: dict[str, list[tuple[int, int]]] = {}
    if not repo.is_git or not paths:
        return out
    now = [p for p in paths if p in uncommitted]
    before = [p for p in paths if p not in uncommitted]
    if now:
        diff = git(repo.root, "-c", "core.quotePath=false", "diff", "-U0", "--no-color", "--no-ext-diff", "HEAD", "--",
                   *_literal(now))
        _ranges(diff, out)
        for p in now:   # a new file git does not track yet: all of it is the change, from its start
            out.setdefault(p, [(1, WHOLE)])
    if before:
        log = git(repo.root, "-c", "core.quotePath=false", "log", "--no-merges", f"-n{CHANGED_COMMITS}", "-p", "-U0",
                  "--no-color", "--no-ext-diff", "--format=%x01", "--", *_literal(before))
        for commit in (log or b"").split(b"\x01")[1:]:
            got: dict[str, list[tuple[int, int]]] = {}
            _ranges(commit, got)
            for path, spans in got.items():
                out.setdefault(path, spans)   # the newest commit changing the file is the first
    return {p: out[p] for p in paths if out.get(p)}


def _literal(paths: list[str]) -> list[str]:
    """Pathspecs naming each of `paths` as it is: not a pattern (`pages/[id].tsx`), nor magic (`:(top)x`)."""
    return [":(literal)" + p for p in paths]


def _ranges(diff: bytes | None, out: dict[str, list[tuple[int, int]]]) -> None:
    """Each file's new-side line ranges in a `-U0` diff: a file's header (`diff --git`, then `+++ b/PATH`, or
    `/dev/null` for a file removed), then its hunks."""
    path, header = None, False
    for line in (diff or b"").split(b"\n"):
        if line.startswith(b"diff --git "):
            path, header = None, True
        elif header and line.startswith(b"+++ "):
            header = False
            path = _new_path(line[4:])
        elif path is not None and line.startswith(b"@@"):
            m = _HUNK.match(line)
            if m:
                start, count = int(m.group(1)), int(m.group(2) or 1)
                out.setdefault(path, []).append((start, start + count - 1) if count else (max(1, start), start + 1))


def load(repo, store) -> History | None:
    """The recent history at HEAD: kept, or brought up to date, reading only the commits not kept; None
    outside git or without commits. The same as a first read at that HEAD, whatever was kept before."""
    return _keep(store, _gather(repo, store))


class Reading:
    """`load` under way: git's part (`_gather`) in a thread of its own, started before other work (the
    cold `/runtask` hook's scan and ranking), so the log is read on another core meanwhile; `result()`
    is `load`'s answer, kept in `.rt/` only then (nothing is written there while the scan lists the tree)."""

    def __init__(self, repo, store):
        import signal      # what the thread's git runs import (`core.run`), imported in this thread: that one
        import subprocess  # then imports nothing, so a process pool forked meanwhile (`index.parse_all`)
        import threading   # finds no import of its half done
        assert signal and subprocess
        self._store, self._got, self._error = store, None, None
        self._thread = threading.Thread(target=self._gather, args=(repo, store), daemon=True)
        self._thread.start()

    def _gather(self, repo, store) -> None:
        try:
            self._got = _gather(repo, store)
        except BaseException as e:   # raised where `load` raises it: from `result()`
            self._error = e

    def result(self) -> History | None:
        self._thread.join()
        if self._error is not None:
            raise self._error
        return _keep(self._store, self._got)


def _gather(repo, store) -> History | tuple[str, list] | None:
    """What git says of the history at HEAD: the History kept at HEAD, or (HEAD, its window's commits
    with their files) to keep; None outside git or without commits. Reads `.rt/`, never writes it."""
    if not repo.is_git:
        return None
    head = head_commit(repo.top)
    if head is None:
        asked = git(repo.root, "rev-parse", "-q", "--verify", "HEAD^{commit}")
        if asked is None:
            return None
        head = asked.decode().strip()
    last, key = _last[0], (head, _stamp(store))
    if last is not None and last[0] == key and key[1] is not None:
        return last[1]
    kept = _read(store)
    if kept is not None and kept["head"] == head:
        got = _history(kept["commits"])
        _last[0] = (key, got)
        return got
    window = git(repo.root, "rev-list", "--min-parents=1", "--max-parents=1", f"-n{COMMITS}", head)
    if window is None:
        return None
    commits = window.decode().split()
    known = {c: [paths, words] for c, paths, words in kept["commits"]} if kept is not None else {}
    missing = [c for c in commits if c not in known]
    if missing:
        read = _files(repo.root, missing)
        if read is None:
            return None
        known.update(read)
    return head, [[c, *known.get(c, [[], ""])] for c in commits]


_last: list = [None]
"""((HEAD, the kept file's stamp), its History) last read in this process: a hook server's look-ups read
`.rt/history.json` again only when HEAD or the file changed (a History is only read)."""


def _stamp(store) -> tuple | None:
    """The kept file's folder, inode, size and time of change; None when there is none."""
    try:
        st = os.stat(os.path.join(store.top, FILE))
    except OSError:
        return None
    return store.top, st.st_ino, st.st_size, st.st_mtime_ns


_SHA = re.compile(r"[0-9a-f]{40}(?:[0-9a-f]{24})?")


def head_commit(top: str) -> str | None:
    """HEAD's commit as the files of `.git` say it plainly (a branch's loose ref or its `packed-refs` line, or
    a detached commit), without starting git: a git process was most of a served `rt pack`'s time in its
    server. None where they do not (no commit yet, a reftable, a symbolic ref to another): then git is asked."""
    try:
        gitdir = os.path.join(top, ".git")
        if os.path.isfile(gitdir):   # a worktree's or submodule's `.git` file names its git folder
            line = _said(gitdir)
            if not line.startswith("gitdir: "):
                return None
            gitdir = os.path.join(top, line[8:])
        head = _said(os.path.join(gitdir, "HEAD"))
        if _SHA.fullmatch(head):
            return head
        if not head.startswith("ref: refs/heads/"):
            return None
        ref, common = head[5:], gitdir
        if os.path.isfile(os.path.join(gitdir, "commondir")):   # a worktree: its branches are the main folder's
            common = os.path.join(gitdir, _said(os.path.join(gitdir, "commondir")))
        try:
            sha = _said(os.path.join(common, ref))   # a loose ref wins over a packed one
        except FileNotFoundError:
            sha = None
            with open(os.path.join(common, "packed-refs"), encoding="utf-8") as f:
                for line in f:
                    if line.endswith(" " + ref + "\n"):
                        sha = line.split(" ", 1)[0]
                        break
    except (OSError, UnicodeDecodeError):
        return None
    return sha if sha and _SHA.fullmatch(sha) else None


def _said(path: str) -> str:
    """What one of git's small files says, its line end left out."""
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


def _keep(store, got: History | tuple[str, list] | None) -> History | None:
    """`_gather`'s answer as a History, a new one kept in `.rt/history.json`."""
    if not isinstance(got, tuple):
        return got
    head, listed = got
    try:
        store.ensure()
        store.write_json(FILE, {"version": VERSION, "head": head, "commits": listed}, durable=False)
    except OSError:
        pass   # a cache: where `.rt/` cannot be written (a full disk), the next call reads the log again
    got = _history(listed)
    _last[0] = ((head, _stamp(store)), got)
    return got


def _history(listed: list[list]) -> History:
    """The History of [commit, paths, message keys] lists, newest first; a commit left out as too wide has no
    paths."""
    kept = [(paths, words) for _, paths, words in listed if paths]
    return History([paths for paths, _ in kept], [words for _, words in kept])


def _read(store) -> dict | None:
    """The kept history, or None where there is none, it is of another version or it is damaged (read again)."""
    try:
        data = store.read_json(FILE)
    except StoreError:
        return None
    if not data or data.get("version") != VERSION or not isinstance(data.get("head"), str) \
            or not isinstance(data.get("commits"), list) \
            or not all(isinstance(c, list) and len(c) == 3 for c in data["commits"]):
        return None
    return data
