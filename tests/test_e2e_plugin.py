"""The plugin: the same skill, agents and hooks, validated and loaded by the real client with --plugin-dir."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from rt.claude.hooks import HOOKS
from tests.e2e.fakeapi import text, tool
from tests.e2e.harness import claude_binary, run_claude, seen, tool_results

ROOT = Path(__file__).resolve().parent.parent
needs_claude = pytest.mark.skipif(claude_binary() is None,
                                  reason="needs claude (the Claude Code client): not installed here (`bash .ci/run` installs it)")


def test_plugin_hooks_are_the_installed_hooks_run_from_the_plugin_folder():
    data = json.loads((ROOT / "hooks/hooks.json").read_text())
    assert list(data["hooks"]) == [event for event, *_ in HOOKS]
    for event, matcher, arg, timeout in HOOKS:
        [group] = data["hooks"][event]
        assert group.get("matcher") == matcher
        assert group["hooks"] == [{"type": "command", "timeout": timeout,
                                   "command": f'PYTHONPATH="${{CLAUDE_PLUGIN_ROOT}}" python3 -S -P -m rt hook {arg}'}]
    manifest = json.loads((ROOT / ".claude-plugin/plugin.json").read_text())
    assert manifest["name"] == "rt"
    for rel in manifest["skills"] + manifest["agents"]:
        assert (ROOT / rel).exists(), rel


@needs_claude
def test_claude_plugin_validate_passes(tmp_path):
    env = dict(os.environ, HOME=str(tmp_path))
    proc = subprocess.run([claude_binary(), "plugin", "validate", str(ROOT)], env=env, capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "Validation passed" in out
    for part in ("skills: rt:runtask", "agents: rt:rt-executor", "agents: rt:rt-reviewer", "agents: rt:rt-scout"):
        assert part in out
    assert sum(f"hooks: {event}" in out for event, *_ in HOOKS) == len(HOOKS)


@needs_claude
def test_plugin_loads_and_runtask_expands_the_skill(project, tmp_path):
    project.write("app.py", "def total(xs):\n    return sum(xs)\n")
    project.init_git()
    run = run_claude(project.root, tmp_path / "home", "/runtask rename total to grand_total", [[text("ok")]],
                     args=("--plugin-dir", str(ROOT)))
    assert run.code == 0, run.stderr
    assert run.turns, "no request reached the model: a plugin hook blocked the prompt"
    first = seen(run.turns[0])
    assert "<command-name>/rt:runtask</command-name>" in first
    assert "rt started the task" in first and "ARGUMENTS: rename total to grand_total" in first
    assert "- rt:runtask: Do a coding task under rt" in first  # the description, up front
    assert "- rt:rt-scout: Cheap wide search" in first
    # the plugin's own hooks ran: /runtask started the task and sent the code it is about
    assert "UserPromptSubmit hook additional context: rt: task 1-rename-total-to-grand-total started." in first
    assert "1\tdef total(xs):" in first


@needs_claude
def test_plugin_hooks_gate_edits(project, tmp_path):
    project.write("app.py", "x = 1\n")
    project.write("other.py", "y = 1\n")
    project.init_git()
    project.rt("start", "change x")
    project.rt("plan", "--edit", "app.py")
    script = [[tool("Edit", file_path=str(project.root / "other.py"), old_string="y = 1", new_string="y = 2")],
              [text("stopping")]]
    run = run_claude(project.root, tmp_path / "home", "change y", script, args=("--plugin-dir", str(ROOT)))
    assert run.code == 0, run.stderr
    [result] = tool_results(run.turns[1])
    assert result["is_error"] is True and "other.py is outside the approved scope" in result["content"]
    assert project.read("other.py") == "y = 1\n"
