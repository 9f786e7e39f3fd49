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


def signature(repo: Repo, targets: list[str], *, probe: Probe | None = None,
              racy_after: int | None = None) -> bytes | None:
    """What changes whenever the tree's content may have, without reading every file: the tracked files
    whose stat data no longer matches git's index (`git diff-files`), and the stat data of those files,
    of git's index file and of `targets` (repository paths: the untracked indexed files, and every folder
    up from the indexed files, as a file added or removed changes its folder's time). Kept whole, not
    hashed: comparing bytes needs no hashlib.

    None outside git, and, given `racy_after` (ns), when any of it changed after that: a scan started
    then may have read a file before its last change, so this signature must not vouch for the scan.
    """
    if not repo.is_git:
        return None
    probe = probe or Probe(repo)
    gitdir = repo.root / ".git"
    if gitdir.is_file():   # a linked worktree: `.git` names the real folder
        line = gitdir.read_text(encoding="utf-8", errors="replace").strip()
        gitdir = (repo.root / line.removeprefix("gitdir:").strip()).resolve()
    root = str(repo.root) + os.sep
    known, newest = _stat_data([str(gitdir / "index")] + [root + t for t in targets])
    out = probe.output()   # git statted the tracked files while this process did the rest
    if out is None:
        return None
    changed, newest_changed = _stat_data([root + os.fsdecode(p) for p in out.split(b"\x00") if p])
    if racy_after is not None and max(newest, newest_changed) >= racy_after:
        return None
    return out + b"\n" + known + changed


def _stat_data(paths: list[str]) -> tuple[bytes, int]:
    """Size, mtime and inode of each path (-1s when it is gone), packed, and the newest mtime among them."""
    data = array("q")
    lstat = os.lstat
    for p in paths:
        try:
            st = lstat(p)
        except OSError:
            data.extend((-1, -1, -1))
            continue
        data.extend((st.st_size, st.st_mtime_ns, st.st_ino))
    return data.tobytes(), max(data[1::3], default=0)
