"""Content snapshots of the tree, the stat cache that keeps them cheap, and the delta between two of them.

Hashes are git blob ids (sha1 of `blob <size>\\0<content>`), so a file git already holds unchanged
can be recovered with `git cat-file` and needs no copy in `.rt/blobs/`.
"""
from __future__ import annotations

import json
import os
import re
import stat
import time
from collections import namedtuple

from rt.core import (EXECUTABLE, MAX_TEXT_BYTES, GitProcess, Repo, StoreError, classify, content_kind, decode, folders_up,
                     git, git_dir, git_index, git_paths, list_files, untracked_folders)
from rt.store import Store

STATCACHE = "statcache.json"
CACHE_LAYOUT = 4
"""Layout of the stat cache: `files` maps a path to [size, mtime_ns, inode, blob id, kind, original saved];
`text` is the blob ids (40 characters each, sorted) known to be text, `kinds` maps the others to their
kind. A cache of another layout is dropped and rebuilt (it is only a cache), never misread."""
RACY_NS = 1_000_000_000
"""Files modified less than this before a scan are re-read next time (as git treats 'racily clean' entries)."""


def _sha1(head: bytes = b""):
    """A SHA-1 hash object; hashlib (which loads OpenSSL) is imported at the first file read, so a scan of an
    unchanged tree, which reads none, never pays for it."""
    import hashlib
    return hashlib.sha1(head)


def blob_id(data: bytes) -> str:
    h = _sha1(b"blob %d\x00" % len(data))
    h.update(data)
    return h.hexdigest()


LAST_SCAN = "lastscan"
"""The last scan in git, to recognise an unchanged tree without building its map: a JSON line (its
fingerprint and file count, the stat data of git's index file, the stat data it saw of each file it looked
at itself, whether each text file among those has its original saved, `QUICK_LAYOUT`), then the files git
named (`_NAMED`) byte for byte. One file, written whole, so the line and the listing always belong together."""
QUICK_LAYOUT = 2
"""2: fingerprints name executable files and submodules (`fingerprint`): a record of an older rt vouches for no tree."""

_NAMED = ("ls-files", "-v", "-m", "-o", "--exclude-standard", "-z")
"""The tracked files whose stat data no longer matches git's index (`C path`; git compares the content of
racily clean ones) and the untracked, not ignored ones (`? path`)."""
_STAGED = ("ls-files", "-s", "-v", "-z")
"""Every entry of git's index: its blob id, mode, stage and flags (see `_ENTRY`). Asked for only when the
tree's map is built: an unchanged index file says it again."""


class Scan:
    """The tree as it is now. In git, when git's index file has the stat data the last scan saw (so the
    same entries: blob ids, modes, flags), git names the same files as modified or untracked, byte for
    byte, and every file that scan looked at itself (those, and the assume-unchanged, skip-worktree, ...
    ones) has the stat data it saw, the tree is the last scan's (the files git vouches for are the blobs
    its index names), so `fingerprint` and `count` come from that scan's record and nothing is decoded
    (`unchanged`). `files` maps path -> (blob id, kind), built on first use; `read` is how many files had
    to be read. (A plain class, not a dataclass: the index's refresh and the hooks import this module.)"""

    __slots__ = ("repo", "store", "save_originals", "texts", "index", "named", "last", "_files", "_fingerprint", "read")

    def __init__(self, repo: Repo, store: Store, save_originals: bool, texts: dict[str, bytes] | None = None):
        self.repo, self.store, self.save_originals, self.texts = repo, store, save_originals, texts
        self.index = _index_stat(repo) if repo.is_git else None   # before git reads the index
        self.named = _named(repo) if repo.is_git else None
        self.last = None if self.named is None else _last_scan(repo, store, self.index, self.named)
        if self.last is not None and save_originals and not self.last["saved"]:
            self.last = None
        self._files: dict[str, tuple[str, str]] | None = None
        self._fingerprint = None if self.last is None else self.last["fingerprint"]
        self.read = 0

    @property
    def unchanged(self) -> bool:
        """The tree is as the last scan in git found it: fingerprint and count are known without `files`."""
        return self.last is not None

    @property
    def files(self) -> dict[str, tuple[str, str]]:
        if self._files is None:
            kept = _kept
            if kept is not None and self.last is not None and self.texts is None and kept[0] == self.last["fingerprint"]:
                self._files = dict(kept[1])   # the tree this process last built: nothing of git's listing decoded
            else:
                self._files = self._build()
        return self._files

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = fingerprint(self.files)
        return self._fingerprint

    @property
    def count(self) -> int:
        return self.last["files"] if self._files is None and self.last is not None else len(self.files)

    def _build(self) -> dict[str, tuple[str, str]]:
        repo, store = self.repo, self.store
        try:
            data = store.read_json(STATCACHE) or {}
            cache = data if data.get("layout") == CACHE_LAYOUT else {}
        except StoreError:
            cache = {}  # only a cache: a damaged one is rebuilt
        staged = None if self.named is None else _git_output(repo, _STAGED)
        new = None if staged is None else _git_scan(repo, store, staged, self.named, cache, self.save_originals, self.texts)
        if new is None:
            listed = _hash_listed(repo, store, list_files(repo), cache.get("files", {}), self.save_originals, None, self.texts,
                                  _modes_count(repo))
            new = (*listed, cache.get("text", ""), cache.get("kinds", {}), None)
        files, entries, self.read, text, kinds, looked = new
        if (entries, text, kinds) != (cache.get("files"), cache.get("text"), cache.get("kinds")):
            store.ensure()
            store.write_json(STATCACHE, {"files": entries, "text": text, "kinds": kinds, "layout": CACHE_LAYOUT})
        if looked is not None:
            self._fingerprint = fingerprint(files)
            _keep_last_scan(store, self.index, self.named, self._fingerprint, len(files), looked, entries)
            global _kept
            _kept = (self._fingerprint, dict(files))   # a copy: the caller may change its own
        return files


_kept: tuple[str, dict[str, tuple[str, str]]] | None = None
"""The last tree this process built in git (`Scan._build`), with its fingerprint. A scan that finds the tree
as the last scan's record says (`Scan.unchanged`) and that record's fingerprint this one's takes a copy of it
as its `files` instead of decoding git's listing of every tracked file again: the fingerprint is of the whole
map, so the map is the one it was computed from. For a long-lived process (the hook server: a warm `/runtask`
on babel decoded 27,674 entries of `ls-files -s` and hashed them, about 0.1 s); not for a scan that keeps the
bytes it reads (`texts`), which would get none."""


def scan(repo: Repo, store: Store, *, save_originals: bool = False, texts: dict[str, bytes] | None = None) -> Scan:
    """Every file's blob id and kind, reading only files that may have changed since the last scan.

    In git, git says which files those are (`_git_scan`): a tracked file whose stat data git's index
    vouches for has the index's blob id, so only the files git names as modified or untracked are
    looked at. Elsewhere, or when git fails, every listed file is `lstat`ed and compared with the stat
    cache (`_hash_listed`). With `save_originals`, text files that git cannot give back unchanged are
    copied into the blob store, so `rt review` and `rt delta` can show their original content later;
    the last scan's record answers for such a scan only when it saved every original it had to. `texts`,
    when given, receives the bytes of each text file the scan read (a cold `/runtask` hook's partial index
    reads every file again otherwise).
    """
    return Scan(repo, store, save_originals, texts)


WATCH = False
"""Set by a process that stays up (the hook server, `rt mcp`): its scans in git keep a `watch.Watcher` on every
folder git lists files in and on git's `index` and `info/exclude`, and while it saw no change since git last
named the modified and untracked files (`_NAMED`), take that listing again instead of asking git, which stats
every tracked file and reads every folder for it (babel's 27,674 files: about 0.2 s of CPU). The listing is
then checked as git's own would be (`_last_scan`)."""


class _Listing:
    """What git last named in a watched repository, and its watcher: that vouches for it once its folders were
    watched from before git ran (a folder watched only after, after folders came or went, is not yet)."""

    __slots__ = ("watcher", "out")

    def __init__(self, watcher, out: bytes):
        self.watcher, self.out = watcher, out


_listings: dict[str, _Listing | None] = {}
"""Per repository top: its listing, or None where no watcher can serve (inotify missing, too many folders)."""


def _named(repo: Repo) -> bytes | None:
    """`_NAMED`'s output: git's, or with WATCH the last one while the watcher saw no change since."""
    held = _listings.get(repo.top) if WATCH else None
    if held is not None and held.watcher.unchanged():
        return held.out
    out = _git_output(repo, _NAMED)
    if out is None or not WATCH or (held is None and repo.top in _listings):
        return out
    if held is not None and not held.watcher.reshaped:
        held.out = out
        held.watcher.vouch()
        return out
    dirs = _listed_folders(repo, out)
    if dirs is None:
        return out
    if held is None or held.watcher.git_missing:   # "info" counts in git's folder: made after, it needs a new watch
        from rt import watch
        if held is not None:
            held.watcher.close()
        w = watch.watcher(repo, dirs, (b"index", b"info", b"info/exclude"))
        _listings[repo.top] = None if w is None else _Listing(w, out)
        return out
    try:
        held.watcher.follow(dirs)
        held.out = out
    except OSError:
        held.watcher.close()
        _listings[repo.top] = None
    return out


def _listed_folders(repo: Repo, named: bytes) -> list[str] | None:
    """Every folder a file git lists can be in: each one up from a tracked or untracked file, and each one in
    and under the untracked, not ignored folders (where a file may come)."""
    tracked = _git_output(repo, ("ls-files", "-z"))
    loose = _git_output(repo, ("ls-files", "-o", "--exclude-standard", "--directory", "-z"))
    if tracked is None or loose is None:
        return None
    files = git_paths(tracked) + [p[2:] for p in git_paths(named) if p.startswith("? ")]
    tops = [p[:-1] for p in git_paths(loose) if p.endswith("/")]
    return sorted(folders_up(files) | untracked_folders(repo, tops))


def _git_output(repo: Repo, args: tuple[str, ...]) -> bytes | None:
    """What a git command printed, None when git fails."""
    try:
        return GitProcess(repo.root, *args).output()
    except OSError:
        return None


_GIT_PLACES = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_COMMON_DIR")


def _index_stat(repo: Repo) -> list[int] | None:
    """Size, mtime and inode of git's index file, when it is where rt looks (`.git/index`: no variable of
    `_GIT_PLACES` set, `.git` a folder) and was written over `RACY_NS` ago; else None, which vouches for
    nothing (git writes a new index file whole and renames it in place: within one timestamp tick a rewrite
    could keep its size and time and get the old file's inode back)."""
    if any(name in os.environ for name in _GIT_PLACES):
        return None
    try:
        st = os.stat(os.path.join(repo.root, ".git", "index"))
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_mtime_ns >= time.time_ns() - RACY_NS:
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ino]


def _last_scan(repo: Repo, store: Store, index: list[int] | None, named: bytes) -> dict | None:
    """The last scan's record when git's index file is the one it saw, git names the same files, byte for
    byte, and every file that scan looked at itself has the stat data it saw then (`_keep_last_scan`);
    else None."""
    if index is None:
        return None
    try:
        with open(store.path(LAST_SCAN), "rb") as f:
            head = f.readline()
            if f.read() != named:
                return None
        last = json.loads(head)
    except (OSError, ValueError):
        return None
    if not isinstance(last, dict) or last.get("layout") != QUICK_LAYOUT or last.get("index") != index:
        return None
    root = str(repo.root) + os.sep
    for path, key in last["looked"].items():
        try:
            st = os.lstat(root + path)
        except OSError:
            if key is None:   # gone then, gone now
                continue
            return None
        if key != _key(st):
            return None
    return last


def _keep_last_scan(store: Store, index: list[int] | None, named: bytes, fp: str, count: int, looked: list[str],
                    entries: dict) -> None:
    """Record a scan in git for `_last_scan`: for each file it looked at itself, the stat data its stat
    cache entry trusts (a racily clean file's never matches, so the next scan looks again) or None when
    it found no file there. Nothing is kept when git's index file vouches for nothing (`_index_stat`);
    written only when it differs from the record kept."""
    if index is None:
        return
    head = {"fingerprint": fp, "files": count, "index": index, "layout": QUICK_LAYOUT,
            "looked": {p: entries[p][:3] if p in entries else None for p in looked},
            "saved": all(e[5] for e in entries.values() if e[4] == "text")}
    raw = json.dumps(head, sort_keys=True, separators=(",", ":")).encode() + b"\n" + named
    path = store.path(LAST_SCAN)
    try:
        if path.read_bytes() == raw:
            return
    except OSError:
        pass
    store.ensure()
    store.write_bytes(path, raw, durable=False)


_ENTRY = 52
"""Where the path starts in an entry of `git ls-files -s -v -z` (`_STAGED`): tag (H: cached; lower case:
assume-unchanged; S: skip-worktree), space, mode, space, blob id, space, stage, tab (SHA-1 ids: a SHA-256
repository's entries have no tab there, and it falls back to the full scan)."""


def _git_scan(repo: Repo, store: Store, staged: bytes, named_out: bytes, cache: dict, save_originals: bool,
              texts: dict[str, bytes] | None = None) -> tuple | None:
    """`scan` from git's own knowledge: `staged` (`_STAGED`) gives every tracked file's blob id, `named_out`
    (`_NAMED`) names the tracked files whose stat data no longer matches git's index (git compares the
    content of racily clean ones) and the untracked, not ignored ones. A tracked file git does not name has the index's
    blob id, read from the file once to learn its kind and to check that the bytes are the blob (no clean
    filter or line-ending conversion in between: a file whose bytes differ is looked at like a named one,
    through the stat cache, from then on). None when git fails.

    (files, stat cache entries, files read, text blob ids, other kinds, the paths looked at through the
    stat cache), as `scan` keeps them; None when git's listings are not of the layout read here."""
    listed, names = (os.fsdecode(out).split("\0") for out in (staged, named_out))   # as the file system names them
    if listed.pop() != "" or names.pop() != "" or "" in listed or any(e[:2] not in ("? ", "C ") for e in names):
        return None
    named = {e[2:] for e in names}
    converts = _converts(repo, _nested_attributes(staged, named_out, listed, named))
    modes = _modes_count(repo)
    index: dict[str, str] | None = {} if save_originals else None   # git's own copies, for _hash_listed
    old = cache.get("files", {})
    text_ids = cache.get("text", "")
    known_text = {text_ids[i:i + 40] for i in range(0, len(text_ids), 40)}
    known = cache.get("kinds", {})
    files: dict[str, tuple[str, str]] = {}
    seen_text: set[str] = set()
    kinds: dict[str, str] = {}
    read = 0
    root = str(repo.root) + os.sep
    for e in listed:
        tag = e[0]
        if e[_ENTRY - 1:_ENTRY] != "\t":   # not the layout sliced here
            return None
        path, blob, stage = e[_ENTRY:], e[9:49], e[50]
        if index is not None and stage == "0":
            index[path] = blob
        if e[2:8] == "160000":   # a submodule: the commit it has checked out, git's index's unless git names it
            head = blob if stage == "0" and path not in named else _submodule_head(repo, path)
            if head is not None:
                files[path] = (head, SUBMODULE)
            continue
        if converts or not (tag == "H" and stage == "0" and e[2:5] == "100" and path not in named
                            and old.get(path, (0, 0, 0, 0))[3] in (0, blob)):
            named.add(path)
            continue
        # git vouches for it, and it is no file whose bytes differ from its blob, nor its mode from the index's
        mark = EXECUTABLE if modes and e[2:8] == "100755" else ""
        if blob in known_text:
            files[path] = (blob, "text" + mark)
            seen_text.add(blob)
            continue
        kind = known.get(blob)
        if kind is None:   # a blob not seen before: its kind from the file, which must be that blob
            try:
                got = _read(root + path, os.lstat(root + path))
            except OSError:
                got = None
            read += 1
            if got is None or got[0] != blob:
                named.add(path)
                continue
            kind = got[1]
            if texts is not None and kind == "text":
                texts[path] = got[2]
        files[path] = (blob, kind + mark)
        if kind == "text":
            seen_text.add(blob)
        else:
            kinds[blob] = kind
    named = sorted(p for p in named if not p.startswith(".rt/"))
    more, entries, more_read = _hash_listed(repo, store, named, old, save_originals, index, texts, modes)
    files.update(more)
    for blob, kind in ((b, content_kind(k)) for b, k in more.values()):   # known from now on: it may be committed next
        if kind == "text":
            seen_text.add(blob)
        elif kind != "link":
            kinds[blob] = kind
    text = text_ids if seen_text == known_text else "".join(sorted(seen_text))
    return files, entries, read + more_read, text, kinds, named


SUBMODULE = "submodule"
"""The kind of a submodule (a gitlink in git's index): its blob id is the commit it has checked out. rt reads no
file in it; a change in it that moves no commit is the submodule's own, as for git."""


def _submodule_head(repo: Repo, path: str) -> str | None:
    """The commit the submodule at `path` has checked out (asked of git only where git names the submodule as
    changed); None where there is no repository checked out there, or the path leads out of the tree through a link."""
    full = os.path.join(repo.top, path)
    if os.path.realpath(full) != os.path.join(os.path.realpath(repo.top), path) or not os.path.isdir(full):
        return None
    out = _git_output(repo, ("--git-dir", os.path.join(path, ".git"), "rev-parse", "--verify", "-q", "HEAD"))
    return out.decode("ascii", "replace").strip() or None if out else None


def upgraded(repo: Repo, files: dict[str, tuple[str, str]]) -> dict[str, tuple[str, str]]:
    """A task snapshot an rt before `state.SNAPSHOT_LAYOUT` took, as that tree had (most likely) what it did not
    record: a file executable now was then (a mode changed during such a task goes unseen, as it did), and the
    submodules at the commits git's index has for them."""
    modes, out = _modes_count(repo), dict(files)
    for path, (blob, kind) in files.items():
        if modes and kind in _BY_BLOB:
            try:
                out[path] = (blob, _kind(kind, os.lstat(os.path.join(repo.top, path)), modes))
            except OSError:
                pass
    staged = _git_output(repo, _STAGED) if repo.is_git else None
    for e in os.fsdecode(staged or b"").split("\0"):   # as `_git_scan` reads git's index
        if e[2:8] == "160000" and e[50:51] == "0":
            out.setdefault(e[_ENTRY:], (e[9:49], SUBMODULE))
    return out


_CONVERTS = re.compile(rb"(?i)\beol\s*=\s*crlf\b|\bcrlf\b|\bfilter\s*=|\bident\b|working-tree-encoding|"
                       rb"\bautocrlf\s*=\s*true\b")


def _converts(repo: Repo, nested: list[str]) -> bool:
    """Whether git may write a tracked file with other bytes than its blob (`eol=crlf`, a clean/smudge filter,
    `ident`, another encoding, `core.autocrlf` or `core.eol=crlf`), as the tree's `.gitattributes` (the top one and
    `nested`, below it), git's own and the user's attributes files and the repository's and the user's git config
    say (a linked worktree's repository keeps its config and info/ in the main one's git folder): then a file git calls
    clean need not be its blob, and every tracked file is looked at through the stat cache, as a named one is. A
    `.gitattributes` that is a link counts for nothing, as for git: rt follows no link out of the tree."""
    common = _common_dir(git_dir(repo))
    tree = [os.path.join(repo.top, p) for p in (".gitattributes", *nested)]
    for path in (*tree, os.path.join(common, "info", "attributes"), os.path.join(common, "config"),
                 os.path.expanduser("~/.config/git/attributes"), os.path.expanduser("~/.gitconfig"),
                 os.path.expanduser("~/.config/git/config")):
        try:
            if path in tree and not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            with open(path, "rb") as f:
                if _CONVERTS.search(f.read(1 << 20)):
                    return True
        except OSError:
            continue
    return False


def _nested_attributes(staged: bytes, named_out: bytes, listed: list[str], named: set[str]) -> list[str]:
    """The `.gitattributes` files below the tree's top, tracked (`staged`, `listed`) or not (`named_out`, `named`):
    their rules hold for the files under them. One search of git's output finds most trees have none."""
    if b"/.gitattributes\0" not in staged and b"/.gitattributes\0" not in named_out:
        return []
    return sorted({p for p in (*(e[_ENTRY:] for e in listed), *named) if p.endswith("/.gitattributes")})


def _common_dir(gits: str) -> str:
    """The git folder holding the repository's config and info/: a linked worktree's names it in its `commondir`."""
    try:
        with open(os.path.join(gits, "commondir"), encoding="utf-8", errors="replace") as f:
            return os.path.normpath(os.path.join(gits, f.read().strip()))
    except OSError:
        return gits


def _hash_listed(repo: Repo, store: Store, paths: list[str], cache: dict, save_originals: bool,
                 index: dict[str, str] | None, texts: dict[str, bytes] | None = None,
                 modes: bool = True) -> tuple[dict, dict, int]:
    """Hash the listed files, re-reading only files whose size, mtime or inode changed since `cache`
    (the stat cache's entries, which hold a file's content kind) saw them. `index` is git's index (path -> blob id),
    read here when None and some file may need saving; `modes`: whether execute bits count (`_modes_count`).
    (files, the stat cache's entries now, files read)."""
    files: dict[str, tuple[str, str]] = {}
    new_cache: dict[str, list] = {}
    read = 0
    racy_after = time.time_ns() - RACY_NS
    root = str(repo.root) + os.sep
    for rel in paths:
        path = root + rel
        try:
            st = os.lstat(path)
        except OSError:
            continue  # deleted between listing and reading, or a tracked file already gone
        key = _key(st)
        hit = cache.get(rel)
        data = None
        saved = False
        if hit and hit[:3] == key:
            digest, kind, saved = hit[3], hit[4], hit[5]
        else:
            got = _read(path, st)
            if got is None:
                continue
            digest, kind, data = got
            read += kind != "link"
            if texts is not None and kind == "text":
                texts[rel] = data
        files[rel] = (digest, _kind(kind, st, modes))
        if save_originals and not saved and kind == "text":
            if index is None:
                index = _git_index(repo)
            saved = index.get(rel) == digest or store.has_blob(digest) or _save(store, path, digest, data)
        # a file modified just now could change again within one timestamp tick: don't trust its stat next time
        new_cache[rel] = (key if key[1] < racy_after else [-1, -1, -1]) + [digest, kind, saved]
    return files, new_cache, read


def _kind(kind: str, st: os.stat_result, modes: bool) -> str:
    """A file's kind as a scan records it: its content's, marked `EXECUTABLE` where `modes` count and its owner may
    run it (a link's own bits say nothing)."""
    return kind + EXECUTABLE if modes and stat.S_ISREG(st.st_mode) and st.st_mode & stat.S_IXUSR else kind


_NO_MODES = re.compile(rb"(?i)\bfilemode\s*=\s*(?:false|no|off|0)\b")


def _modes_count(repo: Repo) -> bool:
    """Whether a file's execute bit is part of it, as for git: not where the repository's config sets `core.fileMode`
    false (git keeps the mode its index has: a file system without such bits, where every file looks executable)."""
    if not repo.is_git:
        return True
    try:
        with open(os.path.join(_common_dir(git_dir(repo)), "config"), "rb") as f:
            return not _NO_MODES.search(f.read(1 << 20))
    except OSError:
        return True


def _key(st: os.stat_result) -> list[int]:
    """What the stat cache compares: size, the later of the change and modification times, inode. The change time
    moves with any write and cannot be set back, so an edit of the same size whose modification time was put back
    (`touch -r`, `cp -p`, tar, rsync) is seen, as git sees it."""
    return [st.st_size, max(st.st_mtime_ns, st.st_ctime_ns), st.st_ino]


def _read(path: str, st: os.stat_result) -> tuple[str, str, bytes | None] | None:
    """(blob id, kind, content when small) of a file or symlink as `lstat` saw it; None for anything
    else, or when it is gone."""
    try:
        if stat.S_ISLNK(st.st_mode):
            data = os.fsencode(os.readlink(path))
            return blob_id(data), "link", data
        if stat.S_ISREG(st.st_mode):
            return _hash_file(path, st.st_size)
    except OSError:
        pass
    return None


def hash_path(repo: Repo, rel: str) -> tuple[str, str] | None:
    """(blob id, kind) of one file now, as `scan` records it; None when it is gone or not a file."""
    path = os.path.join(repo.root, rel)
    try:
        st = os.lstat(path)
        got = _read(path, st)
    except OSError:
        return None
    return None if got is None else (got[0], _kind(got[1], st, _modes_count(repo)))


def _save(store: Store, path: str, digest: str, data: bytes | None) -> bool:
    """Copy a file's content into the blob store, unless it changed since it was hashed."""
    if data is None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            return False
        if blob_id(data) != digest:
            return False
    store.put_blob(digest, data)
    return True


def _hash_file(path: str, size: int) -> tuple[str, str, bytes | None]:
    """A small file is read with `os.read`, not through `open`'s file object, which costs more than the read
    itself on most files: a cold scan reads every file of the tree."""
    if size > MAX_TEXT_BYTES:
        h = _sha1(b"blob %d\x00" % size)
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest(), "large", None
    fd = os.open(path, os.O_RDONLY)
    try:
        chunks = [os.read(fd, size + 1)]   # the whole file as `lstat` saw it; reads on to its end
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 20))
    finally:
        os.close(fd)
    data = chunks[0] if len(chunks) == 2 else b"".join(chunks)
    return blob_id(data), classify(data, len(data)), data


def _git_index(repo: Repo) -> dict[str, str]:
    """Path -> blob id for every file in git's index: those contents git can give back."""
    return {path: blob for path, _, blob, _ in git_index(repo) or []}


def original(repo: Repo, store: Store, digest: str) -> bytes | None:
    """Content recorded under a blob id: from `.rt/blobs/`, else from git's object store."""
    data = store.get_blob(digest)
    if data is None and repo.is_git:
        data = git(repo.root, "cat-file", "blob", digest)
    return data


# ---------------------------------------------------------------- delta

Change = namedtuple("Change", "path status added removed in_scope note", defaults=(None,))
"""One changed file: `status` is modified, added or deleted; `added`/`removed` count lines, None when not
countable (binary, large, original unknown); `in_scope` is None before a plan exists; `note` what became of a
modified file besides its bytes (`kind_change`), else None."""


def kind_change(old: tuple[str, str] | None, new: tuple[str, str] | None) -> str | None:
    """What became of a changed file, of what its bytes do not say: a link, a file again, executable or no longer;
    a submodule, or one at another commit (both short ids). `old`, `new`: its (blob id, kind) before and now, None
    where there was or is none."""
    if SUBMODULE in (old and old[1], new and new[1]):
        both = old and new and old[1] == new[1]
        return f"submodule at another commit: {old[0][:7]}..{new[0][:7]}" if both else "submodule"
    if old is None or new is None:
        return None
    old, new = old[1], new[1]
    if (old == "link") != (new == "link"):
        return "now a link" if new == "link" else "no longer a link"
    if old.endswith(EXECUTABLE) != new.endswith(EXECUTABLE):
        return "now executable" if new.endswith(EXECUTABLE) else "no longer executable"
    return None


def changes(before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    """(path, status) for every path whose content differs, sorted by path."""
    if before == after:   # the common answer, found without a loop
        return []
    out = [(p, "modified" if p in before else "added") for p, a in after.items() if before.get(p) != a]
    return sorted(out + [(p, "deleted") for p in before.keys() - after.keys()])


def text_lines(data: bytes | None) -> list[str] | None:
    """A text file's lines, each with its line feed: split at `\n` only, as git and diff do (`str.splitlines` also
    splits at a form feed, a lone `\r`, U+2028 ..., which moved a hunk's line numbers)."""
    if data is None or classify(data, len(data)) != "text":
        return None
    parts = decode(data).split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def current_bytes(repo: Repo, rel: str) -> bytes | None:
    path = repo.root / rel
    try:
        st = os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return os.fsencode(os.readlink(path))
        return path.read_bytes() if stat.S_ISREG(st.st_mode) else None
    except OSError:
        return None


def count_lines(old: list[str] | None, new: list[str] | None) -> tuple[int | None, int | None]:
    """(added, removed) lines, as a diff counts them. The lines both ends share are set aside first; a middle too
    large for the matcher (quadratic: a lock file with 2,000 bumps ran for minutes) is counted as the lines
    each side has more of, which differs from a diff's count only where lines moved."""
    if old is None or new is None:
        return None, None
    start = 0
    while start < len(old) and start < len(new) and old[start] == new[start]:
        start += 1
    end = 0
    while end < len(old) - start and end < len(new) - start and old[-1 - end] == new[-1 - end]:
        end += 1
    old, new = old[start:len(old) - end], new[start:len(new) - end]
    if len(old) * len(new) > MATCHED:
        from collections import Counter
        a, b = Counter(old), Counter(new)
        return sum((b - a).values()), sum((a - b).values())
    added = removed = 0
    import difflib   # only when line counts are asked for
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed


MATCHED = 4_000_000
"""The most line pairs (old lines x new lines, once the shared ends are set aside) `count_lines` gives the matcher."""


_BY_BLOB = frozenset({"text", "binary", "large"})
"""The kinds a blob id decides: a fingerprint's line names any other (a link, an executable file's `+x`, a submodule)."""


def fingerprint(files: dict[str, tuple[str, str]]) -> str:
    """One id for a whole tree's content: equal exactly when no file differs, in its bytes, in being a symlink
    or in its execute bit (what a blob id does not decide)."""
    h = _sha1()
    for path in sorted(files):
        blob, kind = files[path]
        line = f"{path}\x00{blob}\n" if kind in _BY_BLOB else f"{path}\x00{blob}\x00{kind}\n"
        h.update(line.encode("utf-8", "surrogateescape"))
    return h.hexdigest()

