"""The plugin: the same skill, agents and hooks, validated and loaded by the real client with --plugin-dir."""
from __future__ import annotations

import json
import os
import subprocess
import sys
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
                                   "command": f'sh "${{CLAUDE_PLUGIN_ROOT}}/hooks/rt-hook" {arg}'}]
    manifest = json.loads((ROOT / ".claude-plugin/plugin.json").read_text())
    assert manifest["name"] == "rt"
    for rel in manifest["skills"] + manifest["agents"]:
        assert (ROOT / rel).exists(), rel


def counting_python3(folder: Path, log: Path) -> Path:
    """A `python3` that counts its starts in `log`, then runs this interpreter: a version manager's shim."""
    folder.mkdir(parents=True, exist_ok=True)
    shim = folder / "python3"
    shim.write_text(f'#!/bin/sh\necho started "$@" >> "{log}"\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    return folder


def launch(cwd: Path, data: Path, shim: Path, payload: dict) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAUDE")}
    env.update(PATH=os.pathsep.join([str(shim), env["PATH"]]), CLAUDE_PLUGIN_ROOT=str(ROOT), CLAUDE_PLUGIN_DATA=str(data))
    return subprocess.run(["sh", str(ROOT / "hooks/rt-hook"), "session-start"], cwd=cwd, env=env, input=json.dumps(payload),
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_plugin_launcher_starts_the_interpreter_a_first_hook_ran_on(project, tmp_path):
    """The first hook goes through `python3` (here a counting shim) and keeps the interpreter's path in the
    plugin's data folder; the next start it directly; a kept interpreter that is gone falls back and is replaced."""
    project.write("app.py", "x = 1\n")
    project.init_git()
    log, data = tmp_path / "starts.log", tmp_path / "plugin-data"
    shim = counting_python3(tmp_path / "bin", log)
    payload = {"session_id": "s1", "cwd": str(project.root), "hook_event_name": "SessionStart", "source": "startup"}
    first = launch(project.root, data, shim, payload)
    assert first.returncode == 0, first.stderr
    assert log.read_text().count("started") == 1
    assert (data / "python").read_text() == sys.executable + "\n"
    second = launch(project.root, data, shim, payload)
    assert (second.returncode, second.stdout) == (0, first.stdout)
    assert log.read_text().count("started") == 1   # the shim was not started again
    (data / "python").write_text("/nowhere/python3\n")
    third = launch(project.root, data, shim, payload)
    assert (third.returncode, third.stdout) == (0, first.stdout)
    assert log.read_text().count("started") == 2 and (data / "python").read_text() == sys.executable + "\n"
    assert project.git("status", "--porcelain").strip() == ""


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


@needs_claude
def test_the_real_client_starts_the_plugin_hooks_past_the_shim_after_the_first(project, tmp_path):
    """Two sessions of the real client with the plugin, `python3` a counting shim: the first session's hooks
    start through it and keep the interpreter in the plugin's data folder; the second session's never start it."""
    project.write("app.py", "x = 1\n")
    project.init_git()
    log, home = tmp_path / "starts.log", tmp_path / "home"
    shim = counting_python3(tmp_path / "bin", log)
    first = run_claude(project.root, home, "say hi", [[text("hi")]], args=("--plugin-dir", str(ROOT)), path=shim)
    assert first.code == 0, first.stderr

    def hooks() -> int:   # starts of a hook through the shim; the MCP server starts once a session, not a hook
        return log.read_text().count(" -m rt hook ")
    started = hooks()
    assert started >= 1   # at least the first hook, before anything was kept
    [kept] = (home / ".claude/plugins/data").glob("*/python")
    assert kept.read_text() == sys.executable + "\n"
    second = run_claude(project.root, home, "say hi again", [[text("hi")]], args=("--plugin-dir", str(ROOT)), path=shim)
    assert second.code == 0, second.stderr
    assert second.turns, "no request reached the model"
    assert hooks() == started
