"""The repository index: per file its language, definitions, imports and identifiers, kept up to date cheaply.

The snapshot's stat cache says which files changed (`scan()` gives each file's blob id); only those are
parsed again. The index is stored under `.rt/index/` in hash shards, each holding every look-up kind
(identifier -> files, name -> definitions, file -> importers, ...) for its keys, so a look-up reads one
small shard, not the index. In git, `git diff-files` and the folders' stat data tell whether anything
changed since the last look-up, so a warm look-up neither lists nor hashes the tree.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import zlib
from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property

from rt.core import Result, StoreError, git, read_text
from rt.lang_resolve import resolve_all
from rt.snapshot import fingerprint, scan

VERSION = 7
"""Bump when an extractor changes what it records: every file is parsed again."""

DIR = "index"
KINDS = ("files", "idents", "words", "defs", "importers", "keys", "resolved")
FAMILY = {"files": "f", "words": "w", "idents": "s", "defs": "s", "importers": "s", "keys": "s", "resolved": "s"}
ROWS = frozenset({"files", "resolved"})
"""Kinds keyed by path with one value per file; the others are posting lists."""
"""Which shard file holds a kind: file rows, the word map for `rt find`, and the symbol maps apart,
so a symbol look-up never parses file rows or words."""


@dataclass
class Definition:
    name: str
    kind: str          # function, method, class, interface, type, enum, constant, component, struct, trait ...
    start: int         # lines, 1-based, inclusive
    end: int
    signature: str     # the declaring line, stripped
    parent: str        # enclosing class/type, dotted, or ""


@dataclass
class FileEntry:
    path: str
    lang: str
    lines: int
    defs: list[Definition]
    imports: list[str]                                  # raw specifiers, sorted
    resolved: list[str] = field(default_factory=list)   # repository paths the imports resolve to, sorted
    idents: list[str] = field(default_factory=list)     # sorted unique identifiers in code
    words: list[str] = field(default_factory=list)      # sorted unique lower-case words of the whole text
    keys: list[str] = field(default_factory=list)       # translation keys the code uses, sorted
    note: str = ""     # "" or why the file is indexed only partly: binary, large, minified, generated, syntax-error
    blob: str = ""

    def to_row(self) -> list:
        return [self.lang, self.lines, [[d.name, d.kind, d.start, d.end, d.signature, d.parent] for d in self.defs],
                self.imports, self.resolved, self.idents, self.words, self.keys, self.note, self.blob]

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
    """A loaded index: the shards of the last full build, overlaid with the files edited since (the delta).

    Look-ups read only the shard that holds their key, and the small delta; `files` reads everything.
    Posting lists hold file numbers (positions in the sorted `paths`), not paths, to stay small.
    """

    def __init__(self, store, meta: dict, parsed: int = 0):
        self.store = store
        self.meta = meta
        self.shards = meta["shards"]
        self.parsed = parsed
        self._cache: dict[str, dict] = {}

    def _read(self, name: str) -> dict:
        if name not in self._cache:
            data = self.store.read_json(f"{DIR}/{name}", missing="the index is incomplete; run `rt index --rebuild`")
            data.pop("schema", None)
            self._cache[name] = data
        return self._cache[name]

    def _shard(self, kind: str, key: str) -> dict:
        return self._read(f"{FAMILY[kind]}{shard_of(key, self.shards):03d}.json")[kind]

    @cached_property
    def paths(self) -> list[str]:
        """Every indexed path, sorted; a path's position is its file number."""
        return self._read("paths.json")["paths"]

    @cached_property
    def _ids(self) -> dict[str, int]:
        return {p: i for i, p in enumerate(self.paths)}

    @cached_property
    def base_blobs(self) -> dict[str, str]:
        """Each path with the blob id the last full build saw."""
        return dict(zip(self.paths, self._read("blobs.json")["blobs"]))

    @cached_property
    def delta(self) -> dict[str, FileEntry]:
        """Files whose content changed since the last full build, as they are now."""
        return {p: FileEntry.from_row(p, row) for p, row in self._read("delta.json")["files"].items()}

    @cached_property
    def _delta_postings(self) -> dict[tuple[str, str], list]:
        out: dict[tuple[str, str], list] = {}
        for path, e in self.delta.items():
            for kind, key, value in _postings(path, self._ids[path], e):
                out.setdefault((kind, key), []).append(value)
        return out

    def _lookup(self, kind: str, key: str) -> list:
        base = self._shard(kind, key).get(key, [])
        if not self.delta:
            return base
        edited = {self._ids[p] for p in self.delta}
        out = [v for v in base if _file_number(v) not in edited] + self._delta_postings.get((kind, key), [])
        return sorted(out, key=_file_number)   # stable: a file's definitions keep their order

    @cached_property
    def files(self) -> dict[str, FileEntry]:
        out: dict[str, FileEntry] = {}
        for i in range(self.shards):
            for path, row in self._read(f"{FAMILY['files']}{i:03d}.json")["files"].items():
                out[path] = FileEntry.from_row(path, row)
        out.update(self.delta)
        return dict(sorted(out.items()))

    def entry(self, path: str) -> FileEntry | None:
        if path in self.delta:
            return self.delta[path]
        row = self._shard("files", path).get(path)
        return FileEntry.from_row(path, row) if row is not None else None

    def imports_of(self, path: str) -> list[str]:
        """The repository files `path` imports, sorted: its entry's `resolved`, read from a small shard."""
        if path in self.delta:
            return self.delta[path].resolved
        return [self.paths[i] for i in self._shard("resolved", path).get(path, [])]

    def importers(self, path: str) -> list[str]:
        """Files whose imports resolve to `path`, sorted."""
        return [self.paths[i] for i in self._lookup("importers", path)]

    def definitions(self, name: str) -> list[tuple[str, Definition]]:
        """(path, definition) for every definition named `name`, by path then line."""
        return [(self.paths[r[0]], Definition(*r[1:])) for r in self._lookup("defs", name)]

    def users(self, ident: str) -> list[str]:
        """Files whose code has the identifier `ident` (case-sensitive), sorted."""
        return [self.paths[i] for i in self._lookup("idents", ident)]

    def with_word(self, word: str) -> list[str]:
        """Files whose text has the lower-case word `word`, sorted."""
        return [self.paths[i] for i in self._lookup("words", word)]

    def key_users(self, key: str) -> list[str]:
        """Files whose code uses the translation key `key`, sorted."""
        return [self.paths[i] for i in self._lookup("keys", key)]


# ---------------------------------------------------------------- building

def load(ctx, *, rebuild: bool = False) -> Index:
    """The index of the tree as it is now: built on first use, then updated for changed files only."""
    store = ctx.store
    meta = _meta(store)
    if meta and not rebuild and meta.get("version") == VERSION and meta.get("quick") \
            and meta["quick"] == _git_signature(ctx.repo, meta):
        return Index(store, meta)
    snap = scan(ctx.repo, store)
    fp = f"{VERSION}:{fingerprint(snap.files)}"
    with store.locked():
        meta = _meta(store)
        fresh = _freshness(ctx.repo, snap.files)
        if meta and meta["fingerprint"] == fp and not rebuild:
            if {k: meta.get(k) for k in fresh} != fresh:
                meta = _write_meta(store, dict(meta, **fresh))
            return Index(store, meta)
        if meta and meta.get("version") == VERSION and not rebuild:
            patched = _patch(ctx.repo, store, meta, snap.files, dict(fresh, fingerprint=fp))
            if patched:
                return patched
        old: dict[str, FileEntry] = {}
        if meta and meta.get("version") == VERSION and not rebuild:
            try:
                old = Index(store, meta).files
            except StoreError:
                old = {}
        entries, parsed = _entries(ctx.repo, snap.files, old)
        resolve_all(ctx.repo, entries, set(entries))
        meta = _write(store, entries, dict(fresh, fingerprint=fp), meta)
    return Index(store, meta, parsed)


_CONFIGS = re.compile(r"(^|/)((ts|js)config[^/]*\.json|go\.mod)$")
"""Files whose change can move import resolution anywhere: they force a full update."""


def _patch(repo, store, meta: dict, files: dict[str, tuple[str, str]], state: dict) -> Index | None:
    """Record the files whose content changed since the last full build in the delta, when no file came
    or went: the common case after an edit, done without loading the whole index. None when a full
    update is needed (files added or removed, a tsconfig or go.mod changed, or a large delta)."""
    idx = Index(store, meta)
    try:
        base, delta = idx.base_blobs, idx.delta
    except StoreError:
        return None
    if list(files) != idx.paths:
        return None
    changed = [p for p, (blob, _) in files.items() if base[p] != blob]
    if len(changed) > max(50, len(files) // 20) or any(_CONFIGS.search(p) for p in changed):
        return None
    new = {p: delta[p] for p in changed if p in delta and delta[p].blob == files[p][0]}
    fresh, parsed = _entries(repo, {p: files[p] for p in changed if p not in new}, {})
    resolve_all(repo, fresh, set(files))
    new.update(fresh)
    defs = meta["base_definitions"]
    for p, e in new.items():
        defs += len(e.defs) - len(FileEntry.from_row(p, idx._shard("files", p)[p]).defs)   # base rows
    store.write_json(f"{DIR}/delta.json", {"files": {p: new[p].to_row() for p in sorted(new)}})
    return Index(store, _write_meta(store, dict(meta, **state, definitions=defs)), parsed)


def _file_number(value) -> int:
    return value if isinstance(value, int) else value[0]


# ---------------------------------------------------------------- is the index current?

def _freshness(repo, files: dict) -> dict:
    """What the quick check compares next time: the folders holding indexed files, the indexed files
    git does not track, and the signature of the tree as it is now."""
    tracked = git(repo.root, "ls-files", "-z") if repo.is_git else None
    if tracked is None:
        return {"quick": None, "dirs": [], "untracked": []}
    known = {os.fsdecode(p) for p in tracked.split(b"\x00") if p}
    state = {"dirs": sorted({os.path.dirname(p) for p in files} | {""}),
             "untracked": sorted(p for p in files if p not in known)}
    return dict(state, quick=_git_signature(repo, state))


def _git_signature(repo, state: dict) -> str | None:
    """A digest that changes whenever the tree's content may have, without reading every file: git's
    index file, the tracked files whose stat data no longer matches it (`git diff-files`), and the stat
    data of those files, of the untracked indexed files and of every folder holding indexed files (a
    file added or removed changes its folder). None outside git."""
    if not repo.is_git:
        return None
    gitdir = repo.root / ".git"
    if gitdir.is_file():   # a linked worktree: `.git` names the real folder
        line = gitdir.read_text(encoding="utf-8", errors="replace").strip()
        gitdir = (repo.root / line.removeprefix("gitdir:").strip()).resolve()
    known = [str(gitdir / "index")] + [os.path.join(repo.root, r) for r in state.get("untracked", []) + state.get("dirs", [])]
    stats: list[bytes] = []
    worker = threading.Thread(target=lambda: stats.append(_stat_data(known)))   # while git runs
    worker.start()
    out = git(repo.root, "diff-files", "--name-only", "-z")
    worker.join()
    if out is None:
        return None
    changed = [os.path.join(repo.root, os.fsdecode(p)) for p in out.split(b"\x00") if p]
    return hashlib.sha1(out + stats[0] + _stat_data(changed)).hexdigest()


def _stat_data(paths: list[str]) -> bytes:
    out = []
    for p in paths:
        try:
            st = os.lstat(p)
            out.append(b"%d %d %d\n" % (st.st_size, st.st_mtime_ns, st.st_ino))
        except OSError:
            out.append(b"-\n")
    return b"".join(out)


def _meta(store) -> dict | None:
    try:
        return store.read_json(f"{DIR}/meta.json")
    except StoreError:
        return None  # a damaged index is only a cache: build it again


def _entries(repo, files: dict[str, tuple[str, str]], old: dict[str, FileEntry]) -> tuple[dict[str, FileEntry], int]:
    from rt import langs
    entries: dict[str, FileEntry] = {}
    parsed = 0
    for path in sorted(files):
        blob, kind = files[path]
        prev = old.get(path)
        if prev is not None and prev.blob == blob:
            entries[path] = prev
            continue
        lang = langs.language(path)
        text = read_text(repo, path) if kind == "text" else None
        if text is None:
            entries[path] = FileEntry(path, lang, 0, [], [], note=kind if kind != "text" else "unreadable", blob=blob)
            continue
        parsed += 1
        p = langs.parse(path, lang, text)
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        entries[path] = FileEntry(path, lang, lines, p.defs, p.imports, [], p.idents,
                                  [] if p.note == "minified" else langs.words(text), sorted(set(p.keys)), p.note, blob)
    return entries, parsed


def _write(store, entries: dict[str, FileEntry], state: dict, old_meta: dict | None) -> dict:
    """Write every shard whose content changed, then the meta file that makes them current."""
    n = shard_count(sum(len(e.idents) + len(e.words) + len(e.keys) + 8 * len(e.defs) + len(e.resolved)
                        for e in entries.values()))
    shards = {fam: [{k: {} for k in KINDS if FAMILY[k] == fam} for _ in range(n)] for fam in sorted(set(FAMILY.values()))}
    where: dict[str, int] = {}   # key -> its shard number; the same identifiers recur in most files
    defs = 0
    ids = {p: i for i, p in enumerate(entries)}
    for fid, (path, e) in enumerate(entries.items()):   # sorted by path, so every posting list comes out sorted
        for kind, key, value in _postings(path, fid, e, ids):
            i = where.get(key)
            if i is None:
                i = where[key] = shard_of(key, n)
            if kind in ROWS:
                shards[FAMILY[kind]][i][kind][key] = value
            else:
                shards[FAMILY[kind]][i][kind].setdefault(key, []).append(value)
        defs += len(e.defs)
    old = (old_meta or {}).get("digests", {}) if (old_meta or {}).get("shards") == n else {}
    digests: dict[str, list[int]] = {}
    store.ensure()
    for fam, family in shards.items():
        digests[fam] = []
        for i, shard in enumerate(family):
            digest = _digest(shard)
            digests[fam].append(digest)
            name = f"{fam}{i:03d}.json"
            if old.get(fam, [None] * n)[i] != digest or not store.path(DIR, name).is_file():
                store.write_json(f"{DIR}/{name}", shard)
    _drop_extra(store, n)
    store.write_json(f"{DIR}/paths.json", {"paths": list(entries)})
    store.write_json(f"{DIR}/blobs.json", {"blobs": [e.blob for e in entries.values()]})
    store.write_json(f"{DIR}/delta.json", {"files": {}})
    langs = Counter(e.lang for e in entries.values())
    return _write_meta(store, dict(state, version=VERSION, shards=n, files=len(entries), definitions=defs,
                                   base_definitions=defs, langs=dict(sorted(langs.items())), digests=digests))


def _postings(path: str, fid: int, e: FileEntry, ids: dict[str, int] | None = None):
    """(kind, key, value) of everything one file (number `fid`) puts in the shards."""
    yield "files", path, e.to_row()
    if ids is not None:
        yield "resolved", path, [ids[t] for t in e.resolved if t in ids]
    for ident in e.idents:
        yield "idents", ident, fid
    for w in e.words:
        yield "words", w, fid
    for k in e.keys:
        yield "keys", k, fid
    for d in e.defs:
        yield "defs", d.name, [fid, d.name, d.kind, d.start, d.end, d.signature, d.parent]
    for target in e.resolved:
        if target != path:
            yield "importers", target, fid


def _digest(shard: dict) -> int:
    return zlib.crc32(json.dumps(shard, sort_keys=True, separators=(",", ":")).encode("utf-8", "surrogateescape"))


def _write_meta(store, meta: dict) -> dict:
    store.write_json(f"{DIR}/meta.json", meta)
    return store.read_json(f"{DIR}/meta.json")


def _drop_extra(store, n: int) -> None:
    """Shards left by an earlier build with more shards (or another layout) are never read; remove them."""
    folder = store.path(DIR)
    for name in os.listdir(folder):
        stem = name[:-5]
        if name.endswith(".json") and stem[-3:].isdigit() and (stem[:-3] not in FAMILY.values() or int(stem[-3:]) >= n):
            os.unlink(folder / name)


# ---------------------------------------------------------------- rt index

def args_index(p) -> None:
    p.add_argument("--rebuild", action="store_true", help="parse every file again instead of only the changed ones")


def cmd_index(ctx, args) -> Result:
    idx = load(ctx, rebuild=args.rebuild)
    m = idx.meta
    lines = [f"index: {m['files']} files, {m['definitions']} definitions ({idx.parsed} files parsed now)"]
    lines += [f"  {lang:<12} {count}" for lang, count in sorted(m["langs"].items(), key=lambda kv: (-kv[1], kv[0]))]
    return Result("\n".join(lines), {"files": m["files"], "definitions": m["definitions"], "parsed": idx.parsed,
                                     "langs": m["langs"]})
