"""Whether anything in a repository's tree changed since a moment: Linux's inotify, for the processes that stay up.

A long-lived process (the hook server, `rt mcp`) checks the index's freshness before every look-up: git stats
every tracked file and rt every folder (`freshness.signature`), 10 ms on a 1,000-file tree and 130 ms on
babel's 27,000. Between two look-ups the tree has usually not changed at all, and the kernel can say so: a
watch on each folder the quick check stats reports every file made, written, moved or removed in it, and a
watch on git's folder every rewrite of git's index. No event since the index was last found current means
the signature would be the same, so it need not be taken. The snapshot's scan (`snapshot.WATCH`) asks the
same of every folder git lists files in: no event since git last named the modified and untracked files
means git would name the same ones.

The watches cover the quick check's folders (`Quick.dirs`: each folder up from an indexed file, and each in
the untracked, not ignored folders), so what the signature would see, this sees; never a folder it does not
(ignored and heavy folders stay unwatched, and a watch never follows a symlink). Where inotify is missing
(not Linux), fails, or would take more than an eighth of the user's watches, and on a file system another
machine can change (NFS, SMB, WSL's Windows drives, FUSE: `LOCAL`), there is no watcher and every look-up
takes the signature as before. Standard library only: `ctypes` reaches libc's three calls.
"""
from __future__ import annotations

import ctypes
import errno
import os
import struct
import sys

from rt.core import git_dir

_MODIFY, _ATTRIB, _CLOSE_WRITE = 0x2, 0x4, 0x8
_MOVED_FROM, _MOVED_TO, _CREATE, _DELETE = 0x40, 0x80, 0x100, 0x200
_DELETE_SELF, _MOVE_SELF = 0x400, 0x800
_Q_OVERFLOW, _IGNORED = 0x4000, 0x8000
_ONLYDIR, _DONT_FOLLOW = 0x01000000, 0x02000000
_NONBLOCK, _CLOEXEC = os.O_NONBLOCK, os.O_CLOEXEC
FOLDER_EVENTS = (_MODIFY | _ATTRIB | _CLOSE_WRITE | _MOVED_FROM | _MOVED_TO | _CREATE | _DELETE | _DELETE_SELF
                 | _MOVE_SELF)
"""What changes a folder's files: their bytes, their stat data, their coming and going, the folder's own end."""
GIT_EVENTS = _CLOSE_WRITE | _MOVED_TO | _CREATE | _DELETE | _MOVED_FROM
"""In git's folders only the files named count (git writes `index` as `index.lock`, then renames it)."""
_ISDIR = 0x40000000
_RESHAPE = _DELETE_SELF | _MOVE_SELF | _IGNORED | _Q_OVERFLOW
"""Events after which the set of folders to watch may differ (with _ISDIR: a folder made, removed, moved)."""
SHARE = 8
"""A watcher takes at most 1/SHARE of the user's inotify watches: a server has two (the index's, the scans'),
and editors and other tools need theirs."""
_HEAD = struct.Struct("iIII")


LOCAL = frozenset({"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "ramfs", "overlay", "zfs", "f2fs", "bcachefs",
                   "jfs", "reiserfs"})
"""File systems whose every change this kernel makes, so inotify reports it. Not NFS, SMB, 9p (WSL's Windows
drives), FUSE or virtiofs: there a change made by another machine or the host reaches no watch, and a
watcher would vouch for a tree that changed."""


def _fs_type(path: str, table: str = "/proc/self/mountinfo") -> str:
    """The type of the file system `path` is on, from the kernel's mount table ("" when unknown)."""
    best, kind = "", ""
    try:
        with open(table, encoding="utf-8", errors="replace") as f:
            for line in f:
                fields, _, rest = line.partition(" - ")
                parts = fields.split()
                if len(parts) < 5 or not rest:
                    continue
                point = parts[4].replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\")
                if (path == point or path.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
                    best, kind = point, rest.split()[0]
    except OSError:
        return ""
    return kind


def _limit() -> int:
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", encoding="ascii") as f:
            return int(f.read()) // SHARE
    except (OSError, ValueError):
        return 0


class Watcher:
    """Watches on a repository's folders and on git's files (`git`: folder -> the names in it that count);
    `changed()` says whether any reported a change since `settle()`, `reshaped` whether folders came or went
    since `follow()`. Its user `vouch()`es once what it keeps was checked after a `settle()` with these
    folders watched; `unchanged()` then says whether that still holds."""

    def __init__(self, top: str, git: dict[str, frozenset[bytes]]):
        self.top = top
        self._libc = ctypes.CDLL(None, use_errno=True)
        fd = self._libc.inotify_init1(_NONBLOCK | _CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self.fd = fd
        self.wds: dict[str, int] = {}     # folder (repository path, "." the root) -> watch
        self._folder: dict[int, str] = {}  # and back
        self.dirty = True                 # a change seen since the last settle(); so until the first
        self.vouched = False              # what the user keeps was current at the last settle()
        self.reshaped = False
        self.git_wds: dict[int, frozenset[bytes]] = {}
        self.git_missing = False          # a git folder not there yet (made later: a new watcher is needed)
        for folder, names in git.items():
            wd = self._add(folder, GIT_EVENTS)
            if wd >= 0:
                self.git_wds[wd] = names
            else:
                self.git_missing = True

    def _add(self, path: str, mask: int) -> int:
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(path), mask | _ONLYDIR | _DONT_FOLLOW)
        if wd < 0:
            err = ctypes.get_errno()
            if err in (errno.ENOENT, errno.ENOTDIR, errno.EACCES):
                return -1                 # gone, or not a folder any more: the signature will tell
            raise OSError(err, f"inotify_add_watch {path}")
        return wd

    def follow(self, dirs: list[str]) -> None:
        """Watch exactly these folders (repository paths). A folder watched only now may have changed unseen
        before its watch: the caller vouches for nothing until a signature taken after `settle()` matches."""
        wanted = set(dirs) | {"."}
        self.reshaped = False
        for d in [d for d in self.wds if d not in wanted]:
            wd = self.wds.pop(d)
            del self._folder[wd]
            self._libc.inotify_rm_watch(self.fd, wd)
        for d in sorted(wanted - self.wds.keys()):
            wd = self._add(self.top if d == "." else os.path.join(self.top, d), FOLDER_EVENTS)
            if wd >= 0:   # a folder not there is watched once it comes (its parent's event says so)
                moved = self._folder.get(wd)   # the same folder under the name it had (its move not read yet)
                if moved is not None:
                    del self.wds[moved]
                self.wds[d] = wd
                self._folder[wd] = d

    def changed(self) -> bool:
        """Read every event waiting: True if any (a queue overflow included) came since `settle()`."""
        while True:
            try:
                data = os.read(self.fd, 65536)
            except BlockingIOError:
                return self.dirty
            except InterruptedError:
                continue
            if not data:
                return self.dirty
            self.dirty = self.dirty or self._matters(data)

    def _matters(self, data: bytes) -> bool:
        found = False
        at = 0
        while at + _HEAD.size <= len(data):
            wd, mask, _, size = _HEAD.unpack_from(data, at)
            name = data[at + _HEAD.size:at + _HEAD.size + size].rstrip(b"\0")
            at += _HEAD.size + size
            if mask & (_IGNORED | _MOVE_SELF) and wd in self._folder:   # a watch follows a folder, not its name:
                del self.wds[self._folder.pop(wd)]                      # gone or moved, the name is watched anew
                if mask & _MOVE_SELF:
                    self._libc.inotify_rm_watch(self.fd, wd)
            names = self.git_wds.get(wd)
            if names is not None and (mask & _RESHAPE or mask & _ISDIR and name in names):
                self.git_missing = True   # a git folder watched went, or one named came: a new watcher is needed
            if names is None or mask & _RESHAPE or name in names:
                found = True   # an ignored watch (its folder went) is an event of a folder watched too
                if mask & _RESHAPE or mask & _ISDIR and mask & (_CREATE | _DELETE | _MOVED_FROM | _MOVED_TO):
                    self.reshaped = True
        return found

    def settle(self) -> None:
        """Forget the events so far: from here on, `changed()` reports only later ones. Nothing is vouched
        for until the user checks again and `vouch()`es."""
        self.changed()
        self.dirty = self.vouched = False

    def vouch(self) -> None:
        """What the user keeps was found current after the last `settle()`."""
        self.vouched = True

    def unchanged(self) -> bool:
        """Whether what the user vouched for still holds: no change seen since. Otherwise settles, so the
        user's check from here on sees every later change."""
        if self.vouched and not self.changed():
            return True
        self.settle()
        return False

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def watcher(repo, dirs, git_names=(b"index",)) -> Watcher | None:
    """A watcher of `repo` (a `core.Repo`) over `dirs` and the files of git's folder named `git_names` (a name
    with a slash: in that subfolder), or None where inotify cannot serve (not Linux, not git, too many
    folders, a failure)."""
    if sys.platform != "linux" or not repo.is_git or len(dirs) + 3 > _limit() \
            or _fs_type(os.path.realpath(repo.top)) not in LOCAL:
        return None
    gitdir = git_dir(repo)
    git: dict[str, set[bytes]] = {}
    for name in git_names:
        sub, _, base = name.rpartition(b"/")
        git.setdefault(os.path.join(gitdir, os.fsdecode(sub)) if sub else gitdir, set()).add(base)
    try:
        w = Watcher(repo.top, {k: frozenset(v) for k, v in git.items()})
    except (OSError, AttributeError):
        return None
    try:
        w.follow(dirs)
    except OSError:
        w.close()
        return None
    return w
