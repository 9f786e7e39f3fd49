"""Is the index current? The quick check that spares a warm look-up listing and hashing the tree.

In git, `git diff-files` names the tracked files whose stat data no longer matches git's index, and the
stat data of the folders shows files added or removed. git has to stat every tracked file for that, the
larger part of a warm look-up, so the command line starts it first (`Probe`): git stats the tree on one
core while Python imports the handler on another, and `signature()` collects the answer.
"""
from __future__ import annotations

import os
from array import array

from rt.core import Repo, spawn


class Probe:
    """A `git diff-files` under way for one repository (nothing outside git)."""

    def __init__(self, repo: Repo):
        self.repo = repo
        self.proc = None
        if repo.is_git:
            try:
                self.proc = spawn(["git", "diff-files", "--name-only", "-z"], repo.root)
            except OSError:
                pass   # no git: every look-up falls back to the full scan

    def output(self) -> bytes | None:
        """What git printed, or None when it failed."""
        if self.proc is None:
            return None
        out, _ = self.proc.communicate()
        return out if self.proc.returncode == 0 else None

    def discard(self) -> None:
        """A probe nobody collected (the command failed first): end it and reap the process."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.communicate()


GONE = (-1, -1, -1)
RACY = (-2, -2, -2)
"""Recorded instead of stat data that changed too recently to vouch for (a second change within the same
timestamp tick would keep it): never equal to a real stat, so the next check reads that entry again."""


class Signature:
    """What the quick check compares: git's list of tracked files whose stat data no longer matches its
    index (`git diff-files`, NUL-separated), the stat data (size, mtime, inode) of git's index file and of
    each target, and the stat data of each file git listed. Equal signatures: nothing changed between."""

    __slots__ = ("listed", "known", "listed_stats")

    def __init__(self, listed: bytes, known: array, listed_stats: array):
        self.listed, self.known, self.listed_stats = listed, known, listed_stats

    def to_bytes(self) -> bytes:
        return b"%d\n" % len(self.listed) + self.listed + self.known.tobytes() + self.listed_stats.tobytes()

    @classmethod
    def from_bytes(cls, data: bytes, targets: int) -> Signature | None:
        head, _, rest = data.partition(b"\n")
        if not head.isdigit():
            return None
        n = int(head)
        known, listed_stats = array("q"), array("q")
        k = (1 + targets) * 3 * known.itemsize
        try:
            known.frombytes(rest[n:n + k])
            listed_stats.frombytes(rest[n + k:])
        except ValueError:
            return None
        sig = cls(rest[:n], known, listed_stats)
        return sig if len(known) == (1 + targets) * 3 and len(listed_stats) == 3 * len(sig.paths()) else None

    def __eq__(self, other) -> bool:
        return isinstance(other, Signature) and self.to_bytes() == other.to_bytes()

    __hash__ = None

    def paths(self) -> list[str]:
        """The tracked files git listed, as repository paths."""
        return [os.fsdecode(p) for p in self.listed.split(b"\x00") if p]

    def index_stat(self) -> tuple:
        return tuple(self.known[:3])

    def target_stat(self, i: int) -> tuple:
        return tuple(self.known[3 + 3 * i:6 + 3 * i])

    def changed_targets(self, old: Signature) -> list[int]:
        """The positions of the targets whose stat data differs from `old`'s (same targets): halves of the
        packed data compared whole, so a few changes among tens of thousands cost a few comparisons."""
        a, b = memoryview(self.known)[3:], memoryview(old.known)[3:]
        out: list[int] = []

        def walk(lo: int, hi: int) -> None:
            if a[3 * lo:3 * hi] == b[3 * lo:3 * hi]:
                return
            if hi - lo == 1:
                out.append(lo)
                return
            mid = (lo + hi) // 2
            walk(lo, mid)
            walk(mid, hi)

        if len(a) == len(b) and len(a):
            walk(0, len(a) // 3)
        return out

    def listed_stat(self) -> dict[str, tuple]:
        s = self.listed_stats
        return {p: tuple(s[3 * i:3 * i + 3]) for i, p in enumerate(self.paths())}

    def retargeted(self, old: list[str], new: list[str], root: str) -> Signature:
        """This signature for another list of targets: the stat data of targets in both kept, the rest
        taken now (`root` ends with a separator)."""
        have = {t: self.target_stat(i) for i, t in enumerate(old)}
        known = array("q", self.index_stat())
        for t in new:
            known.extend(have[t] if t in have else _stat_data([root + t]))
        return Signature(self.listed, known, self.listed_stats)

    def settled(self, racy_after: int) -> Signature:
        """This signature with every stat changed at or after `racy_after` (ns) recorded as RACY."""
        def settle(stats: array) -> array:
            out = array("q", stats)
            for i in range(1, len(out), 3):
                if out[i] >= racy_after:
                    out[i - 1:i + 2] = array("q", RACY)
            return out
        return Signature(self.listed, settle(self.known), settle(self.listed_stats))


def signature(repo: Repo, targets: list[str], *, probe: Probe | None = None) -> Signature | None:
    """The tree's signature now, without reading any file: `targets` are repository paths (the untracked
    indexed files, and every folder up from the indexed files, as a file added or removed changes its
    folder's time). None outside git, or when git fails."""
    if not repo.is_git:
        return None
    probe = probe or Probe(repo)
    gitdir = repo.root / ".git"
    if gitdir.is_file():   # a linked worktree: `.git` names the real folder
        line = gitdir.read_text(encoding="utf-8", errors="replace").strip()
        gitdir = (repo.root / line.removeprefix("gitdir:").strip()).resolve()
    root = str(repo.root) + os.sep
    known = _stat_data([str(gitdir / "index")] + [root + t for t in targets])
    out = probe.output()   # git statted the tracked files while this process did the rest
    if out is None:
        return None
    return Signature(out, known, _stat_data([root + os.fsdecode(p) for p in out.split(b"\x00") if p]))


def _stat_data(paths: list[str]) -> array:
    """Size, mtime and inode of each path, GONE when it is not there, packed."""
    data = array("q")
    lstat = os.lstat
    for p in paths:
        try:
            st = lstat(p)
        except OSError:
            data.extend(GONE)
            continue
        data.extend((st.st_size, st.st_mtime_ns, st.st_ino))
    return data
