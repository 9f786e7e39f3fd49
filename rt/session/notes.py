"""`rt note`: decisions and patterns the agent or the user wants kept through compaction.

A decision belongs to the active task (`rt note --decision "store prices in cents"`); a pattern belongs
to the repository and outlives the task (`rt note --pattern "DB access goes through repositories"`).
Both are kept verbatim in `.rt/notes.json` and shown by `rt handoff` under Key decisions and
Architecture and patterns. A note that no longer holds is dropped by its number (`rt note --drop N`).
"""
from __future__ import annotations

from rt import state
from rt.core import Result, UsageError
from rt.store import Store

NOTES_FILE = "notes.json"
KINDS = ("decision", "pattern")


def load(store: Store) -> list[dict]:
    """Every note, oldest first: {n, kind, text, task} (task None for a pattern kept without a task)."""
    data = store.read_json(NOTES_FILE) if store.dir.is_dir() else None
    return (data or {}).get("notes", [])


def decisions(store: Store, task: dict) -> list[str]:
    return [n["text"] for n in load(store) if n["kind"] == "decision" and n["task"] == task["id"]]


def patterns(store: Store) -> list[str]:
    return [n["text"] for n in load(store) if n["kind"] == "pattern"]


def args_note(p) -> None:
    what = p.add_mutually_exclusive_group()
    what.add_argument("--decision", metavar="TEXT", help="a decision taken on the active task, kept verbatim")
    what.add_argument("--pattern", metavar="TEXT", help="an architecture pattern of this repository, kept verbatim")
    what.add_argument("--drop", type=int, metavar="N", help="drop note N (it no longer holds)")


def cmd_note(ctx, args) -> Result:
    store = ctx.store
    if args.decision is None and args.pattern is None and args.drop is None:
        notes = load(store)
        lines = [f"{n['n']}. {n['kind']}{' (' + n['task'] + ')' if n['task'] else ''}: {n['text']}" for n in notes]
        return Result("\n".join(lines) or "no notes yet: rt note --decision \"...\" or rt note --pattern \"...\"",
                      {"notes": notes})
    with store.locked():
        data = store.read_json(NOTES_FILE) or {"notes": [], "next": 1}
        if args.drop is not None:
            kept = [n for n in data["notes"] if n["n"] != args.drop]
            if len(kept) == len(data["notes"]):
                raise UsageError(f"no note {args.drop}; `rt note` lists them with their numbers")
            data["notes"] = kept
            store.write_json(NOTES_FILE, data)
            return Result(f"note {args.drop} dropped", {"notes": kept})
        kind = "decision" if args.decision is not None else "pattern"
        text = " ".join(state.checked_text(kind, args.decision if kind == "decision" else args.pattern).split())
        if not text:
            raise UsageError(f"the {kind} is empty; say it in words: rt note --{kind} \"...\"")
        task = state.active_task(store, required=kind == "decision")
        note = {"n": data["next"], "kind": kind, "text": text, "task": task["id"] if task else None}
        data["notes"].append(note)
        data["next"] += 1
        store.write_json(NOTES_FILE, data)
    return Result(f"{kind} {note['n']} kept", {"note": note})
