"""`rt mcp` driven by the real Claude Code client: the server `rt install --mcp` put in .mcp.json (and
the plugin's), tools called by the scripted model, and what the model got back."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.harness import claude_binary, run_claude, tool_results
from tests.e2e.fakeapi import text
from tests.mcp_support import shop

ROOT = Path(__file__).resolve().parent.parent
needs_claude = pytest.mark.skipif(claude_binary() is None,
                                  reason="the Claude Code client is not installed (run `bash .ci/run` to install it)")


def call(tool: str, **arguments) -> dict:
    return {"type": "tool_use", "name": tool, "input": arguments}


def trusted_home(home: Path, repo: Path) -> Path:
    """A HOME whose ~/.claude.json says the user trusted the project: Claude Code then honours the project's
    allow rules (rt install's `mcp__rt`); untrusted, it ignores them and asks before each MCP tool."""
    home.mkdir(parents=True)
    (home / ".claude.json").write_text(json.dumps({"projects": {str(repo): {"hasTrustDialogAccepted": True}}}))
    return home


@needs_claude
def test_claude_code_calls_the_installed_server_and_gets_rts_answers(project, tmp_path):
    shop(project)
    out = project.rt("install", "--mcp")
    assert "wrote .mcp.json" in out
    script = [[call("mcp__rt__symbol", name="total")],
              [call("mcp__rt__search_tool_bm25", query="which files changed since the task started")],
              [call("mcp__rt__search_tool_bm25", query="kubernetes helm chart")],
              [call("mcp__rt__refs", name="twice"), call("mcp__rt__outline", file="../outside.py")],
              [text("done")]]
    run = run_claude(project.root, trusted_home(tmp_path / "home", project.root), "where is total defined?", script)
    assert run.code == 0, run.stderr
    init = next(e for e in run.events if e.get("subtype") == "init")
    assert {"name": "rt", "status": "connected", "source": "project"} in init["mcp_servers"]
    first = json.dumps(run.turns[0])
    assert "mcp__rt__symbol" in first and "mcp__rt__search_tool_bm25" in first   # listed (deferred) by name
    assert "rt answers look-ups instead of whole-file reads" in first   # the server's instructions
    answers = [tool_results(t)[-1] for t in run.turns[1:4]]
    for result in answers:
        assert not result.get("is_error"), result
    assert [b["text"] for b in answers[0]["content"]] == [project.rt("symbol", "total").rstrip("\n")]
    found = answers[1]["content"][0]["text"]
    assert found.splitlines()[0].startswith("delta: Files changed so far")
    empty = answers[2]["content"][0]["text"]
    assert empty.startswith("no tool matches 'kubernetes helm chart'. That does not mean rt cannot do it")
    refs, outside = tool_results(run.turns[4])[-2:]
    assert refs["content"][0]["text"] == project.rt("refs", "twice").rstrip("\n")
    assert outside["is_error"] is True
    assert "rt: error: ../outside.py: outside the repository" in json.dumps(outside["content"])


@needs_claude
def test_without_the_allow_rule_claude_code_asks_first(project, tmp_path):
    """Untrusted workspace: the installed allow rule is ignored, so a call is refused (not run) in -p."""
    shop(project)
    project.rt("install", "--mcp")
    home = tmp_path / "home"
    script = [[call("mcp__rt__symbol", name="total")], [text("done")]]
    run = run_claude(project.root, home, "where is total defined?", script)
    assert run.code == 0, run.stderr
    [result] = tool_results(run.turns[1])
    assert result["is_error"] is True and "haven't granted it yet" in json.dumps(result)


@needs_claude
def test_the_plugin_declares_the_server(project, tmp_path):
    shop(project)
    script = [[call("mcp__plugin_rt_rt__symbol", name="Cart.add")], [text("done")]]
    run = run_claude(project.root, tmp_path / "home", "where is Cart.add?", script,
                     args=("--plugin-dir", str(ROOT), "--allowedTools", "mcp__plugin_rt_rt__symbol"))
    assert run.code == 0, run.stderr
    [result] = tool_results(run.turns[1])
    assert not result.get("is_error"), result
    assert result["content"][0]["text"] == project.rt("symbol", "Cart.add").rstrip("\n")
