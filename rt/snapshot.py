"""Content snapshots of the tree, the stat cache that keeps them cheap, and the delta between two of them.

Hashes are git blob ids (sha1 of `blob <size>\\0<content>`), so a file git already holds unchanged
can be recovered with `git cat-file` and needs no copy in `.rt/blobs/`.
"""
from __future__ import annotations

import hashlib
import os
import stat
import time
from collections import namedtuple

from rt.core import MAX_TEXT_BYTES, Repo, StoreError, classify, decode, git, git_index, list_files
from rt.store import Store

STATCACHE = "statcache.json"
CACHE_LAYOUT = 2
"""Layout of a stat cache entry: [size, mtime_ns, inode, blob id, kind, original saved]. A cache of
another layout is dropped and rebuilt (it is only a cache), never misread."""
RACY_NS = 1_000_000_000
"""Files modified less than this before a scan are re-read next time (as git treats 'racily clean' entries)."""


def blob_id(data: bytes) -> str:
    h = hashlib.sha1(b"blob %d\x00" % len(data))
    h.update(data)
    return h.hexdigest()


Scan = namedtuple("Scan", "files read")
"""The tree as it is now: `files` maps path -> (blob id, kind); `read` is how many files had to be read.
(Named tuples here, not dataclasses: the index's refresh and the hooks import this module.)"""


def scan(repo: Repo, store: Store, *, save_originals: bool = False) -> Scan:
    """Hash every listed file, re-reading only files whose size, mtime or inode changed.

    With `save_originals`, text files that git cannot give back unchanged are copied into the blob
    store, so `rt review` and `rt delta` can show their original content later.
    """
    try:
        data = store.read_json(STATCACHE) or {}
        cache = data.get("files", {}) if data.get("layout") == CACHE_LAYOUT else {}
    except StoreError:
        cache = {}  # only a cache: a damaged one is rebuilt
    index: dict[str, str] | None = None  # git's index, read only if some file may need saving
    files: dict[str, tuple[str, str]] = {}
    new_cache: dict[str, list] = {}
    read = 0
    racy_after = time.time_ns() - RACY_NS
    root = str(repo.root) + os.sep
    for rel in list_files(repo):
        path = root + rel
        try:
            st = os.lstat(path)
        except OSError:
            continue  # deleted between listing and reading, or a tracked file already gone
        key = [st.st_size, st.st_mtime_ns, st.st_ino]
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
        files[rel] = (digest, kind)
        if save_originals and not saved and kind == "text":
            if index is None:
                index = _git_index(repo)
            saved = index.get(rel) == digest or store.has_blob(digest) or _save(store, path, digest, data)
        # a file modified just now could change again within one timestamp tick: don't trust its stat next time
        new_cache[rel] = (key if st.st_mtime_ns < racy_after else [-1, -1, -1]) + [digest, kind, saved]
    if new_cache != cache:
        store.ensure()
        store.write_json(STATCACHE, {"files": new_cache, "layout": CACHE_LAYOUT})
    return Scan(files, read)


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
        got = _read(path, os.lstat(path))
    except OSError:
        return None
    return None if got is None else got[:2]


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
    if size > MAX_TEXT_BYTES:
        h = hashlib.sha1(b"blob %d\x00" % size)
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return h.hexdigest(), "large", None
    with open(path, "rb") as f:
        data = f.read()
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

Change = namedtuple("Change", "path status added removed in_scope")
"""One changed file: `status` is modified, added or deleted; `added`/`removed` count lines, None when not
countable (binary, large, original unknown); `in_scope` is None before a plan exists."""


def changes(before: dict[str, tuple[str, str]], after: dict[str, tuple[str, str]]) -> list[tuple[str, str]]:
    """(path, status) for every path whose content differs, sorted by path."""
    out = []
    for p in sorted(set(before) | set(after)):
        b, a = before.get(p), after.get(p)
        if b == a:
            continue
        if b is None:
            out.append((p, "added"))
        elif a is None:
            out.append((p, "deleted"))
        else:
            out.append((p, "modified"))
    return out


def text_lines(data: bytes | None) -> list[str] | None:
    if data is None or classify(data, len(data)) != "text":
        return None
    return decode(data).splitlines(keepends=True)


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
    if old is None or new is None:
        return None, None
    added = removed = 0
    import difflib   # only when line counts are asked for
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed


def fingerprint(files: dict[str, tuple[str, str]]) -> str:
    """One id for a whole tree's content: equal exactly when no file differs."""
    h = hashlib.sha1()
    for path in sorted(files):
        h.update(f"{path}\x00{files[path][0]}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()
