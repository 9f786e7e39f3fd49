"""`rt agent` against a real model: opt-in, as no model runs here by default.

Set RT_AGENT_LIVE_ENDPOINT (an OpenAI-compatible base URL, e.g. llama.cpp's server at
http://127.0.0.1:8080/v1) and RT_AGENT_LIVE_MODEL (default "local"); RT_AGENT_LIVE_CONTEXT is the window
the server gives each call (default 8192). A small model may well fail the task; what is checked is what
rt promises whatever the model does: a documented exit code, nothing written outside the recorded scope,
a query that writes nothing, and every call within the window by the server's own token count.
"""
from __future__ import annotations

import json
import os

import pytest

from test_agent import shop  # noqa: F401  (the fixture: the same small shop repository)

ENDPOINT = os.environ.get("RT_AGENT_LIVE_ENDPOINT")
MODEL = os.environ.get("RT_AGENT_LIVE_MODEL", "local")
WINDOW = int(os.environ.get("RT_AGENT_LIVE_CONTEXT", "8192"))

pytestmark = pytest.mark.skipif(not ENDPOINT, reason="set RT_AGENT_LIVE_ENDPOINT to run rt agent against a real model")


def live(project, task: str) -> tuple[int, dict | None, str]:
    p = project.rt_proc("agent", task, "--endpoint", ENDPOINT, "--model", MODEL, "--context", str(WINDOW),
                        "--jobs", "1", "--timeout", "900", "--json")
    try:
        return p.returncode, json.loads(p.stdout), p.stderr
    except ValueError:
        return p.returncode, None, p.stderr


def within_window(data: dict) -> None:
    for c in data["calls"]:
        assert c["sent"] + c["answer"] <= WINDOW
        if c["reported"] is not None:   # the server's own tokenizer
            assert c["reported"] + c["answer"] <= WINDOW, c


def test_live_edit_keeps_rts_promises(shop):
    code, data, err = live(shop, "add a function double(x) returning 2 * x at the end of src/shop/price.py")
    print(json.dumps(data, indent=1) if data else err)
    assert code in (0, 1, 2, 3), err
    if data is None or "error" in data:   # refused before any task: a bad plan or the endpoint's failure
        assert err.startswith("rt: error: ") and err.count("\n") == 1
        assert shop.git("status", "--porcelain") == ""
        return
    within_window(data)
    changed = {line[3:] for line in shop.git("status", "--porcelain", "--untracked-files=all").splitlines()}
    planned = {s["file"] for s in data["plan"] if s["action_type"] != "query"}
    assert changed <= planned
    assert data["end"] in ("finished", "blocked", None)


def test_live_query_writes_nothing(shop):
    code, data, err = live(shop, "how many functions does src/shop/cart.py define?")
    print(json.dumps(data, indent=1) if data else err)
    assert code in (0, 1, 2, 3), err
    if data is not None and "error" not in data:
        within_window(data)
        if all(s["action_type"] == "query" for s in data["plan"]):
            assert shop.git("status", "--porcelain") == ""
