"""The run history of a task: every `rt verify` and `rt check` run (the editing hooks' checks included),
kept one file per run in `.rt/tasks/<id>/runs/`, so the handoff can tell which errors came, where, and
what made them go away. `verify.json` keeps only the last verify; this keeps them all.

A run records the new diagnostics verbatim, the checks that could not run with their reason, the
output of each failing check (cut by `quote`), and the content ids of the files it saw, so the files
changed between two runs can be named. Byte-stable: no times, only a sequence number per task.
"""
from __future__ import annotations

from rt.core import listed
from rt.store import Store

QUOTE = 4000
"""The most of a tool's output quoted anywhere (a run record, the handoff): its head and tail, with a
visible marker where the middle was cut. A stack trace fits; a 60 KB log does not get in whole."""


def quote(text: str, limit: int = QUOTE) -> str:
    """`text` if it fits `limit`, else its head and tail around a marker saying how much was cut."""
    text = text.strip("\n")
    if len(text) <= limit:
        return text
    marker = "\n[... {:,} characters cut here ...]\n"
    room = limit - len(marker.format(len(text)))
    head = text[:room - room // 2]
    tail = text[len(text) - room // 2:]
    if "\n" in head:   # cut at whole lines where the text has them
        head = head[:head.rfind("\n")]
    if "\n" in tail:
        tail = tail[tail.find("\n") + 1:]
    return head + marker.format(len(text) - len(head) - len(tail)) + tail


def run_dir(task_id: str) -> str:
    return f"tasks/{task_id}/runs"


def _names(folder) -> list[str]:
    """The run files in `folder` (`00007.json`), sorted."""
    return [n for n in listed(folder) if n.endswith(".json") and n[:-5].isdigit()]


def record(store: Store, task: dict, run: dict) -> dict:
    """Append one run to the task's history (the caller holds no lock); returns it with its number.

    `run`: kind ("verify" or "check"), verdict (PASS, FAIL or INCOMPLETE), target (the files a check
    run looked at; None for verify, which looks at everything), ran (checks that ran), failures
    (diagnostics as dicts), blind ([{check, reason}]), outputs ({check: quoted output}), outside and
    undone (verify's scope differences), files ({path: content id or None}) and complete (whether
    `files` holds every file the task changed, as verify's scan does). The number of steps recorded
    so far goes with it, so the steps taken between two runs can be named."""
    with store.locked():
        folder = store.path(*run_dir(task["id"]).split("/"))
        n = 1 + max((int(name[:-5]) for name in _names(folder)), default=0)
        body = dict(run, n=n, steps=len(task.get("steps", [])))
        store.write_json(f"{run_dir(task['id'])}/{n:05d}.json", body)
    return body


def load(store: Store, task: dict) -> list[dict]:
    """Every run of the task, oldest first (an empty list for a task from before the history was kept)."""
    names = _names(store.path(*run_dir(task["id"]).split("/")))
    return [store.read_json(f"{run_dir(task['id'])}/{name}") for name in names]


def failed_verifies(runs: list[dict]) -> int:
    """Verify runs that ended FAIL: the fix attempts the task took."""
    return sum(r["kind"] == "verify" and r["verdict"] == "FAIL" for r in runs)
