"""What rt knows of the Claude Code sessions in this repository, in `.rt/sessions.json`: where each one's
transcript is, and which handoff it was last given.

Every hook payload names its session's transcript (`transcript_path`); the SessionStart,
UserPromptSubmit and PreCompact hooks keep it the first time they see a session. `rt usage` reads
those files and, beside each, the subagents' files (`<transcript without .jsonl>/subagents/agent-*.jsonl`).
Nothing is guessed from a home folder.
"""
from __future__ import annotations

from pathlib import Path

from rt.store import Store

SESSIONS_FILE = "sessions.json"


def remember(store: Store, payload: dict) -> None:
    """Keep the payload's session and transcript path, if new (a read, and a write only the first time)."""
    session, path = payload.get("session_id"), payload.get("transcript_path")
    if not (isinstance(session, str) and session and isinstance(path, str) and path.endswith(".jsonl")):
        return
    if _known(store).get(session) == path:
        return
    with store.locked():
        data = store.read_json(SESSIONS_FILE) or {"sessions": {}}
        data["sessions"][session] = path
        store.write_json(SESSIONS_FILE, data)


def _data(store: Store) -> dict:
    return (store.read_json(SESSIONS_FILE) if store.path(SESSIONS_FILE).is_file() else None) or {}


def _known(store: Store) -> dict[str, str]:
    return _data(store).get("sessions", {})


def handoff_given(store: Store, session: str) -> str | None:
    """The digest of the handoff last injected into this session, if any."""
    return _data(store).get("handoffs", {}).get(session)


def give_handoff(store: Store, session: str, digest: str) -> None:
    """Note that this session's context now holds the handoff with this digest."""
    with store.locked():
        data = store.read_json(SESSIONS_FILE) or {"sessions": {}}
        data.setdefault("handoffs", {})[session] = digest
        store.write_json(SESSIONS_FILE, data)


def recorded(store: Store) -> dict[str, str]:
    """Session id -> its transcript path, for every session the hooks saw in this repository."""
    return dict(sorted(_known(store).items())) if store.dir.is_dir() else {}


def files(transcript: str) -> list[Path]:
    """A session's transcript and its subagents' transcripts, those that exist as files (not a folder, a pipe
    that would never end, a device or a link to nowhere), the session's first."""
    main = Path(transcript)
    subagents = main.with_suffix("") / "subagents"
    found = [main] if main.is_file() else []
    return found + (sorted(p for p in subagents.glob("agent-*.jsonl") if p.is_file()) if subagents.is_dir() else [])
