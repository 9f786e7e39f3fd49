"""`rt mcp` on raw stdio: the handshake, the tool list, rt's own answers, bad input, the gates, and a
long-lived process that still sees every edit."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from rt.cli import Ctx
from rt.index.index import Kept, load
from rt.mcp import tools
from tests.mcp_support import Raw, server_env, shop


def test_handshake_list_ping_and_notifications(project):
    shop(project)
    with Raw(project.root) as s:
        probe = s.request("server/discover", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})
        assert probe["error"]["code"] == -32601   # Claude Code and the SDK then fall back to initialize
        init = s.initialize()["result"]
        assert init["protocolVersion"] == "2025-11-25"
        assert init["capabilities"] == {"tools": {"listChanged": False}}
        assert init["serverInfo"]["name"] == "rt" and "search_tool_bm25" in init["instructions"]
        old = s.request("initialize", {"protocolVersion": "2024-11-05"})["result"]["protocolVersion"]
        unknown = s.request("initialize", {"protocolVersion": "1999-01-01"})["result"]["protocolVersion"]
        assert (old, unknown) == ("2024-11-05", "2025-11-25")
        s.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}})
        s.send({"jsonrpc": "2.0", "method": "no/such/notification"})
        assert s.request("ping")["result"] == {}   # the notifications got no answer: this is the next line
        listed = s.request("tools/list")["result"]["tools"]
        code, err = s.close()
    assert code == 0 and err.startswith("rt mcp: serving ")
    assert [t["name"] for t in listed] == [t.name for t in tools.TOOLS]
    assert len(listed) == 20 and len({t["description"] for t in listed}) == 20
    with Raw(project.root) as again:
        assert again.request("tools/list")["result"]["tools"] == listed   # byte-stable across runs
    slice_ = next(t for t in listed if t["name"] == "slice")["inputSchema"]
    assert slice_["required"] == ["file"] and slice_["properties"]["budget"]["type"] == "integer"
    start = next(t for t in listed if t["name"] == "start")["inputSchema"]["properties"]
    assert "force" not in start and start["path"]["type"] == "array"   # setting a task aside is the user's call


@pytest.mark.parametrize("tool, args, cli", [
    ("symbol", {"name": "total"}, ["symbol", "total"]),
    ("symbol", {"name": "Cart.add"}, ["symbol", "Cart.add"]),
    ("refs", {"name": "twice"}, ["refs", "twice"]),
    ("outline", {"file": "app.py"}, ["outline", "app.py"]),
    ("slice", {"file": "app.py", "lines": "5:6"}, ["slice", "app.py", "--lines", "5:6"]),
    ("slice", {"file": "app.py", "symbol": "Cart"}, ["slice", "app.py", "--symbol", "Cart"]),
    ("find", {"text": "Proceed to checkout"}, ["find", "Proceed to checkout"]),
    ("manifest", {"task": "add a discount to the cart"}, ["manifest", "add a discount to the cart"]),
    ("pack", {"task": "add a discount to the cart", "budget": 2000},
     ["pack", "add a discount to the cart", "--budget", "2000"]),
    ("status", {}, ["status"]),
])
def test_each_answer_is_the_text_the_cli_prints(project, tool, args, cli):
    shop(project)
    with Raw(project.root) as s:
        answer = s.text(tool, **args)
    assert answer == project.rt(*cli).rstrip("\n")


def test_structured_gives_the_json_data_too(project):
    shop(project)
    with Raw(project.root, "--structured") as s:
        result = s.call("symbol", name="total")
    assert result["structuredContent"] == project.rt_json("symbol", "total")
    assert result["content"][0]["text"] == project.rt("symbol", "total").rstrip("\n")
    with Raw(project.root, "--structured") as s:
        packed = s.call("pack", task="the invoice total")["structuredContent"]
    assert packed["tokens"] > 0 and packed == project.rt_json("pack", "the invoice total")
    with Raw(project.root) as plain:
        assert "structuredContent" not in plain.call("symbol", name="total")


def test_bad_input_each_answered_and_the_server_keeps_serving(project):
    shop(project)
    outside = project.root.parent / "secret.txt"
    outside.write_text("password\n")
    (project.root / "link.txt").symlink_to(outside)
    with Raw(project.root) as s:
        s.initialize()
        s.send(b"this is not json\n")
        assert s.recv() == {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32700, "message": "parse error: the line is not JSON, or is nested too deep to read; send one "
                                       "JSON-RPC message per line"}}
        s.send(b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}}\n")
        assert s.recv()["error"]["code"] == -32700   # past Python's recursion: answered, and the server lives on
        s.send(b'{"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"x": NaN}}\n')
        assert s.recv()["error"]["code"] == -32700   # not JSON, though Python's reader takes it
        s.send(b'{"jsonrpc": "2.0", "id": 5, "method": "ping"\n')   # cut short
        assert s.recv()["error"]["code"] == -32700
        s.send(b"\xff\xfe{}\n")
        assert s.recv()["error"]["code"] == -32700
        s.send(b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]\n')
        assert s.recv()["error"]["code"] == -32600
        s.send({"jsonrpc": "1.0", "id": 9, "method": "ping"})
        assert s.recv()["error"]["code"] == -32600
        s.send({"jsonrpc": "2.0", "id": None, "method": "ping"})
        assert s.recv() == {"jsonrpc": "2.0", "id": None, "error": {
            "code": -32600, "message": "the id must be a string or an integer"}}
        s.send({"jsonrpc": "2.0", "id": "r1", "result": {}})   # a response: rt sends no requests, ignored
        s.send({"jsonrpc": "2.0", "id": None, "error": {"code": 1, "message": "x"}})   # a response whatever its id
        assert s.request("no/such/method")["error"] == {"code": -32601, "message": "method not found: no/such/method"}
        s.ids += 1
        s.send({"jsonrpc": "2.0", "id": s.ids, "method": "tools/call", "params": [1]})
        assert s.recv()["error"]["code"] == -32602
        assert s.request("tools/call", {"name": "rm"})["error"] == {
            "code": -32602, "message": "unknown tool: rm; tools/list names the tools"}
        assert s.request("tools/call", {"arguments": {}})["error"]["code"] == -32602
        assert s.request("tools/call", {"name": "symbol", "arguments": "total"})["error"]["code"] == -32602
        # errors in a tool's arguments are tool errors the model can correct (MCP 2025-11-25)
        assert s.error("symbol") == ("rt: error: symbol: missing argument 'name': a function, class, method, type or "
                                     "constant name; Class.method narrows")
        assert s.error("symbol", name=7) == "rt: error: symbol: argument 'name' must be a string"
        assert s.error("symbol", name="total", kind="function") == ("rt: error: symbol: unknown argument 'kind'; "
                                                                    "it takes name")
        assert s.error("check", files="app.py") == "rt: error: check: argument 'files' must be a list of strings"
        assert s.error("slice", file="app.py", lines=True) == "rt: error: slice: argument 'lines' must be a string"
        assert s.error("verify", timeout=True) == "rt: error: verify: argument 'timeout' must be an integer"
        assert s.error("diff_logs", before="a", after="b", parser="gcc").startswith(
            "rt: error: diff_logs: argument 'parser' must be one of auto, cargo, eslint")
        assert s.error("slice", file="app.py") == "rt: error: slice: one of the arguments lines symbol is required"
        assert s.error("slice", file="app.py", lines="5:6", symbol="Cart") == (
            "rt: error: slice: argument symbol: not allowed with argument lines")
        for timeout in (0, 10**30):
            assert s.error("verify", timeout=timeout) == (f"rt: error: verify: argument timeout: '{timeout}' is not a "
                                                          f"whole number of seconds from 1 to 86400")
        assert s.error("start", text="fix \ud800 it") == ("rt: error: start: argument 'text' holds a lone surrogate (an "
                                                          "escape like \\ud800 alone), which is no text")
        assert s.error("outline", file="x" * 300).endswith(": File name too long; give a file path inside the repository")
        assert str(project.root) not in s.error("slice", file="x/" * 3000, lines="1:1")
        # a path out of the repository, however it is written
        for tool, args in [("outline", {"file": "../secret.txt"}), ("slice", {"file": str(outside), "lines": "1:1"}),
                           ("slice", {"file": "link.txt", "lines": "1:1"}),
                           ("diff_logs", {"before": str(outside), "after": "app.py", "parser": "ruff"}),
                           ("pack", {"task": "x", "path": ["../secret.txt"]})]:
            message = s.error(tool, **args)
            assert "outside the repository" in message or "leaves the repository" in message, message
            assert "password" not in message
        assert "rt's own store" in s.error("slice", file=".rt/state.json", lines="1:1")
        # still serving, with the right answer
        assert s.text("symbol", name="total") == "app.py:5-6  function total  def total(xs):"
        code, err = s.close()
    assert code == 0 and "Traceback" not in err


def test_a_request_over_10_mib_is_refused_unread(project):
    shop(project)
    big = "x" * (11 * 2 ** 20)
    with Raw(project.root) as s:
        s.initialize()
        s.send(json.dumps({"jsonrpc": "2.0", "id": 41, "method": "tools/call",
                           "params": {"name": "find", "arguments": {"text": big}}}).encode() + b"\n")
        first = s.recv()
        s.send(b'{"method": "tools/call", "params": {"name": "find", "arguments": {"text": "' + big.encode()
               + b'"}}, "jsonrpc": "2.0", "id": "last"}\n')   # Claude Code's order: the id comes last
        last = s.recv()
        s.send(b'{"params": {"a": {"id": 3}}, "x": "' + big.encode() + b'"}\n')   # no id of its own
        anonymous = s.recv()
        assert s.text("symbol", name="twice") == "util.py:1-2  function twice  def twice(x):"
        code, _ = s.close()
    message = "request over 10 MiB, not read; send smaller arguments"
    assert first == {"jsonrpc": "2.0", "id": 41, "error": {"code": -32600, "message": message}}
    assert last["id"] == "last" and last["error"]["code"] == -32600
    assert anonymous["id"] is None and anonymous["error"]["code"] == -32600
    assert code == 0


def test_a_long_lived_server_sees_every_edit_since_its_last_call(project):
    shop(project)
    with Raw(project.root) as s:
        assert s.text("symbol", name="total") == "app.py:5-6  function total  def total(xs):"
        assert "no definition" in s.text("symbol", name="grand")
        with open(project.root / "app.py", "a") as f:   # at once: within the same timestamp tick
            f.write("\n\ndef grand(xs):\n    return total(xs) * 2\n")
        assert s.text("symbol", name="grand") == "app.py:17-18  function grand  def grand(xs):"
        project.write("pkg/fresh.py", "def fresh():\n    return 1\n")   # a new folder and file, untracked
        assert s.text("symbol", name="fresh") == "pkg/fresh.py:1-2  function fresh  def fresh():"
        project.git("add", "-A")
        project.git("commit", "-qm", "more")   # git rewrites its index
        assert s.text("refs", name="total").endswith("\napp.py (defines it): 5, 11, 18")
        os.remove(project.root / "pkg/fresh.py")
        assert "no definition" in s.text("symbol", name="fresh")
        rebuilt = project.rt_proc("index", "--rebuild")   # another process rewrites the index meanwhile
        assert rebuilt.returncode == 0, rebuilt.stderr
        project.write("util.py", "def twice(x):\n    return x + x\n\n\ndef thrice(x):\n    return 3 * x\n")
        assert s.text("symbol", name="thrice") == "util.py:5-6  function thrice  def thrice(x):"
        assert s.text("symbol", name="grand") == "app.py:17-18  function grand  def grand(xs):"
        s.close()


def test_kept_index_is_reused_until_the_tree_or_the_index_changes(project, monkeypatch):
    shop(project)
    _age(project.root)   # older than the racy window: a kept state can match
    monkeypatch.chdir(project.root)
    kept = Kept()

    def ctx():
        c = Ctx(False)
        c.kept = kept
        return c

    load(ctx())
    _age(project.root)   # the first load made .rt/, which changed the root folder just now
    first = load(ctx())
    assert [p for p, _ in first.definitions("total")] == ["app.py"]
    assert load(ctx()) is first   # nothing changed: the same index, with the shards it read
    project.write("util.py", UTIL_MORE)
    _age(project.root / "util.py")
    second = load(ctx())
    assert second is not first and [p for p, _ in second.definitions("thrice")] == ["util.py"]
    assert load(ctx()) is second
    assert project.rt_proc("index", "--rebuild").returncode == 0   # another process rewrites the index
    third = load(ctx())
    assert third is not second and [p for p, _ in third.definitions("thrice")] == ["util.py"]
    assert load(ctx()) is third
    assert load(Ctx(False)) is not third   # without `kept`, every load reads the index again


def _age(path) -> None:
    """Set the times of `path` (and all under it, git's index too) ten seconds back."""
    when = time.time() - 10
    paths = [path] if path.is_file() else [path, *path.rglob("*")]
    for p in paths:
        os.utime(p, (when, when), follow_symlinks=False)


UTIL_MORE = "def twice(x):\n    return 2 * x\n\n\ndef thrice(x):\n    return 3 * x\n"


def test_gates_and_the_state_machine_through_tools(project):
    shop(project)
    before = project.git("status", "--porcelain")
    with Raw(project.root) as s:
        assert s.error("start", text="add a discount", force=True).startswith("rt: error: start: unknown argument 'force'")
        assert s.error("step", note="did something").startswith("rt: error: no rt task here yet")
        started = s.text("start", text="add a discount to the cart")
        assert started.startswith("started 1-add-a-discount-to-the-cart: ")
        assert "rt: error:" in s.error("step", note="edited app.py")   # building needs a plan first
        assert s.error("plan", edit=["nope.py"]).startswith("rt: error: --edit nope.py: no such file")
        planned = s.text("plan", edit=["app.py"], note="discount in Cart.add")
        assert "scope: edit app.py" in planned
        refused = s.error("plan", edit=["app.py", "util.py"])
        assert "already has an approved scope; replacing it is the user's decision" in refused
        assert s.text("status").splitlines()[2] == "scope: edit app.py"   # unchanged
        again = s.error("start", text="another task")
        assert "is still active" in again
        assert s.text("delta").startswith("0 file(s) changed since task 1-add-a-discount-to-the-cart started")
    assert project.git("status", "--porcelain") == before   # rt mcp wrote nothing outside .rt/


def test_search_tool_bm25_ranks_and_says_so_when_nothing_matches(project):
    shop(project)
    with Raw(project.root) as s:
        hits = s.text("search_tool_bm25", query="where is this function defined").splitlines()
        assert hits[0].startswith("symbol: Where a name is declared") and len(hits) <= tools.TOP
        assert s.text("search_tool_bm25", query="which files changed since the task started").splitlines()[0].startswith("delta: ")
        empty = s.text("search_tool_bm25", query="kubernetes helm chart")
        assert empty.startswith("no tool matches 'kubernetes helm chart'. That does not mean rt cannot do it: try "
                                "other words")
        assert "The tools: find, symbol, refs," in empty and "search_tool_bm25" not in empty
        assert s.error("search_tool_bm25", query="?!").startswith("rt: error: search_tool_bm25: the query has no words")


def test_print_tools_size_measures_the_list_it_serves(project):
    shop(project)
    out = subprocess.run([sys.executable, "-m", "rt", "mcp", "--print-tools-size", "--json"], cwd=project.root,
                         env=server_env(), capture_output=True, text=True, check=True).stdout
    data = json.loads(out)
    with Raw(project.root) as s:
        listed = s.request("tools/list")["result"]["tools"]
    assert data["tools"] == 20
    assert data["bytes"] == len(json.dumps(listed, separators=(",", ":")).encode())
    assert 0 < data["deferred_tokens"] < data["tokens"] < data["bytes"]
    assert sum(data["per_tool"].values()) + 19 + 2 == data["bytes"]   # the commas and brackets between


def test_repo_option_and_bad_folder(project, tmp_path):
    shop(project)
    with Raw(tmp_path, "--repo", str(project.root)) as s:
        assert s.text("outline", file="util.py").startswith("util.py: 2 lines, python")
    bad = subprocess.run([sys.executable, "-m", "rt", "mcp", "--repo", str(tmp_path / "nope")], cwd=tmp_path,
                         env=server_env(), capture_output=True, text=True, check=False)
    assert bad.returncode == 2 and bad.stderr.startswith("rt: error: --repo ") and bad.stdout == ""


def test_diff_logs_names_the_logs_by_repository_path(project):
    shop(project)
    project.write("logs/after.txt", "app.py:1:1: F401 `os` imported but unused\nFound 1 error.\n")
    with Raw(project.root) as s:
        missing = s.error("diff_logs", before="logs/none.txt", after="logs/after.txt", parser="ruff")
    assert "logs/none.txt" in missing and str(project.root) not in missing
