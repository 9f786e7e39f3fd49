"""What `/runtask` costs in the real Claude Code client: the first request already holds the task's code
(inline, not the client's preview of an over-long hook text), and the flow SKILL.md gives finishes a task
with a fix round in three requests."""
from __future__ import annotations

import re

import pytest

from tests.e2e.fakeapi import text, tool
from tests.e2e.harness import claude_binary, run_claude, seen, tool_results
from tests.realtree import real_tree
from tests.test_e2e_task import rt_on_path

pytestmark = pytest.mark.skipif(claude_binary() is None,
                                reason="needs claude (the Claude Code client): not installed here (`bash .ci/run` installs it)")


def hook_context(body: dict) -> str:
    """The /runtask hook's text as the model got it in this request."""
    marker = "UserPromptSubmit hook additional context: "
    whole = seen(body)
    assert marker in whole, "the hook's text is not in the request"
    return whole.split(marker, 1)[1].split("\n\n\nToday's date is", 1)[0]


def test_on_a_real_tree_the_first_request_holds_the_tasks_code_inline(tmp_path):
    repo = real_tree(tmp_path / "repo")
    assert len(repo.git("ls-files").splitlines()) >= 2000   # large enough that a whole pack would not fit
    repo.rt("install")
    task = "no-unused-vars reports a variable that is only assigned in a destructuring default; it should not"
    run = run_claude(repo.root, tmp_path / "home", f"/runtask {task}", [[text("ok")]], timeout=600)   # a cold index
    assert run.code == 0, run.stderr
    first = seen(run.turns[0])
    assert "Output too large" not in first and "<persisted-output>" not in first
    injected = hook_context(run.turns[0])
    assert len(injected) <= 10_000
    code = re.findall(r"### eslint/lib/rules/no-unused-vars\.js (\d+)-\d+ of \d+: .*\n((?:\d+\t.*\n)+)", injected)
    assert code, injected[:800]
    source = repo.read("eslint/lib/rules/no-unused-vars.js").splitlines()
    for start, block in code:   # the file's own lines, under their own numbers
        for line in block.splitlines():
            number, _, content = line.partition("\t")
            assert source[int(number) - 1].rstrip() == content.rstrip()


CALC_SRC = "def add(a: int, b: int) -> int:\n    return a + b\n\n\ndef scale(x: int, factor: int) -> int:\n    return x * factor\n"


def test_the_skills_flow_finishes_a_task_with_a_fix_round_in_three_requests(project, tmp_path):
    """One response plans, reads the lines it changes, edits and verifies; the FAIL is fixed in the next;
    the last only reports. The client runs each response's calls in order."""
    project.write("pyproject.toml", '[tool.ruff.lint]\nselect = ["F"]\n\n[tool.pytest.ini_options]\n')
    project.write("calc.py", CALC_SRC)
    project.write("tests/test_calc.py", "from calc import add, scale\n\n\ndef test_add():\n    assert add(1, 2) == 3\n\n\n"
                                        "def test_scale():\n    assert scale(2, 3) == 6\n")
    project.write(".gitignore", ".claude/\n")
    project.init_git()
    project.rt("install")
    calc = str(project.root / "calc.py")
    script = [
        [tool("Bash", command="rt plan --edit calc.py --note 'scale by a default factor'", description="plan"),
         tool("Read", file_path=calc, offset=5, limit=2),
         tool("Edit", file_path=calc, old_string="def scale(x: int, factor: int) -> int:\n    return x * factor",
              new_string="def scale(x: int, factor: int = 2) -> int:\n    return x + factor"),   # the slip
         tool("Bash", command="rt verify && rt finish", description="verify")],
        [tool("Edit", file_path=calc, old_string="return x + factor", new_string="return x * factor"),
         tool("Bash", command="rt verify && rt finish", description="verify")],
        [text("scale() takes a default factor of 2 (calc.py). verify PASS: ruff, pytest.")],
    ]
    run = run_claude(project.root, tmp_path / "home", "/runtask give scale a default factor of 2", script,
                     path=rt_on_path(tmp_path))
    assert run.code == 0, run.stderr
    assert len(run.turns) == 3
    plan, read, edit, verify = tool_results(run.turns[1])[-4:]
    assert plan["content"] == "scope: edit calc.py"
    assert "5\tdef scale" in read["content"] and not edit.get("is_error")
    assert verify["is_error"] and "# verify: FAIL" in verify["content"] and "test_scale" in verify["content"]
    fix, again = tool_results(run.turns[2])[-2:]
    assert not fix.get("is_error") and "# verify: PASS" in again["content"] and "# report" in again["content"]
    assert not any("Stop hook feedback" in seen(body) for body in run.turns)
    assert project.rt_json("tasks")["finished"] == 1
    assert project.read("calc.py") == CALC_SRC.replace("factor: int)", "factor: int = 2)")
