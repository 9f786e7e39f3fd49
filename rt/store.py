"""The `.rt/` store: atomic, locked, schema-versioned files. Nothing else writes under `.rt/`.

Hooks call rt concurrently, so every read-modify-write goes through `Store.locked()`.
"""
from __future__ import annotations

import contextlib
import json
import os
import zlib
from _thread import get_ident  # not threading: importing it costs every command and hook
from functools import cached_property

from rt.core import Repo, StoreError

TYPE_CHECKING = False
if TYPE_CHECKING:   # for annotations only: pathlib is imported where a `Path` is first made (`Repo.root`)
    from pathlib import Path

SCHEMA = 1
"""Version of every JSON file in `.rt/`; a file with another version is refused, never guessed at."""


_NULL, _MAY_LACK = type(None), "may lack"
SHAPES: dict[str, dict[str, tuple]] = {
    "state.json": {"active": (str, _NULL), "next": (int, _MAY_LACK)},
    "notes.json": {"notes": (list, dict), "next": (int,)},
    "journal.json": {"entries": (list, dict)},
    "sessions.json": {"sessions": (dict,), "handoffs": (dict, _MAY_LACK)},
    "intent.json": {"on": (bool,), "turns": (dict,), "grants": (list, dict)},
    "statcache.json": {"files": (dict,), "text": (str, _MAY_LACK), "kinds": (dict, _MAY_LACK), "layout": (int, _MAY_LACK)},
    "snapshot.json": {"files": (dict,), "layout": (int, _MAY_LACK)},
    "task.json": {"id": (str,), "text": (str,), "state": (str,), "history": (list, dict),
                  "steps": (list, dict, _MAY_LACK), "claims": (list, dict, _MAY_LACK), "paths": (list, str, _MAY_LACK),
                  "scope": (dict, _NULL, _MAY_LACK), "originals": (dict, _MAY_LACK), "checks": (dict, _MAY_LACK),
                  "format": (dict, _MAY_LACK)},
    "rt-install.json": {"files": (list, str, _MAY_LACK), "hashes": (dict, _MAY_LACK), "allow": (list, str, _MAY_LACK),
                        "deny": (list, str, _MAY_LACK), "sandbox": (dict, _MAY_LACK), "mcp": (dict, _MAY_LACK),
                        "intent": (bool, _MAY_LACK), "intent_on": (bool, _MAY_LACK),
                        "created_settings": (bool, _MAY_LACK)},
}
"""What rt's own records hold, so that one a hand or another program left as valid JSON of another shape is damage
(`rt repair` sets aside those in `.rt/`; install refuses its record in `.claude/`), not an internal error in every command: file name -> key -> its type, then any of: `_NULL`
(may be null), the type of each item of a list, `_MAY_LACK` (may be absent)."""
TASK_STATES = frozenset(("scanned", "ready", "planned", "building", "verified", "finished", "blocked"))
"""The states of `rt.state.TRANSITIONS` (which imports this module; tests/test_damage.py holds the two the same): a
task.json in another one is damage, which no command could move on, block or set aside."""
_TASK_ITEMS = {"history": ("from", "to", "note"), "steps": ("note",), "claims": ("text",)}
"""The texts each item of a task's lists holds, which `rt status`, `rt finish` and the handoff print."""
_TASK_ID = r"[0-9]+-[a-z0-9][a-z0-9-]*"
"""A task's id (`state.new_task`), the name of its folder in `.rt/tasks/`: what `active` may name."""


def misshapen(rel: str, data: dict) -> str | None:
    """The key of `data` that is not as SHAPES says rt writes it, None when all are (or `rel` has none)."""
    name = rel.rpartition("/")[2]
    for key, (kind, *more) in SHAPES.get(name if name != "task.json" or rel.startswith("tasks/") else "", {}).items():
        value = data.get(key)
        if key not in data:
            if _MAY_LACK not in more:
                return key
        elif value is None:
            if _NULL not in more:
                return key
        elif not isinstance(value, kind) or type(value) is bool and kind is int:
            return key
        elif kind is list and more and isinstance(more[0], type) and more[0] is not _NULL \
                and not all(isinstance(v, more[0]) for v in value):
            return key
    if name == "snapshot.json" and not all(type(v) is list and len(v) == 2 for v in data["files"].values()):
        return "files"   # path -> [blob id, kind]
    if name == "task.json" and rel.startswith("tasks/"):
        if data["state"] not in TASK_STATES:
            return "state"
        scope = data.get("scope")   # each of its three kinds a list of paths
        if scope is not None and not all(type(scope.get(k)) is list and all(type(p) is str for p in scope[k])
                                         for k in ("edit", "create", "delete")):
            return "scope"
        for key, said in _TASK_ITEMS.items():
            if not all(type(item.get(k)) is str for item in data.get(key, ()) for k in said):
                return key
        verify = data.get("verify")
        if verify is not None and (type(verify) is not dict or type(verify.get("verdict")) is not str):
            return "verify"
    if name == "state.json" and data.get("active") is not None:
        import re   # here: only a state file naming a task pays for it
        if not re.fullmatch(_TASK_ID, data["active"]):
            return "active"
    return None


def folder_here(rel: str) -> StoreError:
    """The error for a folder at `rel` under `.rt/` where rt keeps a file, which `rt repair` sets aside."""
    return StoreError(f".rt/{rel} is a folder where rt keeps a file; run `rt repair` to set it aside")


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), check_circular=False)
"""What `json.dumps(data, sort_keys=True, separators=(",", ":"))` uses, made once, without the check for
cycles (rt's data has none) that costs an index build a dictionary entry per list."""


def json_bytes(data: dict) -> bytes:
    """The bytes `Store.write_json` writes for `data`: keys sorted, the schema version in."""
    return _ENCODER.encode(dict(data, schema=SCHEMA)).encode()


class Store:
    """`.rt/` of one repository. `top` is its folder as a string, which is all a warm look-up's reads need
    (`read_bytes`, `read_json`); `dir` and `path()`, as `Path`s, import pathlib (see `Repo.root`)."""

    def __init__(self, repo: Repo):
        self.repo = repo
        self.top = os.path.join(repo.top, ".rt")

    # ------------------------------------------------------------ layout
    @cached_property
    def dir(self) -> Path:
        return self.repo.store_dir

    def path(self, *parts: str) -> Path:
        return self.dir.joinpath(*parts)

    def exists(self) -> bool:
        return (self.dir / "state.json").is_file()

    def ensure(self) -> None:
        """Create `.rt/` with a `.gitignore` of `*`, so the store never shows in `git status`."""
        if self.dir.is_symlink():
            raise StoreError(".rt is a symlink; rt will not write through it. Remove it and run again")
        if os.path.lexists(self.dir) and not self.dir.is_dir():
            raise StoreError(".rt is a file of the repository's, not rt's store; rt keeps its state in a folder of that "
                             "name. Rename the file and run again")
        self.dir.mkdir(exist_ok=True)
        gi = self.dir / ".gitignore"
        if not gi.is_file():
            self.write_bytes(gi, b"*\n")

    # ------------------------------------------------------------ locking
    @contextlib.contextmanager
    def locked(self, name: str = "lock"):
        """An exclusive lock between processes for the duration of a read-modify-write; `name` for a lock
        of its own (the index's, held through a whole build, which the hooks' records must not wait for)."""
        import fcntl  # here: a warm look-up, which takes no lock, loads no extension module for it
        self.ensure()
        self._no_link_on_the_way(self.dir / name)
        (self.dir / name).parent.mkdir(exist_ok=True)
        fd = os.open(self.dir / name, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield self
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    # ------------------------------------------------------------ files
    def write_bytes(self, path: Path, data: bytes, mode: int = 0o644, *, durable: bool = True) -> None:
        """Atomic write: a temp file in the same folder, fsync, then rename over the target. A cache
        (the index's shards) is written with `durable=False`: no fsync, its damage found by a checksum."""
        with self.writing(path, mode, durable=durable) as f:
            f.write(data)

    def _no_link_on_the_way(self, path: Path) -> None:
        """Refuse a write under `.rt/` through a folder that is a link or no folder (a committed `.rt/index` link
        led an index build to write, and clear old shards, in the folder it named)."""
        try:
            parts = path.parent.relative_to(self.dir).parts
        except ValueError:
            return   # not rt's store: a file of the user's (`rt agent`, install)
        cur = self.dir
        for part in parts:
            cur = cur / part
            linked = os.path.islink(cur)
            if linked or os.path.lexists(cur) and not os.path.isdir(cur):
                raise StoreError(f".rt/{cur.relative_to(self.dir).as_posix()} is {'a link' if linked else 'no folder'}; "
                                 f"rt writes nothing through it: run `rt repair` to set it aside")
        if os.path.isdir(path) and not os.path.islink(path):
            raise folder_here(path.relative_to(self.dir).as_posix())

    @contextlib.contextmanager
    def writing(self, path: Path, mode: int = 0o644, *, durable: bool = True):
        """A binary file to write bit by bit (a check's output as it comes), which takes `path`'s place
        atomically (fsync unless not `durable`, then rename) only when the block ends without an error.
        `mode`: its permissions (`rt agent` keeps an edited file's)."""
        self._no_link_on_the_way(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        # a name of our own instead of `tempfile` (slow to import, and hooks write state on every edit)
        tmp = path.parent / f".tmp-{os.getpid()}-{get_ident()}-{path.name}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            if mode != 0o644:
                os.fchmod(fd, mode)
            with os.fdopen(fd, "wb") as f:
                yield f
                if durable:
                    f.flush()
                    os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def write_text(self, rel: str, text: str) -> Path:
        p = self.path(*rel.split("/"))
        self.write_bytes(p, text.encode("utf-8", "surrogateescape"))
        return p

    def write_json(self, rel: str, data: dict, *, durable: bool = True) -> int:
        """Write a JSON file with the schema version; the CRC-32 of the bytes written, which `read_json`
        can check them against."""
        raw = json_bytes(data)
        self.write_bytes(self.path(*rel.split("/")), raw, durable=durable)
        return zlib.crc32(raw)

    def read_bytes(self, rel: str) -> bytes:
        """The bytes of the file at `rel` (a `/`-separated path under `.rt/`); FileNotFoundError when absent."""
        with open(os.path.join(self.top, *rel.split("/")), "rb") as f:
            return f.read()

    def read_json(self, rel: str, *, missing: str | None = None, crc: int | None = None) -> dict | None:
        """A schema-checked JSON file; None when absent and `missing` is None, else a StoreError with it.
        With `crc`, bytes whose CRC-32 differs are damage too (a cache file written without fsync)."""
        try:
            raw = self.read_bytes(rel)
        except (FileNotFoundError, NotADirectoryError):   # absent, or `.rt` no folder (`ensure` says so)
            if missing is None:
                return None
            raise StoreError(missing) from None
        except IsADirectoryError:
            raise folder_here(rel) from None
        if crc is not None and zlib.crc32(raw) != crc:
            raise StoreError(f".rt/{rel} is damaged (not the file its writer wrote); run `rt repair` to set it aside")
        try:
            data = json.loads(raw)
            if not isinstance(data, dict):
                raise ValueError
        except ValueError:
            raise StoreError(f".rt/{rel} is damaged (not valid JSON, perhaps cut short); "
                             f"run `rt repair` to set it aside and continue") from None
        version = data.get("schema")
        if version != SCHEMA:
            if isinstance(version, int) and version > SCHEMA:
                raise StoreError(f".rt/{rel} was written by a newer rt (schema {version}, this rt reads {SCHEMA}); "
                                 f"upgrade rt, or run `rt repair` to set it aside")
            raise StoreError(f".rt/{rel} has schema {version!r}, this rt reads {SCHEMA}; run `rt repair` to set it aside")
        key = misshapen(rel, data)
        if key is not None:
            raise StoreError(f".rt/{rel} is damaged (its {key!r} is not what rt writes there); run `rt repair` to set "
                             f"it aside and continue")
        return data

    # ------------------------------------------------------------ content-addressed originals
    def blob_path(self, digest: str) -> Path:
        return self.path("blobs", digest[:2], digest[2:])

    def has_blob(self, digest: str) -> bool:
        return self.blob_path(digest).is_file()

    def put_blob(self, digest: str, data: bytes) -> None:
        p = self.blob_path(digest)
        if not p.is_file():
            self.write_bytes(p, zlib.compress(data, 1))

    def get_blob(self, digest: str) -> bytes | None:
        try:
            return zlib.decompress(self.blob_path(digest).read_bytes())
        except (OSError, zlib.error):
            return None
