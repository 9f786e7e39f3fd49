"""Is the index current, and if not, what changed? The quick check that spares a look-up a scan.

In git, `git diff-files` names the tracked files whose stat data no longer matches git's index, and the
stat data of the untracked indexed files and of every folder shows files that came or went. git has to
stat every tracked file for that, the larger part of a warm look-up, so the command line starts it
first (`Probe`): git stats the tree on one core while Python imports the handler on another, and
`signature()` collects the answer. `watch()` makes the state to compare against (kept by `save()`),
and when the signatures differ `changes()` says what changed, reading only that; `index.py`
applies it.
"""
from __future__ import annotations

import os
import time
from array import array
from collections import namedtuple

from rt.core import GitProcess, Repo, folders_up, git, git_dir, git_index, git_paths, untracked_folders
from rt.store import folder_here


class Probe:
    """A `git diff-files` under way for one repository (nothing outside git)."""

    def __init__(self, repo: Repo):
        self.proc = None
        if repo.is_git:
            try:
                self.proc = GitProcess(repo.top, "diff-files", "--name-only", "-z")
            except OSError:
                pass   # no git: every look-up falls back to the full scan

    def output(self) -> bytes | None:
        """What git printed, or None when it failed."""
        return None if self.proc is None else self.proc.output()

    def discard(self) -> None:
        """A probe nobody collected (the command failed first): end it and reap the process."""
        if self.proc is not None:
            self.proc.discard()


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
        return git_paths(self.listed)

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
    root = repo.top + os.sep
    known = _stat_data([os.path.join(git_dir(repo), "index")] + [root + t for t in targets])
    out = probe.output()   # git statted the tracked files while this process did the rest
    if out is None:
        return None
    return Signature(out, known, _stat_data([root + p for p in git_paths(out)]))


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


Quick = namedtuple("Quick", "untracked dirs sig stored", defaults=(None,))
"""What the quick check compares: its stat targets (the indexed files git does not track, then the
watched folders: each one up from an indexed file, and each one in the untracked, not ignored folders)
and the tree's signature when the index last matched the tree; with the bytes it was read from."""


def watch(repo, files: dict, racy_after: int) -> Quick | None:
    """The quick check's targets for these files, and the tree's signature now (stat data changed since
    `racy_after` recorded as RACY). None outside git."""
    tagged = git(repo.root, "ls-files", "-v", "-z") if repo.is_git else None
    loose = git(repo.root, "ls-files", "-o", "--exclude-standard", "--directory", "-z") if tagged is not None else None
    if tagged is None or loose is None:
        return None
    flagged = _flagged_of(tagged)
    known = {p[2:] for p in git_paths(tagged)} - flagged   # git diff-files never names a flagged file: watched as untracked
    untracked = sorted(p for p in files if p not in known)
    tops = [p[:-1] for p in git_paths(loose) if p.endswith("/")]
    dirs = sorted(folders_up(files) | untracked_folders(repo, tops))
    sig = signature(repo, untracked + dirs)
    return None if sig is None else Quick(untracked, dirs, sig.settled(racy_after))


def read(store, rel: str) -> Quick | None:
    """The quick check's state `save` kept at `rel` in the store, or None."""
    raw = stored(store, rel)
    if raw is None:
        return None
    head, _, rest = raw.partition(b"\n")
    counts = head.split()
    if len(counts) != 2 or not all(c.isdigit() for c in counts):
        return None
    u, d = int(counts[0]), int(counts[1])
    parts = rest.split(b"\0", u + d)
    if len(parts) != u + d + 1:
        return None
    names = [p.decode("utf-8", "surrogateescape") for p in parts[:-1]]
    sig = Signature.from_bytes(parts[-1], u + d)
    return None if sig is None else Quick(names[:u], names[u:], sig, raw)


def _quick_bytes(quick: Quick) -> bytes:
    """The quick check's state as stored: a line with the two target counts, each target followed by a
    NUL, then the signature."""
    return b"%d %d\n" % (len(quick.untracked), len(quick.dirs)) + b"".join(
        t.encode("utf-8", "surrogateescape") + b"\0" for t in quick.untracked + quick.dirs) + quick.sig.to_bytes()


def stored(store, rel: str) -> bytes | None:
    """The bytes of the kept state, to tell whether another process changed it since it was read."""
    try:
        return store.read_bytes(rel)
    except FileNotFoundError:
        return None
    except (IsADirectoryError, NotADirectoryError):
        raise folder_here(rel) from None


def save(store, rel: str, quick: Quick | None) -> None:
    """Keep the quick check's state at `rel` in the store (through its atomic write), only when it changed;
    remove it when there is none."""
    if quick is None:
        store.path(rel).unlink(missing_ok=True)
    elif stored(store, rel) != (data := _quick_bytes(quick)):
        store.write_bytes(store.path(rel), data)


MAX_FOLDERS = 50
"""More folders changed than this since the last look-up (a checkout, an unpacked archive): scan instead."""


Changes = namedtuple("Changes", "updates complete quick")
"""What changed since the quick check's state was kept: `updates` maps files to their (blob id, kind)
now, None when gone (every file when `complete`, else the changed ones only), and `quick` is the state
to keep once the index holds them."""


def changes(repo, idx, quick: Quick, now: Signature, limit: int) -> Changes | None:
    """What changed between `quick` and `now`, read without listing the tree: files whose stat data
    changed are hashed again, folders whose stat data changed are listed for files that came or went,
    and when git's index was rewritten (add, commit, checkout, a refresh by `git status`) its blob ids
    say which tracked files differ. `idx` is the index as it stands. None when only a scan can tell: a
    .gitignore changed, many folders changed, a merge is in progress, a changed file vanished, or more
    than `limit` files changed (found before any is read: the delta would not take them)."""
    from rt.snapshot import RACY_NS, hash_path
    old = quick.sig
    targets = quick.untracked + quick.dirs
    moved = [targets[i] for i in now.changed_targets(old)]
    watched = set(quick.dirs) if moved else set()
    folders = [t for t in moved if t in watched]
    if len(folders) > MAX_FOLDERS:
        return None
    changed = set(moved) - set(folders)
    before, after = old.listed_stat(), now.listed_stat()
    changed |= {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    found = _came_and_went(repo, idx, folders, watched) if folders else (set(), set(), set())
    if found is None:
        return None
    came, went, new_folders = found
    if len(changed | came | went) > limit:
        return None
    racy_after = time.time_ns() - RACY_NS   # before reading: a file changed since is not vouched for
    rewritten = now.index_stat() != old.index_stat()   # by git: add, commit, checkout, `git status` ...
    if not rewritten:
        updates = {p: hash_path(repo, p) for p in sorted((changed | came) - went)}
        if any(v is None for v in updates.values()) or _ignore_rules_changed(idx, updates, went):
            return None
        updates |= dict.fromkeys(went)
        untracked = sorted((set(quick.untracked) - went) | came)
    else:
        synced = _resync(repo, idx, set(now.paths()), (changed | came) - went, went, limit)
        if synced is None or _ignore_rules_changed(idx, synced[0], went):
            return None
        updates, untracked = synced
    dirs = sorted(watched | new_folders) if new_folders else quick.dirs
    sig = now if (untracked, dirs) == (quick.untracked, quick.dirs) else \
        now.retargeted(targets, untracked + dirs, str(repo.root) + os.sep)
    return Changes(updates, rewritten, Quick(untracked, dirs, sig.settled(racy_after)))


def _ignore_rules_changed(idx, updates: dict, went: set[str]) -> bool:
    """Whether a .gitignore came, went or changed: what else is ignored then only a scan can tell."""
    return any(p.rpartition("/")[2] == ".gitignore" and (p in went or u[0] != idx.blob(p))
               for p, u in [*updates.items(), *dict.fromkeys(went).items()])


def _resync(repo, idx, listed: set[str], reread: set[str], went: set[str], limit: int) -> tuple[dict, list] | None:
    """After git's index was rewritten: a tracked file git does not list as changed has the content
    git's index names, so comparing blob ids finds what changed without reading the tree. Every file's
    (blob id, kind) now (kind "" where unchanged) and the untracked files; None during a merge, when git
    fails, or when more than `limit` files are to be read."""
    from rt.snapshot import hash_path
    entries = git_index(repo)
    if entries is None or any(stage != "0" for _, _, _, stage in entries):
        return None
    tracked = {path: blob for path, mode, blob, _ in entries if mode != "160000"}   # a submodule is no file here
    flagged = _flagged(repo)   # their content may be any: read, and watched by their stat data from now on
    if flagged is None:
        return None
    ours = idx.blobs
    files = sorted((ours.keys() | reread | tracked.keys()) - went)
    to_read = {p for p in files if p in reread or p in listed or p in flagged or p not in ours
               or tracked.get(p, ours[p]) != ours[p]}
    if len(to_read) > limit:
        return None
    updates: dict[str, tuple[str, str]] = {}
    for p in files:
        got = hash_path(repo, p) if p in to_read else (ours[p], "")
        if got is not None:
            updates[p] = got
    return updates, sorted(p for p in updates if p not in tracked or p in flagged)


def _flagged(repo) -> set[str] | None:
    """The tracked files git never names as changed (`_flagged_of`); None when git fails."""
    out = git(repo.root, "ls-files", "-v", "-z")
    return None if out is None else _flagged_of(out)


def _flagged_of(tagged: bytes) -> set[str]:
    """In `git ls-files -v -z` output: the files flagged assume-unchanged (a lower-case tag) or skip-worktree (S, what
    a sparse checkout sets), which git diff-files never names as changed."""
    return {p[2:] for p in git_paths(tagged) if not p[:1].isupper() or p[:1] == "S"}


def _came_and_went(repo, idx, folders: list[str], watched: set[str]) -> tuple[set, set, set] | None:
    """In folders whose stat data changed: the files that came (not ignored: git says which), the indexed
    files that went, and the untracked folders that came (to watch from now on). None when git fails."""
    root = str(repo.root) + os.sep
    in_folder: dict[str, set[str]] = {}
    for p in idx.paths:
        in_folder.setdefault(os.path.dirname(p) or ".", set()).add(p)
    new_names, went = [], set()
    for d in folders:
        prefix = "" if d == "." else d + "/"
        try:
            with os.scandir(root + prefix) as entries:   # never a .git or .rt, at any depth, as the full scan
                kinds = {prefix + e.name: e.is_dir(follow_symlinks=False) for e in entries if e.name not in (".git", ".rt")}
        except OSError:
            kinds = {}   # the folder itself is gone
        present = set(kinds)
        had = in_folder.get(d, set())
        # an indexed file now a folder of that name went, and the folder is new; a watched folder now a file is new
        turned = {n for n in had & present if kinds[n]} | {n for n in watched & present if not kinds[n]}
        went |= (had - present) | (turned & had)
        new_names += sorted((present - had - watched) | turned)
    if not new_names:
        return set(), went, set()
    specs = [":(literal)" + name for name in new_names]
    files = git(repo.root, "ls-files", "-co", "--exclude-standard", "-z", "--", *specs)
    tops = git(repo.root, "ls-files", "-o", "--exclude-standard", "--directory", "-z", "--", *specs)
    if files is None or tops is None:
        return None
    came = set(git_paths(files)) - set(idx.paths)
    new_dirs = untracked_folders(repo, [p[:-1] for p in git_paths(tops) if p.endswith("/")])
    return came, went, new_dirs | folders_up(came)
