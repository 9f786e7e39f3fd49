"""What the user told rt through Claude Code's intent commands, kept in `.rt/`.

`journal.json`: the `/fail`, `/win` and `/mem` entries, the user's words verbatim. `intent.json`: whether
intent mode is on for this project, the command of each session's current turn, and the live `/commit`
and `/push` permissions. The hooks (`rt/claude/intent.py`) write both; `rt status`, `rt journal`, the
task pack (`/mem` facts as memory entries) and the session handoff read them from here.
"""
from __future__ import annotations

from rt import state
from rt.core import UsageError
from rt.store import Store

JOURNAL_FILE = "journal.json"
INTENT_FILE = "intent.json"

KINDS = ("fail", "win", "mem")
"""Journal entry kinds: a miss, an approval, a fact."""

GRANT_KINDS = ("commit", "push")
TTL = 600
"""Seconds a `/commit` or `/push` permission stays valid (it is spent by its first use before that)."""


# ---------------------------------------------------------------- the journal

def add_entry(store: Store, kind: str, text: str) -> dict:
    """Append one entry, the text as the user typed it, tagged with the active task (if any)."""
    if kind not in KINDS:
        raise UsageError(f"unknown journal kind {kind!r} (one of: {', '.join(KINDS)})")
    text = state.checked_text(f"/{kind} text", text)
    task = state.active_task(store, required=False)
    entry = {"kind": kind, "text": text, "at": state.now(), "task": task["id"] if task else None}
    with store.locked():
        data = store.read_json(JOURNAL_FILE) or {"entries": []}
        data["entries"].append(entry)
        store.write_json(JOURNAL_FILE, data)
    return entry


def entries(store: Store, kind: str | None = None) -> list[dict]:
    """The journal, oldest first; only `kind` when given."""
    data = store.read_json(JOURNAL_FILE) if store.dir.is_dir() else None
    found = (data or {}).get("entries", [])
    return [e for e in found if kind is None or e["kind"] == kind]


def memory_facts(store: Store) -> list[str]:
    """The user's `/mem` facts, newest first: memory entries for the task pack and the session handoff."""
    return [e["text"] for e in reversed(entries(store, "mem"))]


# ---------------------------------------------------------------- intent.json: mode, turns, permissions

def load_intent(store: Store) -> dict:
    """`intent.json`, or its empty form when intent mode was never used here."""
    data = store.read_json(INTENT_FILE) if store.path(INTENT_FILE).is_file() else None
    return data or {"on": False, "turns": {}, "grants": []}


def save_intent(store: Store, data: dict) -> None:
    """Write `intent.json` (the caller holds the store lock)."""
    store.write_json(INTENT_FILE, data)


def set_mode(store: Store, on: bool) -> None:
    """The project's own intent-mode switch (`rt intent on|off`, `rt install --intent`); rt.toml's
    `intent` key, when present, overrides it."""
    with store.locked():
        data = load_intent(store)
        data["on"] = on
        save_intent(store, data)


def mode_on(store: Store, configured: bool | None) -> bool:
    """Intent mode: rt.toml's `intent = true|false` when set (`configured`), else the project's switch."""
    if configured is not None:
        return configured
    return store.dir.is_dir() and bool(load_intent(store).get("on"))


def expired(grant: dict, now: float) -> bool:
    """A permission lives TTL seconds from the moment the user typed the command."""
    return now - grant["at"] >= TTL


def live_grants(data: dict, now: float) -> list[dict]:
    return [g for g in data.get("grants", []) if not expired(g, now)]


def describe_grant(grant: dict, now: float) -> str:
    """`commit allowed once, 7 min left` (minutes rounded up, so `1 min left` until it expires)."""
    left = max(1, -(-int(TTL - (now - grant["at"])) // 60))
    return f"{grant['kind']} allowed once, {left} min left"


def status_lines(store: Store, configured: bool | None) -> list[str]:
    """The intent lines of `rt status`: the mode and each live permission."""
    if not mode_on(store, configured):
        return []
    now = state.now()
    grants = live_grants(load_intent(store), now) if store.dir.is_dir() else []
    lines = ["intent mode: on (edits only in a /go or /runtask turn)"]
    lines += [f"permission: {describe_grant(g, now)} (`rt intent revoke` drops it)" for g in grants]
    return lines
