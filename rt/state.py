"""Tasks and their state machine. `TRANSITIONS` is the one table of legal moves.

A task lives in `.rt/tasks/<id>/task.json`; `.rt/state.json` names the active one. Times are kept
here only, never in text written for a model.
"""
from __future__ import annotations

import os
import re
import time

from rt.core import StateError, StoreError, UsageError, first_few
from rt.store import Store, json_bytes

TRANSITIONS: dict[str, tuple[str, ...]] = {
    "scanned": ("ready", "planned", "blocked"),
    "ready": ("planned", "blocked"),
    "planned": ("planned", "building", "blocked"),
    "building": ("building", "verified", "finished", "blocked"),
    "verified": ("building", "verified", "finished", "blocked"),
    "finished": (),
    "blocked": (),
}
"""state -> states it may move to. `building -> finished` needs `rt finish --incomplete`."""

ACTIVE = ("scanned", "ready", "planned", "building", "verified")
EDITABLE = ("planned", "building", "verified")
"""States in which the approved scope may be edited."""

NEXT_STEP = {
    "scanned": "run `rt baseline` (or `rt plan` to skip it), then `rt plan --edit F ...`",
    "ready": "read the manifest and pack, then record the scope with `rt plan --edit F ... --create F ...`",
    "planned": "edit the planned files; record progress with `rt step \"...\"`",
    "building": "finish the edits, then run `rt verify`",
    "verified": "run `rt finish` (or keep editing, then `rt verify` again)",
    "finished": "start the next task with `rt start \"...\"`",
    "blocked": "ask the user about the blocker; start again with `rt start \"...\"`",
}

STATE_FILE = "state.json"

TEXT_MAX = 32_000
"""The longest task text, step note, block reason or claim rt takes, in characters; longer is a document,
to keep in a file the task pins (`rt start "<task>" --path spec.md`)."""
TEXT_SHOWN = 500
"""How much of a task text `rt status`, the SessionStart hook and verify.md show; `rt status --json` has it whole."""


_UNSHOWABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def checked_text(what: str, text: str) -> str:
    """Free text for a task record, stripped; refused over TEXT_MAX, so no record carries a megabyte. A control
    character (an escape sequence would act on the terminal showing it) or a byte that is no UTF-8 (a Latin-1
    terminal's `é`, which no JSON for Claude Code can carry) is made a `?`; line breaks and tabs stay."""
    text = _UNSHOWABLE.sub("?", text.replace("\r\n", "\n")).strip()
    if len(text) > TEXT_MAX:
        raise UsageError(f"the {what} is {len(text):,} characters, over rt's {TEXT_MAX:,}; say it in fewer words, "
                         f"or keep the long version in a file and pin it: rt start \"<task>\" --path FILE")
    return text


def head(text: str, what: str = "task text", limit: int = TEXT_SHOWN, whole: str = "`rt status --json`") -> str:
    """The first `limit` characters of a recorded text, saying how much more there is and where it is whole."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... (the {what} goes on for {len(text) - limit:,} more characters: {whole})"


def line(text: str, what: str = "task text", limit: int = TEXT_SHOWN, whole: str = "`rt status --json`") -> str:
    """`head()` of a text shown after a label on one line (`rt status`): its line breaks and tabs (the only control
    characters `checked_text` keeps) folded into single spaces, so no line of it passes for a line of rt's."""
    return head(" ".join(text.split()), what, limit, whole)


SCOPE_SHOWN = 30
"""Paths of one kind of a scope named in a line, the rest counted: a scope of hundreds of files (a rename across
the tree) listed whole in the edit gate's denial and the session's status, past the client's 10,000 characters."""


def listing(paths: list[str]) -> str:
    """The first SCOPE_SHOWN of `paths`, comma-separated, and how many more (`rt status --json` has every one)."""
    return first_few(paths, SCOPE_SHOWN) + (" (`rt status --json` lists them all)" if len(paths) > SCOPE_SHOWN else "")


def now() -> float:
    return round(time.time(), 3)


def slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:40].strip("-") or "task"


def task_file(task_id: str) -> str:
    return f"tasks/{task_id}/task.json"


SNAPSHOT = "snapshot.json"
"""The task's snapshot at `rt start`: what delta, review, verify and the stop check compare with."""


def snapshot_file(task_id: str) -> str:
    return f"tasks/{task_id}/{SNAPSHOT}"


SNAPSHOT_ID = "snapshot-id.json"
"""Beside the snapshot: its fingerprint (`rt.snapshot.fingerprint`), file count and size in bytes, so an
unchanged tree is recognised without decoding the snapshot."""


def save_snapshot(store: Store, task: dict, files: dict[str, tuple[str, str]], fp: str) -> None:
    """Write the task's snapshot, path -> (blob id, kind), and its id (`fp`: its fingerprint). The bytes of
    the last snapshot this process wrote are kept with its fingerprint and count, and written again for the
    same tree (the hook server's next `/runtask` on an unchanged tree: babel's 27,674 entries are 2.6 MB of
    JSON, about 20 ms to encode)."""
    global _written
    if _written is not None and _written[:2] == (fp, len(files)):
        raw = _written[2]
    else:
        raw = json_bytes({"files": files, "layout": SNAPSHOT_LAYOUT})
        _written = (fp, len(files), raw)
    store.write_bytes(store.path("tasks", task["id"], SNAPSHOT), raw)
    _save_snapshot_id(store, task, fp, len(files), len(raw))


_written: tuple[str, int, bytes] | None = None
"""The last snapshot `save_snapshot` wrote in this process: its fingerprint, count and bytes."""


def link_snapshot(store: Store, task: dict, same: dict, fp: str, count: int) -> bool:
    """Give the task the snapshot of task `same`, of the same tree (fingerprint `fp`, `count` files), as a
    hard link: nothing decoded, nothing written but its id (files under `.rt/` are replaced whole, never
    edited in place, so the two names never part). False when the file system refuses the link."""
    source, path = store.path("tasks", same["id"], SNAPSHOT), store.path("tasks", task["id"], SNAPSHOT)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.link(source, path)
        size = os.stat(path).st_size
    except OSError:
        return False
    _save_snapshot_id(store, task, fp, count, size)
    return True


def _save_snapshot_id(store: Store, task: dict, fp: str, count: int, size: int) -> None:
    store.write_json(f"tasks/{task['id']}/{SNAPSHOT_ID}", {"fingerprint": fp, "files": count, "size": size})


def snapshot_fingerprint(store: Store, task: dict) -> str | None:
    """The fingerprint of the task's snapshot as written, None when unknown (a task of an older rt) or when
    the snapshot file is not the one its id describes."""
    try:
        data = store.read_json(f"tasks/{task['id']}/{SNAPSHOT_ID}")
        size = os.stat(store.path("tasks", task["id"], SNAPSHOT)).st_size
    except (StoreError, OSError):
        return None
    return data["fingerprint"] if data and data["size"] == size else None


SNAPSHOT_LAYOUT = 2
"""2: kinds mark executable files and submodules are entries (`rt.snapshot.upgraded` reads a snapshot without it)."""


def load_snapshot(store: Store, task: dict) -> dict[str, tuple[str, str]]:
    data = store.read_json(snapshot_file(task["id"]),
                          missing=f"task {task['id']} has no snapshot; run `rt repair`, then `rt start` again")
    files = data["files"]
    files = dict(zip(files, map(tuple, files.values())))
    if data.get("layout") != SNAPSHOT_LAYOUT:   # an older rt's, once: without it every executable file showed changed
        from rt import snapshot   # here: only such a snapshot pays for it
        files = snapshot.upgraded(store.repo, files)
        raw = json_bytes({"files": files, "layout": SNAPSHOT_LAYOUT})
        store.write_bytes(store.path("tasks", task["id"], SNAPSHOT), raw)
        _save_snapshot_id(store, task, snapshot.fingerprint(files), len(files), len(raw))
    return files


EFFECTS = "effects.json"
"""The files the task's own check runs (baseline, verify) made, changed or deleted: they are the checks',
not the task's (a test suite writing `./test`). Path -> the check and the (blob id, kind) it left, None
for a file it deleted."""


def load_effects(store: Store, task: dict) -> dict[str, tuple[str, tuple | None]]:
    data = store.read_json(f"tasks/{task['id']}/{EFFECTS}") or {"files": {}}
    return {p: (e["check"], tuple(e["after"]) if e["after"] else None) for p, e in data["files"].items()}


def save_effects(store: Store, task: dict, effects: dict[str, tuple[str, tuple | None]]) -> None:
    store.write_json(f"tasks/{task['id']}/{EFFECTS}", {"files": {
        p: {"check": check, "after": list(after) if after else None} for p, (check, after) in sorted(effects.items())}})


def made_by_checks(store: Store, task: dict, files: dict, effects: dict | None = None) -> dict[str, str]:
    """Of the files a check run made or changed, those still as it left them and outside the task's scope
    (a planned file is the task's), path -> the check. `files`: path -> (blob id, kind) now, for at least
    every path a check touched; a path missing from it is gone."""
    effects = load_effects(store, task) if effects is None else effects
    scope = scope_paths(task) or set()
    return {p: check for p, (check, after) in effects.items() if p not in scope and files.get(p) == after}


def load_state(store: Store) -> dict:
    return store.read_json(STATE_FILE) or {"active": None, "next": 1}


def load_task(store: Store, task_id: str) -> dict:
    task = store.read_json(task_file(task_id))
    if task is None:
        raise StoreError(f"task {task_id} is named active but its file is missing; run `rt repair`")
    return task


def active_task(store: Store, *, required: bool = True) -> dict | None:
    """The active task, or a StateError telling the user how to start one."""
    if not store.exists():
        if required:
            raise StateError("no rt task here yet; start one with `rt start \"<task>\"`")
        return None
    task_id = load_state(store).get("active")
    if not task_id:
        if required:
            raise StateError("no active task; start one with `rt start \"<task>\"` (see `rt tasks`)")
        return None
    return load_task(store, task_id)


def still_active(store: Store, task: dict) -> dict:
    """The task as saved now, read again under the lock after its checks ran: a StateError when it is no longer
    the active one (finished, blocked, or set aside by `rt start --force` meanwhile), so that what the run found
    is never recorded as another task's."""
    now = active_task(store, required=False)
    if now is None or now["id"] != task["id"]:
        raise StateError(f"task {task['id']} was closed while its checks ran" + (f" ({now['id']} is active now)" if now else "")
                         + "; nothing of the run was recorded")
    return now


def save_task(store: Store, task: dict) -> None:
    task["updated_at"] = now()
    store.write_json(task_file(task["id"]), task)


def move(task: dict, to: str, note: str = "") -> None:
    """Move a task along the table, or raise naming where it stands and where it may go."""
    cur = task["state"]
    if to not in TRANSITIONS.get(cur, ()):
        allowed = ", ".join(TRANSITIONS.get(cur, ())) or "none (the task is closed)"
        raise StateError(f"task {task['id']} is {cur}; it cannot move to {to} (allowed next: {allowed}); "
                         f"next step: {NEXT_STEP[cur]}")
    if to != cur:
        task["history"].append({"at": now(), "from": cur, "to": to, "note": note})
        task["state"] = to


def new_task(store: Store, text: str, paths: list[str]) -> dict:
    state = load_state(store)
    number = state.get("next", 1)
    while store.path("tasks", f"{number}-{slug(text)}").exists():
        number += 1  # after `rt repair` lost the counter
    task = {
        "id": f"{number}-{slug(text)}",
        "text": text,
        "state": "scanned",
        "created_at": now(),
        "paths": paths,
        "history": [],
        "steps": [],
        "scope": None,
        "plan_note": "",
        "originals": {},
        "claims": [],
        "block_reason": "",
    }
    state.update(active=task["id"], next=number + 1)
    store.write_json(STATE_FILE, state)
    return task


def close_active(store: Store) -> None:
    state = load_state(store)
    state["active"] = None
    store.write_json(STATE_FILE, state)


def all_tasks(store: Store) -> list[dict]:
    """Every task in the archive, oldest first; unreadable ones are reported, not skipped silently."""
    tasks = []
    root = store.path("tasks")
    if root.is_dir():
        for d in root.iterdir():
            if (d / "task.json").is_file():
                tasks.append(store.read_json(task_file(d.name)))
    return sorted(tasks, key=lambda t: (t["created_at"], t["id"]))


FIX_ATTEMPTS = 2
"""Failed `rt verify` runs in a row after which edits stop, unless `fix_attempts` in rt.toml says otherwise."""


def fix_limit(task: dict) -> int:
    """Failed verifies in a row the task may have before its edits are denied: the limit the last verify
    read from the config, plus what the user allowed since (`rt allow-fix`)."""
    return task.get("fix_limit", FIX_ATTEMPTS) + task.get("fixes_allowed", 0)


def scope_paths(task: dict) -> set[str] | None:
    scope = task.get("scope")
    if scope is None:
        return None
    return set(scope["edit"]) | set(scope["create"]) | set(scope["delete"])
