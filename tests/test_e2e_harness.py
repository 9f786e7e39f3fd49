"""The fake API and harness themselves, driven by the real client with a trivial hook."""
from __future__ import annotations

import json

import pytest

from tests.e2e.fakeapi import text, tool
from tests.e2e.harness import claude_binary, run_claude, seen, tool_results

pytestmark = pytest.mark.skipif(claude_binary() is None,
                                reason="needs claude (the Claude Code client): not installed here (`bash .ci/run` installs it)")


def test_prompt_hook_text_and_tool_result_reach_the_model(project, tmp_path):
    project.write("a.py", "x = 1\n")
    project.write(".claude/settings.json", json.dumps({"hooks": {"UserPromptSubmit": [
        {"hooks": [{"type": "command", "command": "echo HOOK_MARK_42"}]}]}}))
    project.init_git()
    script = [[tool("Edit", file_path=str(project.root / "a.py"), old_string="x = 1", new_string="x = 2")],
              [text("all done")]]
    run = run_claude(project.root, tmp_path / "home", "change x to 2", script)
    assert run.code == 0, run.stderr
    assert project.read("a.py") == "x = 2\n"
    assert len(run.turns) == 2
    assert "HOOK_MARK_42" in seen(run.turns[0])
    assert "change x to 2" in seen(run.turns[0])
    [result] = tool_results(run.turns[1])
    assert "updated successfully" in result["content"] and not result.get("is_error")
    assert run.result.get("result") == "all done"
