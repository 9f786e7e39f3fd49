"""The repository index: per file its language, definitions, imports and identifiers, kept up to date cheaply.

The snapshot's stat cache says which files changed (`scan()` gives each file's blob id); only those are
parsed again. The index is stored under `.rt/index/` in hash shards, each holding every look-up kind
(identifier -> files, name -> definitions, file -> importers, ...) for its keys, so a look-up reads one
small shard, not the index. `freshness.py` tells cheaply whether anything changed since the last
look-up, so a warm look-up neither lists nor hashes the tree.

A warm look-up is a whole process start for one answer, so this module imports little: the snapshot,
the parsers and the import resolver are loaded only when something has to be parsed.
"""
from __future__ import annotations

import gc
import os
import re
import sys
import time
import zlib
from array import array
from collections import Counter
from functools import cached_property, partial
from itertools import repeat

from rt.index import freshness

from rt.core import (IndexDamaged, IndexReplaced, Result, StoreError, content_kind, counted, decode, read_text,
                     read_text_bytes)
from rt.index.model import Definition
from rt.store import json_bytes

VERSION = 46
"""Bump when an extractor or the stored layout changes: every file is parsed again."""

DIR = "index"
KINDS = ("files", "idents", "words", "defs", "importers", "keys", "resolved", "terms", "pterms", "nterms")
FAMILY = {"files": "f", "words": "w", "resolved": "r", "keys": "r", "idents": "s", "defs": "s", "importers": "s",
          "terms": "t", "pterms": "t", "nterms": "t"}
"""Which shard file holds a kind: file rows, the word map for `rt find`, the two small maps (each file's
resolved imports, the translation keys code uses: `rt find` reads a shard for each key it found, which the
identifiers would make ten times larger) and the symbol maps apart, so a symbol look-up never parses file rows
or words. The ranking's postings (`terms.KINDS`) are apart too. A file row holds no identifiers and words: those,
with the file's word counts, are in the token files (`TOKENS`), so the pack, which reads a row of each file it
shows, decodes a third of the bytes."""
ROWS = frozenset({"files", "resolved"})
"""Kinds keyed by path with one value per file; the others are posting lists."""
TOKENS = "i"
"""Each file's identifiers, words and ranking word counts, read only to update the index without parsing again the
files that did not change: `i000`, `i001` ..., each holding `TOKENS_PER` files in file-number order, four lines
a file (its identifiers, its words, its counted keys, their counts), each a list joined by spaces (`_line`). No
JSON: a cold build wrote nine megabytes of it for gen20k's 20,401 files, in 256 shards, for a read only a rebuild
makes."""
TOKENS_PER = 1024
"""Files per token file: a rebuild reads them all, an update one for each file whose imports it resolves again."""
PATHS = "paths"
"""Every indexed path, sorted, NUL-separated: every look-up reads it, and splitting beats parsing JSON."""
QUICK = "quick"
"""The quick check's state: its stat targets and the signature of the tree they gave (`freshness.save`),
at `.rt/{DIR}/{QUICK}` (`QUICK_REL`)."""
QUICK_REL = f"{DIR}/{QUICK}"
LOCK = f"{DIR}/.lock"
"""The index's own lock (`Store.locked`): held through a build, which may run in the background
(`partial.start_build`) while the hooks record what the session does under the store's lock."""
STATS = "rankstats"
"""Per base file, in file-number order, what the ranking weighs a match against: its lines and the words
of its text; two arrays of unsigned 32-bit numbers, one after the other."""




class FileEntry:
    """What the index knows of one file. Lists are sorted; `resolved` holds the repository paths its
    imports resolve to, `idents` the identifiers in its code, `words` the lower-case words of its whole
    text, `keys` the translation keys its code uses; `note` is "" or why the file is indexed only partly
    (binary, large, minified, generated, syntax-error). `terms` (ranking keys -> counts, `terms.py`) is
    kept apart from the row: None when not loaded."""

    __slots__ = ("path", "lang", "lines", "defs", "imports", "resolved", "idents", "words", "keys", "note", "blob",
                 "terms")

    def __init__(self, path: str, lang: str, lines: int, defs: list[Definition], imports: list[str],
                 resolved: list[str] | None = None, idents: list[str] | None = None, words: list[str] | None = None,
                 keys: list[str] | None = None, note: str = "", blob: str = ""):
        self.path, self.lang, self.lines, self.defs, self.imports = path, lang, lines, defs, imports
        self.resolved, self.idents, self.words, self.keys = resolved or [], idents or [], words or [], keys or []
        self.note, self.blob = note, blob
        self.terms: dict[str, int] | None = None

    def to_row(self, tokens: bool = True) -> list:
        """Its row; with `tokens` False, its identifiers and words left empty (a file shard's row)."""
        return [self.lang, self.lines, [d.row() for d in self.defs], self.imports, self.resolved,
                self.idents if tokens else [], self.words if tokens else [], self.keys, self.note, self.blob]

    def __eq__(self, other) -> bool:
        return isinstance(other, FileEntry) and (self.path, self.to_row()) == (other.path, other.to_row())

    __hash__ = None   # mutable

    def __repr__(self) -> str:
        return f"FileEntry({self.path!r}, {self.to_row()!r})"

    @classmethod
    def from_row(cls, path: str, row: list) -> FileEntry:
        return cls(path, row[0], row[1], [Definition(*d) for d in row[2]], *row[3:])


def shard_of(key: str, shards: int) -> int:
    return zlib.crc32(key.encode("utf-8", "surrogateescape")) % shards


def shard_count(postings: int) -> int:
    """About 20,000 postings per shard, a power of two, at most 1024: small look-ups, few writes."""
    n = 1
    while n * 20_000 < postings and n < 1024:
        n *= 2
    return n


class Index:
    """A loaded index: the shards of the last full build, overlaid with the delta: the files edited or
    added since, as they are now, and the files removed since.

    Look-ups read only the shard that holds their key, and the small delta; `files` reads everything.
    Posting lists hold file numbers, not paths, to stay small: a base file's number is its position in
    the build's sorted paths, a file added since numbers on after them.
    """

    complete = True
    """Every file parsed (a `partial.Partial` parses on demand)."""

    def __init__(self, store, meta: dict, parsed: int = 0):
        self.store = store
        self.meta = meta
        self.shards = meta["shards"]
        self.parsed = parsed
        self._cache: dict[str, dict] = {}
        self.of_paths: dict[str, object] = {}
        """What its users work out from `paths` alone, kept as long as this object (`context.View._of_index`)."""

    def _read(self, name: str) -> dict:
        if name not in self._cache:
            try:
                self._cache[name] = _part(self.store, name, _crc(self.meta, name))
            except IndexDamaged as e:
                raise self._damaged(str(e)) from None
        return self._cache[name]

    def _damaged(self, why: str) -> IndexDamaged:
        """IndexDamaged for `why`, or IndexReplaced when the meta file is another build's now: a file read after
        another rt rewrote the index (the `/runtask` hook's build, a look-up's update) is that build's, not this one's."""
        now = _meta(self.store)
        return IndexReplaced(why) if now is not None and now != self.meta else IndexDamaged(why)

    def _shard(self, kind: str, key: str) -> dict:
        return self._read(f"{FAMILY[kind]}{shard_of(key, self.shards):03d}.json")[kind]

    @cached_property
    def base_paths(self) -> list[str]:
        """The paths of the last full build, sorted; a path's position is its file number."""
        try:
            raw = self.store.read_bytes(f"{DIR}/{PATHS}")
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise self._damaged(f"the index is damaged: .rt/{DIR}/{PATHS} is missing") from None
        if zlib.crc32(raw) != self.meta["paths_crc"]:
            raise self._damaged(f"the index is damaged: .rt/{DIR}/{PATHS} is not the list its build wrote")
        return raw.decode("utf-8", "surrogateescape").split("\0") if raw else []

    @cached_property
    def paths(self) -> list[str]:
        """Every indexed path as the tree is now, sorted."""
        if not self.added and not self.removed:
            return self.base_paths
        return sorted([p for p in self.base_paths if p not in self.removed] + self.added)

    @cached_property
    def _numbered(self) -> list[str]:
        """Paths by file number: the base paths, then the files added since."""
        return self.base_paths + self.added if self.added else self.base_paths

    @cached_property
    def _base_ids(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.base_paths)}

    @cached_property
    def _ids(self) -> dict[str, int]:
        """Path -> file number, for every path the postings may name."""
        n = len(self.base_paths)
        return self._base_ids | {p: n + i for i, p in enumerate(self.added)} if self.added else self._base_ids

    @cached_property
    def base_blobs(self) -> dict[str, str]:
        """Each path with the blob id the last full build saw."""
        blobs = self._read("blobs.json")["blobs"]
        if len(blobs) != len(self.base_paths):
            raise self._damaged(f"the index is damaged: .rt/{DIR}/blobs.json does not match its path list")
        return dict(zip(self.base_paths, blobs))

    def base_blob(self, path: str) -> str | None:
        """The blob id the last full build saw for `path` (None when it had no such file), from its row."""
        return self._shard("files", path)[path][9] if path in self._base_ids else None

    def blob(self, path: str) -> str | None:
        """The blob id the index holds for `path` now; None when it holds no such file."""
        if path in self.delta:
            return self.delta[path].blob
        return None if path in self.removed else self.base_blob(path)

    @property
    def blobs(self) -> dict[str, str]:
        """Every path the index holds now, with its blob id."""
        return {p: b for p, b in self.base_blobs.items() if p not in self.removed} | {p: e.blob for p, e in self.delta.items()}

    @cached_property
    def delta(self) -> dict[str, FileEntry]:
        """Files edited or added since the last full build, as they are now."""
        data = self._read("delta.json")
        out = {p: FileEntry.from_row(p, row) for p, row in data["files"].items()}
        for p, counts in data.get("terms", {}).items():
            out[p].terms = counts
        return out

    @cached_property
    def removed(self) -> frozenset[str]:
        """Files of the last full build that are gone."""
        return frozenset(self._read("delta.json")["removed"])

    @cached_property
    def added(self) -> list[str]:
        """Files the last full build did not have, sorted."""
        return sorted(p for p in self.delta if p not in self._base_ids) if self.delta else []

    @cached_property
    def _delta_postings(self) -> dict[tuple[str, str], list]:
        out: dict[tuple[str, str], list] = {}
        for path, e in self.delta.items():
            fid = self._ids[path]
            for kind, keys, values in _postings(path, fid, e):
                for key, value in zip(keys, values or repeat(fid)):
                    out.setdefault((kind, key), []).append(value)
        return out

    def _lookup(self, kind: str, key: str) -> list:
        base = self._shard(kind, key).get(key, [])
        if not self.delta and not self.removed:
            return base
        hidden = {self._ids[p] for p in self.delta.keys() | self.removed}
        out = [v for v in base if _file_number(v) not in hidden] + self._delta_postings.get((kind, key), [])
        if not self.added:
            return sorted(out, key=_file_number)   # stable: a file's definitions keep their order
        return sorted(out, key=lambda v: self._numbered[_file_number(v)])

    def _path_list(self, numbers) -> list[str]:
        return [self._numbered[i] for i in numbers]

    @cached_property
    def files(self) -> dict[str, FileEntry]:
        out: dict[str, FileEntry] = {}
        ids = self._base_ids
        for i in range(self.shards):
            for path, row in self._read(f"{FAMILY['files']}{i:03d}.json")["files"].items():
                if path not in self.removed:
                    e = out[path] = FileEntry.from_row(path, row)
                    if path not in ids:
                        raise self._damaged(f"the index is damaged: .rt/{DIR}/{PATHS} does not match its file rows")
                    e.idents, e.words = self._tokens(ids[path])[:2]
        out.update(self.delta)
        return dict(sorted(out.items()))

    def _token_lines(self, part: int) -> list[str]:
        """The lines of token file `part` (`TOKENS`)."""
        name = f"{TOKENS}{part:03d}"
        lines = self._cache.get(name)
        if lines is None:
            try:
                raw = self.store.read_bytes(f"{DIR}/{name}")
            except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
                raise self._damaged(f"the index is damaged: .rt/{DIR}/{name} is missing") from None
            if zlib.crc32(raw) != _crc(self.meta, name):
                raise self._damaged(f"the index is damaged: .rt/{DIR}/{name} is not the file its build wrote")
            try:
                lines = raw.decode("utf-8", "surrogatepass").split("\n")
            except UnicodeDecodeError:
                lines = []
            per = self.meta["tokens_per"]
            if len(lines) != 4 * (min(len(self.base_paths), (part + 1) * per) - part * per):
                raise self._damaged(f"the index is damaged: .rt/{DIR}/{name} does not match its path list")
            self._cache[name] = lines
        return lines

    def _tokens(self, number: int) -> tuple[list[str], list[str], dict[str, int]]:
        """(identifiers, words, ranking word counts) of base file `number`, from its token file."""
        part, i = divmod(number, self.meta["tokens_per"])
        idents, words, keys, counts = self._token_lines(part)[4 * i:4 * i + 4]
        try:
            return _unline(idents), _unline(words), dict(zip(_unline(keys), map(int, counts.split()), strict=True))
        except ValueError:
            raise self._damaged(f"the index is damaged: .rt/{DIR}/{TOKENS}{part:03d} is not what its build wrote") from None

    def entry(self, path: str) -> FileEntry | None:
        """The file's entry; a base file's without its identifiers and words (`base_entry` has them)."""
        if path in self.delta:
            return self.delta[path]
        row = self._shard("files", path).get(path) if path not in self.removed else None
        return FileEntry.from_row(path, row) if row is not None else None

    @cached_property
    def langs(self) -> dict[str, int]:
        """Language -> files, as `rt index` reports them: the last full build's counts, with the files added and
        removed since (an update in the delta left the build's counts)."""
        from rt.index.langs import language
        out = Counter(self.meta["langs"])
        out.update(map(language, self.added))
        out.subtract(map(language, self.removed))
        return {lang: n for lang, n in sorted(out.items()) if n > 0}

    @cached_property
    def folder_langs(self) -> Counter:
        """(folder, language) -> files, as `langs.folder_counts` counts `paths`, for the manifest: the last full
        build's counts, kept in the meta file, with the files added and removed since."""
        out = Counter({(folder, lang): n for folder, lang, n in self.meta["folders"]})
        if self.added or self.removed:
            from rt.index.langs import folder_counts
            out.update(folder_counts(self.added))
            out.subtract(folder_counts(self.removed))
        return +out

    def base_entry(self, path: str) -> FileEntry:
        """A file of the last full build as it built it, identifiers and words included."""
        e = FileEntry.from_row(path, self._shard("files", path)[path])
        e.idents, e.words = self._tokens(self._base_ids[path])[:2]
        return e

    def base_counts(self, path: str) -> dict[str, int]:
        """The ranking word counts of a file of the last full build, as it built it."""
        return self._tokens(self._base_ids[path])[2]

    def imports_of(self, path: str) -> list[str]:
        """The repository files `path` imports, sorted: its entry's `resolved`, read from a small shard."""
        if path in self.delta:
            return self.delta[path].resolved
        return [p for p in self._path_list(self._shard("resolved", path).get(path, [])) if p not in self.removed]

    def importers(self, path: str) -> list[str]:
        """Files whose imports resolve to `path`, sorted."""
        return self._path_list(self._lookup("importers", path))

    def definitions(self, name: str) -> list[tuple[str, Definition]]:
        """(path, definition) for every definition named `name`, by path then line."""
        return [(self._numbered[r[0]], Definition(*r[1:])) for r in self._lookup("defs", name)]

    def users(self, ident: str, among=None) -> list[str]:
        """Files whose code has the identifier `ident` (case-sensitive), sorted; those `among(path)` keeps
        when given (a partial index then parses no others)."""
        paths = self._path_list(self._lookup("idents", ident))
        return paths if among is None else [p for p in paths if among(p)]

    def with_word(self, word: str) -> list[str]:
        """Files whose text has the lower-case word `word`, sorted."""
        return self._path_list(self._lookup("words", word))

    def key_users(self, key: str) -> list[str]:
        """Files whose code uses the translation key `key`, sorted."""
        return self._path_list(self._lookup("keys", key))

    # ------------------------------------------------------------ what the ranking reads (rt/pack/rank.py)

    def postings(self, kind: str, key: str) -> list:
        """The ranking posting list of `key` (a `terms.KINDS` kind): file numbers, or [number, count]."""
        return self._lookup(kind, key)

    def path_of(self, number: int) -> str:
        return self._numbered[number]

    @cached_property
    def _stats(self) -> dict[str, array]:
        numbers = array("I")
        try:
            raw = self.store.read_bytes(f"{DIR}/{STATS}")
            if zlib.crc32(raw) == _crc(self.meta, STATS):
                numbers.frombytes(raw)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError, ValueError):
            pass
        n = len(self.base_paths)
        if len(numbers) != 2 * n:
            raise self._damaged(f"the index is damaged: .rt/{DIR}/{STATS} does not match its path list")
        return {"lines": numbers[:n], "words": numbers[n:]}

    def stats(self, number: int) -> tuple[int, int]:
        """(lines, words in the text) of file `number`."""
        path = self._numbered[number]
        e = self.delta.get(path)
        if e is not None:
            return e.lines, sum((e.terms or {}).values())
        s = self._stats
        return s["lines"][number], s["words"][number]

    @cached_property
    def mean_words(self) -> float:
        """Mean words in the text of the build's files with text."""
        s = self._stats
        return sum(s["words"]) / ((len(s["lines"]) - s["lines"].count(0)) or 1)

    def with_counts(self) -> dict[str, FileEntry]:
        """`files`, each with its word counts: what a rebuild reuses of files that did not change."""
        files = self.files
        for number, path in enumerate(self.base_paths):
            if path in files and path not in self.delta:
                files[path].terms = self._tokens(number)[2]
        return files


# ---------------------------------------------------------------- building

def load(ctx, *, rebuild: bool = False, tree: str | None = None) -> Index:
    """The index of the tree as it is now: built on first use, then updated for changed files only.

    Three ways, cheapest first: the quick check says nothing changed; it finds what changed (files edited,
    added or removed, git's index rewritten) and only that is read again (`_refresh`); or the tree is
    scanned (`rt/snapshot.py`) when only a scan can tell. A long-lived process (`rt mcp`) sets `ctx.kept`
    (a `Kept`), which answers from the index it holds while that is still current. `tree` is the
    fingerprint of the tree as a scan has just found it (`/runtask`'s task snapshot): an index written
    for that tree is current without the quick check, which would have git stat every file again.
    """
    kept = getattr(ctx, "kept", None)
    if kept is not None and not rebuild:
        return kept.load(ctx, tree)
    return _load(ctx, rebuild=rebuild, tree=tree)


class Kept:
    """The index a long-lived process keeps between look-ups, with every shard it has read, and what it
    was current for: the quick check's state and the stat data of `.rt/index/` meta and quick files
    (every rewrite of the index, by this process or another, replaces the meta file; atomic renames
    change its inode). A look-up whose tree signature equals the kept state's, with those files
    untouched, gets the kept index: no file of the index is read again. Anything else loads as a
    fresh process would, and keeps the result.

    With `watch`, a `watch.Watcher` follows the quick check's folders: while it saw no change since the
    kept index was last found current, the signature is not taken at all."""

    MAX_SHARDS = 256
    """Shards held at most (the oldest read are dropped first), so a server's memory stays bounded."""

    def __init__(self, watch: bool = False):
        self.idx: Index | None = None
        self.quick: freshness.Quick | None = None
        self.stamp: tuple | None = None
        self.watch = watch
        self.watcher = None    # it vouches for the kept index: current when it last settled, its folders watched
        self.derived = Derived()

    def load(self, ctx, tree: str | None = None) -> Index:
        """The kept index when it is current (for `tree`, a scan's fingerprint, as `load` takes it: written for
        that tree), else the index loaded as `load` would, then kept."""
        store = ctx.store
        if self.idx is not None and self.quick is not None and _stamp(store) == self.stamp:
            if tree is not None and self.idx.meta["fingerprint"] == _fingerprint(tree):
                return self._current(ctx)
            if self.watcher is not None and self.watcher.unchanged():
                return self._current(ctx)
            probe, ctx.probe = ctx.probe, None
            now = freshness.signature(ctx.repo, self.quick.untracked + self.quick.dirs, probe=probe)
            if now is not None and now == self.quick.sig:
                if self.watcher is not None:
                    self.watcher.vouch()
                return self._current(ctx)
        elif self.watcher is not None:
            self.watcher.settle()
        idx = _load(ctx, tree=tree)
        self._keep(ctx, idx)
        return idx

    def _current(self, ctx) -> Index:
        if ctx.probe:
            ctx.probe.discard()
            ctx.probe = None
        self.idx.parsed = 0
        for name in list(self.idx._cache)[:-self.MAX_SHARDS]:
            del self.idx._cache[name]
        return self.idx

    def _keep(self, ctx, idx: Index) -> None:
        """Keep `idx` when the files on disk are still the ones it was loaded from (read, then stat again:
        another process may have rewritten them meanwhile); else keep nothing. The watcher follows the
        kept state's folders; it vouches for them from the next signature that matches."""
        store = ctx.store
        self.idx = self.quick = self.stamp = None
        stamp = _stamp(store)
        quick = freshness.read(store, QUICK_REL)
        if quick is not None and _meta(store) == idx.meta and _stamp(store) == stamp:
            self.idx, self.quick, self.stamp = idx, quick, stamp
            if self.watch:
                self._follow(ctx.repo, quick.dirs)

    def _follow(self, repo, dirs: list[str]) -> None:
        from rt import watch
        if self.watcher is not None:
            try:
                self.watcher.follow(dirs)
                return
            except OSError:
                self.watcher.close()
        self.watcher = watch.watcher(repo, dirs)


def derived(ctx, rel: str, make):
    """`make(rel, bytes)`: what a look-up derives from a repository file's bytes (as `read_text_bytes` gives
    them, None included). A long-lived process (`ctx.kept`) keeps it between look-ups (`Derived`); a fresh
    process reads the file."""
    kept = getattr(ctx, "kept", None)
    if kept is None:
        return make(rel, read_text_bytes(ctx.repo, rel))
    return kept.derived.get(ctx.repo, rel, make)


class Derived:
    """What a long-lived process derived from files' bytes (`rt find`'s decoded text, its lower case, a locale
    file's entries ...), kept between look-ups: one object per file and maker, keyed by the file's path and its
    stat identity (size, mtime, ctime, inode, device). A file changed since is read again. The racy-timestamp
    rule of the snapshot (`snapshot.RACY_NS`) applies: a file whose mtime or ctime is within that of the look-up's
    start is not kept, since a rewrite within the same timestamp tick could leave every stat field alone (ctime,
    which no program sets, moves on any later write). Held to `cap` bytes, as each object weighs itself
    (`weight`); the oldest used dropped first. Each object counts the look-ups that found it kept (`hits`)."""

    MAX_BYTES = 96 << 20

    def __init__(self, cap: int = MAX_BYTES):
        self.cap = cap
        self.held: dict[tuple, tuple[tuple, object, int]] = {}   # (top, rel, make) -> (stat, object, weight), oldest used first
        self.size = 0

    def get(self, repo, rel: str, make):
        from rt.snapshot import RACY_NS
        settled = time.time_ns() - RACY_NS   # before the stat: a file changed since is not kept
        key = (repo.top, rel, make)
        try:
            st = os.lstat(os.path.join(repo.top, rel))
            ident = (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)
        except OSError:
            st = ident = None
        hit = self.held.pop(key, None)
        if hit is not None:
            if hit[0] == ident:
                self.held[key] = hit   # the newest used now
                hit[1].hits += 1
                return hit[1]
            self.size -= hit[2]
        made = make(rel, read_text_bytes(repo, rel))
        weight = made.weight
        if st is not None and st.st_mtime_ns < settled and st.st_ctime_ns < settled and weight <= self.cap:
            self.held[key] = (ident, made, weight)
            self.size += weight
            while self.size > self.cap:
                self.size -= self.held.pop(next(iter(self.held)))[2]
        return made


def _stamp(store) -> tuple:
    """Size, mtime and inode of the index's meta file and the quick check's state (None where absent)."""
    out = []
    for name in ("meta.json", QUICK):
        try:
            st = os.stat(store.path(DIR, name))
        except OSError:
            out.append(None)
            continue
        out.append((st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(out)


def _fingerprint(tree: str) -> str:
    """The fingerprint an index of the tree with this scan fingerprint is written with (its meta's)."""
    return f"{VERSION}:{tree}"


def _load(ctx, *, rebuild: bool = False, tree: str | None = None) -> Index:
    store = ctx.store
    meta = _meta(store)
    probe, ctx.probe = ctx.probe, None   # started early by the command line, if it was
    damage = None   # said once the index is built again: a build that fails says its error alone
    if meta and not rebuild and meta.get("version") == VERSION:
        if tree is not None and meta["fingerprint"] == _fingerprint(tree):
            if probe:
                probe.discard()
            return Index(store, meta)
        quick = freshness.read(store, QUICK_REL)
        now = freshness.signature(ctx.repo, quick.untracked + quick.dirs, probe=probe) if quick else None
        if now is not None:
            probe = None
            if now == quick.sig:
                return Index(store, meta)
            try:
                idx = _refresh(ctx.repo, store, quick, now)
            except IndexDamaged as e:
                damage, idx, rebuild = e, None, True
            if idx is not None:
                return idx
    if probe:
        probe.discard()
    from rt.snapshot import RACY_NS, scan
    racy_after = time.time_ns() - RACY_NS
    scanned = _Scanned() if rebuild or not meta or meta.get("version") != VERSION else None   # every file parsed
    snap = scan(ctx.repo, store, texts=scanned)
    fp = _fingerprint(snap.fingerprint)
    with store.locked(LOCK):
        meta = _meta(store)
        quick = freshness.watch(ctx.repo, snap.files, racy_after)
        if meta and meta["fingerprint"] == fp and not rebuild:
            freshness.save(store, QUICK_REL, quick)
            return Index(store, meta)
        freshness.save(store, QUICK_REL, None)   # nothing vouches for the index while it is being rewritten
        idx = None
        old: dict[str, FileEntry] = {}
        trusted = meta if meta and meta.get("version") == VERSION and not rebuild else None
        if trusted:
            try:
                idx = _patch(ctx.repo, store, meta, snap.files, fp, complete=True)
                old = Index(store, meta).with_counts() if idx is None else {}
            except IndexDamaged as e:   # every shard is written anew: one may be damaged under a current digest
                damage, idx, old, trusted = e, None, {}, None
        if idx is None:
            idx = _build(ctx.repo, store, snap.files, old, fp, trusted, scanned)
        freshness.save(store, QUICK_REL, quick)
    if damage is not None:
        _say_rebuilt(damage)
    return idx


def _build(repo, store, files: dict[str, tuple[str, str]], old: dict[str, FileEntry], fp: str,
           trusted: dict | None, scanned: dict[str, bytes] | None = None) -> Index:
    """A full build: every file's entry (those of `old` whose blob id is the same reused), imports
    resolved, every shard written. `scanned`: the bytes of the text files the scan read (`_Scanned`). The cyclic garbage collector waits meanwhile: a build makes millions
    of lists, none in a cycle, and its passes over them cost a third of the build."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        entries, parsed = _entries(repo, files, old, scanned)
        from rt.index.resolve import resolve_all
        resolve_all(repo, entries, set(entries))
        return Index(store, _write(store, entries, fp, trusted), parsed)
    finally:
        if collecting:
            gc.enable()


def _refresh(repo, store, quick: freshness.Quick, now: freshness.Signature) -> Index | None:
    """Bring the index up to date with what changed since the quick check's state was kept
    (`freshness.changes`), without a scan. None when only a scan can tell, or another process updated
    the index meanwhile."""
    with store.locked(LOCK):
        meta = _meta(store)
        if not meta or meta.get("version") != VERSION or freshness.stored(store, QUICK_REL) != quick.stored:
            return None
        idx = Index(store, meta)
        found = freshness.changes(repo, idx, quick, now, _delta_limit(len(idx.base_paths)))
        idx = _patch(repo, store, meta, found.updates, None, complete=found.complete) if found else None
        if idx is not None:
            freshness.save(store, QUICK_REL, found.quick)
    return idx


def _delta_limit(files: int) -> int:
    """The most files the delta takes before a full update is cheaper: 5% of the build, at least 50."""
    return max(50, files // 20)


_CONFIGS = r"(^|/)((ts|js)config[^/]*\.json|go\.mod)$"
"""Files whose change can move import resolution anywhere: they force a full update. (Compiled by `re`'s cache
when the index is updated: a look-up on a current index compiles nothing.)"""


def _patch(repo, store, meta: dict, updates: dict[str, tuple[str, str] | None], fp: str | None, *,
           complete: bool = False) -> Index | None:
    """Record in the delta every file that differs from the last full build, and every file of that build
    whose imports resolve elsewhere now that files came or went, without loading the whole index.

    `updates` gives files' (blob id, kind) now; every file when `complete` (files missing from it are gone),
    else only those that changed, None for a file gone (the rest stay as the delta has them). `fp` is the
    tree's fingerprint, None when unknown (a refresh): the next scan then compares blob ids. None when a full
    update is needed: a tsconfig or go.mod changed, a file came or went whose importers no word tells (a
    package's `__init__.py`, a name of one letter), or the delta would grow large."""
    idx = Index(store, meta)
    delta, removed, in_base = idx.delta, idx.removed, idx._base_ids
    base_blob = idx.base_blobs.get if complete else idx.base_blob   # a few rows when only a few changed
    if complete:
        now = {p: blob for p, (blob, _) in updates.items()}
        removed = frozenset(in_base.keys() - now.keys())
    else:   # `updates` maps a file gone to None
        now = {p: e.blob for p, e in delta.items()} | {p: u[0] for p, u in updates.items() if u is not None}
        gone = {p for p, u in updates.items() if u is None}
        now = {p: blob for p, blob in now.items() if p not in gone}
        removed = (removed | {p for p in gone if p in in_base}) - now.keys()
    changed = [p for p in sorted(now) if base_blob(p) != now[p]]
    if len(changed) + len(removed) > _delta_limit(len(in_base)) or any(re.search(_CONFIGS, p) for p in [*changed, *removed]):
        return None
    new = {p: delta[p] for p in changed if p in delta and delta[p].blob == now[p]}
    added = {p for p in changed if p not in in_base}
    came_or_went = added != set(idx.added) or removed != idx.removed
    touched = set(changed) | removed
    moved = {p: e for p, e in delta.items()   # base files as built, their imports resolved anew (below)
             if p in in_base and p not in touched and e.blob == now.get(p)}
    if not came_or_went and new.keys() == set(changed) and delta.keys() == new.keys() | moved.keys():
        return Index(store, meta if fp in (None, meta["fingerprint"]) else _write_meta(store, dict(meta, fingerprint=fp)))
    from rt.index.resolve import Tree, resolve_all
    current = (in_base.keys() - removed) | now.keys()
    tree = Tree(repo, current)
    if came_or_went:   # an import of the delta's files, or of base files, may resolve elsewhere now
        resolve_all(repo, new, current, tree)
        cands = _import_candidates(idx, added, removed)
        if cands is None:
            return None
        rows = {p: idx.base_entry(p) for p in sorted(cands - touched)}
        moved = {p: e for p, e in rows.items() if e.imports}
        built_as = {p: e.resolved for p, e in moved.items()}
        resolve_all(repo, moved, current, tree)
        moved = {p: e for p, e in moved.items() if e.resolved != built_as[p]}   # the rest answer as the build does
        if len(changed) + len(removed) + len(moved) > _delta_limit(len(in_base)):
            return None
        for p, e in moved.items():
            e.terms = idx.base_counts(p)
    fresh, parsed = _entries(repo, {p: updates[p] for p in changed if p not in new}, {})
    resolve_all(repo, fresh, current, tree)
    new.update(fresh)
    new.update(moved)
    defs = meta["base_definitions"]
    for p in [*(new.keys() - moved.keys()), *removed]:   # each base row replaced or dropped; a moved one keeps its own
        defs += (len(new[p].defs) if p in new else 0) - (len(FileEntry.from_row(p, idx._shard("files", p)[p]).defs)
                                                        if p in in_base else 0)
    store.write_json(f"{DIR}/delta.json", {"files": {p: new[p].to_row() for p in sorted(new)}, "removed": sorted(removed),
                                           "terms": {p: new[p].terms or {} for p in sorted(new)}})
    return Index(store, _write_meta(store, dict(meta, fingerprint=fp, definitions=defs, files=len(current))), parsed)


def _import_candidates(idx: Index, added: set[str], removed: frozenset[str]) -> set[str] | None:
    """Files of the last full build whose imports may resolve elsewhere with `added` come and `removed` gone
    since (both against that build): the importers of every file gone, and the files holding every word of
    an added file's name (`resolve.target_words`) or importing its package (Go, Java). None when no word
    map can tell (a full update)."""
    from rt.index.resolve import target_words

    def built_importers(path: str) -> list[str]:   # as the build resolved them, not as the delta has them
        return idx._path_list(idx._shard("importers", path).get(path, []))

    cands: set[str] = set()
    for p in removed:
        cands.update(built_importers(p))
    packages = {p.rpartition("/")[0]: p.rpartition(".")[2] for p in added if p.endswith((".go", ".java"))}
    if packages:
        for p in idx.base_paths:
            folder, _, name = p.rpartition("/")
            if packages.get(folder) == name.rpartition(".")[2]:
                cands.update(built_importers(p))
    for p in added:
        words = target_words(p)
        if words is None:
            return None
        if words:
            cands.update(set.intersection(*(set(idx.with_word(w)) for w in words)))
    return cands & idx._base_ids.keys()


def _file_number(value) -> int:
    return value if isinstance(value, int) else value[0]


_META = ("fingerprint", "version", "shards", "tokens_per", "files", "base_files", "definitions", "base_definitions", "langs", "folders",
         "digests", "paths_crc", "crcs")
_SHAPES = {"blobs.json": {"blobs": list}, "delta.json": {"files": dict, "removed": list}}
"""What each JSON file of the index holds; a shard holds a map per kind of its family (FAMILY)."""


def built(store) -> bool:
    """Whether a full build of this version is stored: else the next `load` builds one from scratch."""
    meta = _meta(store)
    return meta is not None and meta.get("version") == VERSION


def _meta(store) -> dict | None:
    """The index's meta file; None when there is none or it is damaged (a damaged index is only a cache:
    it is built again) or of another version (`load` builds it again)."""
    try:
        meta = store.read_json(f"{DIR}/meta.json")
    except StoreError:
        return None
    if meta is None or meta.get("version") != VERSION:
        return meta
    return meta if all(k in meta for k in _META) else None


def _crc(meta: dict, name: str) -> int | None:
    """The CRC-32 the build recorded for one of its files (a shard, blobs.json, rankstats): they are
    written without fsync, so after a crash one may hold an older build's bytes. None for delta.json,
    written durably by every update."""
    if name in meta["crcs"]:
        return meta["crcs"][name]
    family = meta["digests"].get(name[0])
    number = name[1:].partition(".")[0]   # every digit: shard 1000 is `s1000.json`, not shard 100
    return family[int(number)] if family and number.isdigit() and int(number) < len(family) else None


def _part(store, name: str, crc: int | None = None) -> dict:
    """One JSON file of the index, with the shape its readers expect; IndexDamaged when it is not."""
    try:
        data = store.read_json(f"{DIR}/{name}", crc=crc)
    except StoreError:
        data = False
    shape = _SHAPES.get(name) or {k: dict for k in KINDS if FAMILY[k] == name[0]}
    if not data or any(not isinstance(data.get(k), t) for k, t in shape.items()):
        why = "missing" if data is None else "unreadable (cut short?)" if data is False else "not what its build wrote"
        raise IndexDamaged(f"the index is damaged: .rt/{DIR}/{name} is {why}")
    data.pop("schema", None)
    return data


def _say_rebuilt(error: IndexDamaged) -> None:
    print(f"rt: {error}; rebuilt it from the tree", file=sys.stderr, flush=True)


def recover(ctx, error: IndexDamaged) -> None:
    """Build the index again after a look-up found it damaged (it is only a cache), and say so."""
    load(ctx, rebuild=True)
    _say_rebuilt(error)


REREADS = 3
"""Times a look-up is asked again while other builds keep replacing the index under it."""


def retried(ctx, ask, error: IndexDamaged):
    """`ask()`'s answer after it met `error`: asked again at once where another rt's build replaced the index
    (IndexReplaced: its files are sound, and a fresh load reads them), else after building the damaged index again."""
    for _ in range(REREADS):
        if not isinstance(error, IndexReplaced):
            recover(ctx, error)
            return ask()
        try:
            return ask()
        except IndexDamaged as e:
            error = e
    raise error


def damaged(store) -> list[str]:
    """The damaged or missing files of the current index (names in `.rt/index/`), for `rt repair`;
    [] when it is sound, absent, or of another version (rebuilt at its next use anyway)."""
    if not os.path.lexists(store.path(DIR, "meta.json")):
        return []
    meta = _meta(store)   # None too for a folder or a link of that name
    if meta is None:
        return ["meta.json"]
    if meta["version"] != VERSION:
        return []
    bad = []
    quick = store.path(DIR, QUICK)
    if os.path.lexists(quick) and (not quick.is_file() or freshness.read(store, QUICK_REL) is None):
        bad.append(QUICK)
    idx = Index(store, meta)
    names = [f"{fam}{i:03d}.json" for fam in sorted(set(FAMILY.values())) for i in range(meta["shards"])]
    for name in names + ["blobs.json", "delta.json"]:
        try:
            idx._read(name)
        except IndexDamaged:
            bad.append(name)
    try:
        idx.base_paths
    except IndexDamaged:
        bad.append(PATHS)
    for part in range(len(meta["digests"].get(TOKENS, []))):
        name = f"{TOKENS}{part:03d}"
        try:
            if PATHS in bad:   # its lines cannot be counted: its checksum alone
                if zlib.crc32(store.read_bytes(f"{DIR}/{name}")) != _crc(meta, name):
                    bad.append(name)
            else:
                idx._token_lines(part)
        except (IndexDamaged, FileNotFoundError):
            bad.append(name)
    if not {PATHS, "blobs.json"} & set(bad):
        try:
            idx.base_blobs
        except IndexDamaged:
            bad.append("blobs.json")
    if PATHS not in bad:
        try:
            idx._stats
        except IndexDamaged:
            bad.append(STATS)
    return sorted(bad)


def _entries(repo, files: dict[str, tuple[str, str]], old: dict[str, FileEntry],
             scanned: dict[str, bytes] | None = None) -> tuple[dict[str, FileEntry], int]:
    """An entry for every file of `files` (path -> (blob id, kind)), sorted by path: those of `old` whose
    blob id is the same reused, the rest read (but those `scanned` holds the bytes of) and parsed (in a
    process pool when many); and how many files were parsed."""
    reused: dict[str, FileEntry] = {}
    todo: list[tuple[str, str, str]] = []
    for path in sorted(files):
        blob, kind = files[path]
        prev = old.get(path)
        if prev is not None and prev.blob == blob:
            if prev.terms is None:   # an index built before the counts were kept
                prev.terms = _text_terms(prev, read_text(repo, path) or "")
            reused[path] = prev
        else:
            todo.append((path, blob, kind))
    fresh = {e.path: e for e in parse_all(str(repo.root), todo, scanned=scanned)}
    parsed = sum(1 for e in fresh.values() if e.note not in ("binary", "large", "link", "submodule", "unreadable"))
    return {p: reused.get(p) or fresh[p] for p in sorted(files)}, parsed


WORKERS = min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1, 8)
"""Processes that parse a large build at once: the cores this process may use, at most 8. This one is among them:
it parses the tasks no worker has taken yet, from the last, with no copy sent back, as the `WORKERS - 1` workers
parse from the first."""
POOL_FROM = 256
"""Files to parse from which a process pool pays for its start-up; fewer are parsed here."""
CHUNK = 64
"""Files per pool task at least: enough to spread the per-task cost."""
TASKS = 8
"""Pool tasks per worker: enough to keep every worker busy to the end; more cost more (each is queued, sent,
answered and put back in order: on gen20k's 20,401 files, tasks of 64 files cost half a second of CPU more)."""


def parse_all(root: str, todo: list[tuple[str, str, str]], counts: bool = True, ctags: bool = True,
              scanned: dict[str, bytes] | None = None) -> list[FileEntry]:
    """The entries of `todo`'s files (path, blob id, kind), in its order; without `counts`, no ranking word
    counts (`FileEntry.terms`: a partial index counts from the bytes itself); without `ctags`, no definitions
    from it (the partial index has them already, `Partial._tag`). Many files are parsed by a pool
    of processes in chunks, put back in order, so the index is the same as a serial build's, byte for
    byte; where no pool can start (no fork, no semaphores) they are parsed here. `scanned` holds the bytes
    of text files just read (by the scan, which checked them against their blob ids): those are not read
    again (forked workers inherit it, nothing is sent them)."""
    global _SCANNED
    _SCANNED = scanned or {}
    try:
        return _parse_all(root, todo, counts, ctags)
    finally:
        _SCANNED = {}


_SCANNED: dict[str, bytes] = {}
"""`parse_all`'s `scanned` while it runs."""


class _Scanned(dict):
    """The bytes of the text files a scan reads (`scan`'s `texts`), for a build to parse without reading them
    again (on a cold build the scan reads every file, to learn its kind): the first `CAP` bytes' worth."""

    CAP = 256 << 20

    def __init__(self):
        super().__init__()
        self.size = 0

    def __setitem__(self, path: str, data: bytes) -> None:
        self.size += len(data)
        if self.size <= self.CAP:
            super().__setitem__(path, data)


def _parse_all(root: str, todo: list[tuple[str, str, str]], counts: bool, ctags: bool) -> list[FileEntry]:
    if WORKERS < 2 or len(todo) < POOL_FROM:
        return _parse_chunk(root, todo, counts, ctags)
    size = max(CHUNK, -(-len(todo) // (WORKERS * TASKS)))
    chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
    try:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        from concurrent.futures.process import BrokenProcessPool
        for name in ("clike", "i18n", "langs", "python", "tags", "terms"):   # imported once, before the fork
            __import__(f"rt.index.{name}")
        method = "fork" if sys.platform == "linux" else None   # fork: no re-import; elsewhere the platform's own
        with ProcessPoolExecutor(WORKERS - 1, mp_context=multiprocessing.get_context(method)) as pool:
            futures = [pool.submit(_parse_packed, root, chunk, counts, ctags) for chunk in chunks]
            here: dict[int, list[FileEntry]] = {}
            for i in range(len(chunks) - 1, -1, -1):   # this process parses from the end the tasks no worker took
                if not futures[i].cancel():
                    break
                here[i] = _parse_chunk(root, chunks[i], counts, ctags)
            return [e for i, f in enumerate(futures) for e in (here[i] if i in here else map(_unpacked, f.result()))]
    except (OSError, ImportError, BrokenProcessPool):
        return _parse_chunk(root, todo, counts, ctags)


def _parse_packed(root: str, todo: list[tuple[str, str, str]], counts: bool, ctags: bool) -> list[tuple]:
    """`_parse_chunk` in a pool's worker: its entries as `_packed` tuples, which cost a third of what the objects
    cost to pickle there and back."""
    return [_packed(e) for e in _parse_chunk(root, todo, counts, ctags)]


_SEP = "\0"
"""Between the words of a list sent as one string: no identifier, word or ranking key holds it."""


def _joined(words: list[str]) -> str | list[str]:
    """`words` as one string when `_split` gives them back from it (no word holds `_SEP`), else as they are."""
    if len(words) < 2:
        return words
    s = _SEP.join(words)
    return s if s.count(_SEP) == len(words) - 1 else words


def _split(s: str | list[str]) -> list[str]:
    return s.split(_SEP) if type(s) is str else s


def _packed(e: FileEntry) -> tuple:
    terms = e.terms
    return (e.path, e.lang, e.lines, [d.row() for d in e.defs], e.imports, e.resolved, _joined(e.idents),
            _joined(e.words), e.keys, e.note, e.blob, None if terms is None else _joined(list(terms)),
            None if terms is None else list(terms.values()))


def _unpacked(row: tuple) -> FileEntry:
    path, lang, lines, defs, imports, resolved, idents, words, keys, note, blob, keys_counted, counts = row
    e = FileEntry(path, lang, lines, [Definition(*d) for d in defs], imports, resolved, _split(idents), _split(words),
                  keys, note, blob)
    if counts is not None:
        e.terms = dict(zip(_split(keys_counted), counts))
    return e


def _parse_chunk(root: str, todo: list[tuple[str, str, str]], counts: bool = True, ctags: bool = True) -> list[FileEntry]:
    """Read and parse each file of `todo` (path, blob id, kind): what one pool task does."""
    from rt.core import Repo
    from rt.index import langs, tags
    repo = Repo(root, False)
    out = []
    tagged = []   # (path, language, text) of the files whose definitions ctags gives
    scanned = _SCANNED
    for path, blob, kind in todo:
        lang, kind = langs.language(path), content_kind(kind)
        data = scanned.get(path) if kind == "text" else None
        text = decode(data) if data is not None else read_text(repo, path) if kind == "text" else None
        if text is None:
            out.append(FileEntry(path, lang, 0, [], [], note=kind if kind != "text" else "unreadable", blob=blob))
            continue
        p = langs.parse(path, lang, text)
        lines = line_count(text)
        e = FileEntry(path, lang, lines, p.defs, p.imports, [], p.idents,
                      [] if p.note in langs.UNREAD else langs.words(text), sorted(set(p.keys)), p.note, blob)
        e.terms = _text_terms(e, text) if counts else None
        out.append(e)
        if ctags and lang in tags.TAGGED and p.note not in langs.UNREAD:
            tagged.append((path, lang, text))
    if tagged:
        found = tags.definitions(root, tagged)
        for e in out:
            e.defs = found.get(e.path, e.defs)
    return out


def line_count(text):
    """Lines of a file's text (str or bytes): a last line without a newline counts."""
    nl = "\n" if isinstance(text, str) else b"\n"
    return text.count(nl) + (0 if text.endswith(nl) or not text else 1)


def _text_terms(e: FileEntry, text: str) -> dict[str, int]:
    """The ranking's word counts of a file's text; none for a minified one or a build's output."""
    from rt.index import terms
    from rt.index.i18n import ranked_text
    from rt.index.langs import UNREAD
    return {} if e.note in UNREAD else terms.text_counts(ranked_text(e.lang, text))


def _write(store, entries: dict[str, FileEntry], fp: str, old_meta: dict | None) -> dict:
    """Write every shard whose content changed, then the meta file that makes them current.

    The shards are a cache: written without fsync, each one's CRC-32 kept in the meta file, which is
    written last and durably; a shard a crash cut short or left from an older build fails its CRC when
    read (IndexDamaged: built again)."""
    es = list(entries.values())
    n = shard_count(sum(len(e.idents) + len(e.words) + len(e.keys) + 8 * len(e.defs) + len(e.resolved)
                        + 2 * len(e.terms or ()) for e in es))
    shards = {fam: [{k: {} for k in KINDS if FAMILY[k] == fam} for _ in range(n)] for fam in sorted(set(FAMILY.values()))}
    encode = partial(str.encode, encoding="utf-8", errors="surrogateescape")
    for kind, m in _maps(entries, es):   # each key to its shard (`shard_of`), the checksums taken in C
        family = [shard[kind] for shard in shards[FAMILY[kind]]]
        for key, value, crc in zip(m, m.values(), map(zlib.crc32, map(encode, m))):
            family[crc % n][key] = value
    defs = sum(len(e.defs) for e in es)
    old = (old_meta or {}).get("digests", {}) if (old_meta or {}).get("shards") == n else {}
    digests: dict[str, list[int]] = {}
    store.ensure()
    for fam, family in shards.items():
        digests[fam] = []
        for i, shard in enumerate(family):
            name = f"{fam}{i:03d}.json"
            raw = json_bytes(shard)
            digest = zlib.crc32(raw)
            digests[fam].append(digest)
            if old.get(fam, [None] * n)[i] != digest or not store.path(DIR, name).is_file():
                store.write_bytes(store.path(DIR, name), raw, durable=False)
    digests[TOKENS] = []
    for part in range(-(-len(es) // TOKENS_PER)):
        name = f"{TOKENS}{part:03d}"
        lines = []
        for e in es[part * TOKENS_PER:(part + 1) * TOKENS_PER]:
            counts = e.terms or {}
            lines += (_line(e.idents), _line(e.words), _line(list(counts)), " ".join(map(str, counts.values())))
        raw = "\n".join(lines).encode("utf-8", "surrogatepass")
        digest = zlib.crc32(raw)
        digests[TOKENS].append(digest)
        if old.get(TOKENS, [])[part:part + 1] != [digest] or not store.path(DIR, name).is_file():
            store.write_bytes(store.path(DIR, name), raw, durable=False)
    _drop_extra(store, n, len(digests[TOKENS]))
    paths = "\0".join(entries).encode("utf-8", "surrogateescape")
    store.write_bytes(store.path(DIR, PATHS), paths, durable=False)
    crcs = {"blobs.json": store.write_json(f"{DIR}/blobs.json", {"blobs": [e.blob for e in entries.values()]},
                                           durable=False)}
    cap = 2 ** 32 - 1
    stats = array("I", [min(cap, x) for x in (
        [e.lines for e in entries.values()] + [sum((e.terms or {}).values()) for e in entries.values()])]).tobytes()
    store.write_bytes(store.path(DIR, STATS), stats, durable=False)
    crcs[STATS] = zlib.crc32(stats)
    store.write_json(f"{DIR}/delta.json", {"files": {}, "removed": []})
    langs = Counter(e.lang for e in entries.values())
    from rt.index.langs import folder_counts
    folders = [[folder, lang, count] for (folder, lang), count in sorted(folder_counts(entries).items())]
    return _write_meta(store, {"fingerprint": fp, "version": VERSION, "shards": n, "tokens_per": TOKENS_PER,
                               "files": len(entries),
                               "base_files": len(entries),
                               "definitions": defs, "base_definitions": defs, "langs": dict(sorted(langs.items())),
                               "folders": folders,
                               "digests": digests, "paths_crc": zlib.crc32(paths), "crcs": crcs})


def _maps(entries: dict[str, FileEntry], es: list[FileEntry]):
    """(kind, its whole map) for every kind of a full build, one kind at a time: what `_postings` gives file by
    file (and the rows), gathered kind by kind in tight loops (a build makes about a million postings). `entries` are sorted by
    path, so every posting list comes out sorted, each file's values in its own order."""
    from rt.index import terms
    ids = {p: i for i, p in enumerate(entries)}
    yield "files", {e.path: e.to_row(tokens=False) for e in es}
    yield "resolved", {e.path: [ids[t] for t in e.resolved if t in ids] for e in es}
    for kind in ("idents", "words", "keys"):
        m: dict[str, list] = {}
        get = m.get
        for fid, e in enumerate(es):
            for key in getattr(e, kind):
                got = get(key)
                if got is None:
                    m[key] = [fid]
                else:
                    got.append(fid)
        yield kind, m
    m = {}
    get = m.get
    for fid, e in enumerate(es):
        for d in e.defs:
            value = [fid, d.name, d.kind, d.start, d.end, d.signature, d.parent]
            got = get(d.name)
            if got is None:
                m[d.name] = [value]
            else:
                got.append(value)
    yield "defs", m
    m = {}
    get = m.get
    for fid, e in enumerate(es):
        for key in e.resolved:
            if key != e.path:
                got = get(key)
                if got is None:
                    m[key] = [fid]
                else:
                    got.append(fid)
    yield "importers", m
    for kind in terms.KINDS:
        m = {}
        get = m.get
        for fid, e in enumerate(es):
            for key, c in _rank_counts(kind, e.path, e).items():
                value = fid if c == 1 else [fid, c]
                got = get(key)
                if got is None:
                    m[key] = [value]
                else:
                    got.append(value)
        yield kind, m


def _postings(path: str, fid: int, e: FileEntry):
    """(kind, keys, values) of the postings of one file of the delta (number `fid`), as a full build makes them
    (`_maps`): `values` holds each key's value, or is None when every key's is the file number."""
    yield "idents", e.idents, None
    yield "words", e.words, None
    yield "keys", e.keys, None
    yield "defs", [d.name for d in e.defs], [[fid, d.name, d.kind, d.start, d.end, d.signature, d.parent] for d in e.defs]
    yield "importers", [target for target in e.resolved if target != path], None
    yield from _rank_postings(path, fid, e)


def _rank_postings(path: str, fid: int, e: FileEntry):
    """The ranking's postings of one file (`terms.py`): a count of 1 is stored as the bare file number."""
    from rt.index import terms
    for kind in terms.KINDS:
        counts = _rank_counts(kind, path, e)
        yield kind, counts.keys(), [fid if n == 1 else [fid, n] for n in counts.values()]


def _rank_counts(kind: str, path: str, e: FileEntry) -> dict[str, int]:
    """One file's ranking counts of one kind (`terms.KINDS`), for a full build's postings (`_maps`) and a delta's
    alike. A build's output and a minified file are never ranked, not even by their paths (Alamofire's
    docs/Classes/Session.html)."""
    from rt.index import terms
    from rt.index.langs import UNREAD
    if kind == "terms":
        return e.terms or {}
    if kind == "pterms":
        return {} if e.note in UNREAD else terms.path_keys(path)
    return terms.name_counts([d.name for d in e.defs])


def _line(words: list[str]) -> str:
    """One line of a token file: `words` joined by spaces; when a word holds a space or a line break (or the list
    is [""]), a NUL then the list in JSON (`_unline` reads either)."""
    s = " ".join(words)
    if s.count(" ") == len(words) - 1 and "\n" not in s and (s or not words) and not s.startswith("\0"):
        return s
    import json
    return "\0" + json.dumps(words)


def _unline(line: str) -> list[str]:
    if not line:
        return []
    if line[0] == "\0":
        import json
        words = json.loads(line[1:])
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise ValueError
        return words
    return line.split(" ")


def _write_meta(store, meta: dict) -> dict:
    store.write_json(f"{DIR}/meta.json", meta)
    return store.read_json(f"{DIR}/meta.json")


def _drop_extra(store, n: int, tokens: int) -> None:
    """Files an earlier build left (more shards, another layout) are never read again; remove them."""
    keep = ({"meta.json", PATHS, QUICK, "blobs.json", "delta.json", STATS} | {f"{fam}{i:03d}.json" for fam in FAMILY.values() for i in range(n)}
            | {f"{TOKENS}{i:03d}" for i in range(tokens)})
    folder = store.path(DIR)
    if os.path.islink(folder):   # never unlink through a link (`load` refuses an index folder that is one)
        return
    for name in os.listdir(folder):
        if name not in keep and not name.startswith("."):
            os.unlink(folder / name)


# ---------------------------------------------------------------- rt index

def args_index(p) -> None:
    p.add_argument("--rebuild", action="store_true", help="parse every file again instead of only the changed ones")


def cmd_index(ctx, args) -> Result:
    idx = load(ctx, rebuild=args.rebuild)
    m = idx.meta
    lines = [f"index: {counted(m['files'], 'file')}, {counted(m['definitions'], 'definition')} "
             f"({counted(idx.parsed, 'file')} parsed now)"]
    lines += [f"  {lang:<12} {count}" for lang, count in sorted(idx.langs.items(), key=lambda kv: (-kv[1], kv[0]))]
    from rt.index import tags
    untagged = tags.unread(lang for lang in idx.langs if lang in tags.TAGGED)
    if untagged and tags.program() is None:   # the user can do something about it
        lines.append(f"{', '.join(untagged)}: words only; their definitions come from Universal Ctags "
                     "(install it, then `rt index --rebuild`)")
    elif untagged:
        lines.append(f"{', '.join(untagged)}: words only; the installed ctags has no parser for them")
    return Result("\n".join(lines), {"files": m["files"], "definitions": m["definitions"], "parsed": idx.parsed,
                                     "langs": idx.langs, "words_only": untagged})
