"""Which files the repository's recent commits changed together, from git's log.

A task's best-ranked files lead to the files that changed with them before (`rank.changed_with`): a
feature's component and the registry it is listed in, a handler and its options, a string's code and the
locale file. The log is read once per HEAD and kept in `.rt/history.json`; when HEAD moves on, only the
commits since the kept one are read. Without git, or in a repository without history, there is none.
"""
from __future__ import annotations

from rt.core import StoreError, git

COMMITS = 500
"""The most recent commits read: enough for a file's usual companions, little to read."""
WIDEST = 30
"""A commit changing more files than this says nothing of which belong together (a rename sweep, a
formatter's run, a translation sync): left out."""
FILE = "history.json"
VERSION = 1


class History:
    """Recent commits as lists of paths, newest first, and the commits changing each path."""

    def __init__(self, commits: list[list[str]]):
        self.commits = commits
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


def _log(root, *revs: str) -> list[list[str]] | None:
    """The files of each commit `git log revs` lists, newest first; None when git fails. Left out: merges, a
    first commit (it adds every file at once) and commits wider than WIDEST."""
    out = git(root, "-c", "core.quotePath=false", "log", "--min-parents=1", "--max-parents=1", "--name-only", "-z",
              "--format=format:%x01%H", f"-n{COMMITS}", *revs, "--")
    if out is None:
        return None
    commits = []
    for block in out.decode("utf-8", "surrogateescape").split("\x01")[1:]:
        _, _, names = block.partition("\n")
        paths = [p for p in names.split("\0") if p]
        if 0 < len(paths) <= WIDEST:
            commits.append(paths)
    return commits


def load(repo, store) -> History | None:
    """The recent history at HEAD: kept, brought up to date, or read; None outside git or without commits."""
    if not repo.is_git:
        return None
    head = git(repo.root, "rev-parse", "-q", "--verify", "HEAD^{commit}")
    if head is None:
        return None
    head = head.decode().strip()
    kept = _read(store)
    if kept is not None and kept["head"] == head:
        return History(kept["commits"])
    commits = None
    if kept is not None and git(repo.root, "merge-base", "--is-ancestor", kept["head"], head) is not None:
        newer = _log(repo.root, f"{kept['head']}..{head}")
        if newer is not None:
            commits = (newer + kept["commits"])[:COMMITS]
    if commits is None:
        commits = _log(repo.root, head)
    if commits is None:
        return None
    store.ensure()
    store.write_json(FILE, {"version": VERSION, "head": head, "commits": commits}, durable=False)
    return History(commits)


def _read(store) -> dict | None:
    """The kept history, or None where there is none, it is of another version or it is damaged (read again)."""
    try:
        data = store.read_json(FILE)
    except StoreError:
        return None
    if not data or data.get("version") != VERSION or not isinstance(data.get("head"), str) \
            or not isinstance(data.get("commits"), list):
        return None
    return data
