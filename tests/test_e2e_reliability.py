"""Reliability holes as the real Claude Code client meets them: what the model sees of a long task text, and
a test suite that writes a file of its own (`./test`) at the root."""
from __future__ import annotations

import pytest

from tests.checks_support import python_project
from tests.e2e.fakeapi import text
from tests.e2e.harness import claude_binary, run_claude, seen
from tests.test_effects import WRITER

pytestmark = pytest.mark.skipif(claude_binary() is None,
                                reason="needs claude (the Claude Code client): not installed here (`bash .ci/run` installs it)")


@pytest.fixture
def repo(project, tmp_path):
    """calc.py with a pytest suite, one of whose tests writes `./test`; rt installed into `.claude/`."""
    python_project(project, tools="pytest", old_problem=False)
    project.write("tests/test_io.py", WRITER)
    project.write(".gitignore", ".claude/\n")
    project.git("add", "-A")
    project.git("commit", "-qm", "suite")
    project.rt("install")
    project.home = tmp_path / "home"
    return project


def test_a_long_task_text_reaches_the_model_by_its_head_only(repo):
    task = "rename the total column " + "and keep every report byte-stable " * 800
    repo.rt("start", task)
    run = run_claude(repo.root, repo.home, "where were we?", [[text("ok")]])
    assert run.code == 0, run.stderr
    context = seen(run.turns[0])
    assert "SessionStart hook additional context: rt: a task is active in this repository." in context
    assert f"(the task text goes on for {len(task.strip()) - 500:,} more characters: `rt status --json`)" in context
    assert context.count("keep every report byte-stable") < 20      # of the 800 in the task text


def test_a_file_the_suite_writes_does_not_hold_the_turn_back(repo):
    repo.rt("start", "make add sum three")
    assert repo.read("test") == "written by the suite\n"
    run = run_claude(repo.root, repo.home, "say ok", [[text("ok")], [text("sent back")]])
    assert run.code == 0, run.stderr
    assert len(run.turns) == 1        # the Stop hook let the turn end: nothing of the task's changed
