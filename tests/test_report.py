"""The final report `rt finish` writes: verdict, checks, files, scope, claims apart, what is left to check."""
from __future__ import annotations

from tests.checks_support import CALC, python_project

REPORT = ".rt/tasks/1-{}/report.md"


def test_report_after_a_pass_lists_claims_apart(project):
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "tidy calc")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", '"""Sums."""\n' + CALC)
    project.write("notes.md", "why\n")
    project.rt("scope", "add", "notes.md")
    project.rt("claim", "the docstring matches the team style guide")
    project.rt("verify")
    out = project.rt("finish")
    assert out == project.read(REPORT.format("tidy-calc"))
    assert out.splitlines() == [
        "# report",   # neither the task's id nor its text: the session has both
        "",
        "verdict: PASS",
        "checks run: ruff passed",
        "checks not run: typecheck (none configured), test (none configured)",
        "effort: 0 fix attempt(s) (failed verify runs); tokens not known (no Claude Code session recorded here)",
        "files changed (2): M calc.py  +1 -0; A notes.md  +1 -0",
        "scope: as planned",
        "unverified claims (the agent's word; rt did not measure these):",
        "- the docstring matches the team style guide",
        "a person still has to check:",
        "- the diff itself (`rt review`): checks find known kinds of error, not wrong behaviour",
        "- the 1 claim(s) above",
        "- behaviour: no test suite is configured",
        "- files no check covers: notes.md",
    ]
    assert project.rt_json("tasks")["finished"] == 1


def test_finish_incomplete_puts_the_missing_verification_first(project):
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "half done")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", "import json\n" + CALC)
    project.rt("step", "started")
    project.rt("verify", ret=1)
    project.rt("finish", ret=2)  # building and not verified
    assert "is building and not verified; run `rt verify`, or `rt finish --incomplete`" in project.last_err
    out = project.rt("finish", "--incomplete")
    lines = out.splitlines()
    assert lines[2] == "NOT VERIFIED: finished with --incomplete (last verify FAIL: 1 new diagnostic(s) (ruff 1))."
    assert "verdict: FAIL" in lines
    assert "- whatever `rt verify` would have shown: run it, or check by hand" in lines


def test_a_check_that_could_not_run_is_among_the_checks_not_run(project):
    python_project(project, tools="ruff", old_problem=False)
    project.write("rt.toml", '[checks.types]\nkind = "typecheck"\ncommand = ["no-such-checker-here"]\n')
    project.git("add", "-A")
    project.git("commit", "-qm", "a checker this machine lacks")
    project.rt("start", "half checked")   # ruff ran: the baseline holds something
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", '"""Sums."""\n' + CALC)
    project.rt("verify", ret=3)
    lines = project.rt("finish", "--incomplete").splitlines()
    assert "checks run: ruff passed" in lines   # "checks not run: none" would hide it
    assert "checks not run: types (could not run), test (none configured)" in lines


def test_finish_incomplete_without_any_verify(project):
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "never verified", "--no-baseline")
    project.rt("plan", "--edit", "calc.py")
    project.rt("step", "nothing yet")
    out = project.rt("finish", "--incomplete")
    assert out.splitlines()[2] == "NOT VERIFIED: finished with --incomplete (rt verify was never run)."
    assert "checks run: none" in out and "checks not run: ruff (rt verify never ran)" in out
    assert "scope: planned, not done: calc.py" in out


def test_report_flags_edits_after_the_last_verify(project):
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "stale")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    project.rt("verify")
    project.write("calc.py", "import json\n" + CALC)
    out = project.rt("finish")
    assert out.splitlines()[2] == "STALE: files changed after the last verify; its verdict does not cover them."


def test_report_stays_short(project):
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "many files")
    names = [f"pkg/module_with_a_long_name_{i:02}.py" for i in range(40)]
    project.rt("plan", "--edit", "calc.py", "--create", *names)
    project.write("calc.py", CALC + "\n")
    for n in names:
        project.write(n, "X = 1\n")
    for i in range(12):
        project.rt("claim", f"claim number {i} " + "is quite long " * 20)
    project.rt("verify")
    out = project.rt("finish")
    assert len(out.rstrip("\n")) <= 1500
    assert "; +36 more" in out and "- +9 more (`rt status --json`)" in out  # fewer shown, none lost silently
    assert "verdict: PASS" in out and "a person still has to check:" in out


def test_a_report_that_cannot_be_written_leaves_the_task_open(project):
    python_project(project, tools="ruff", old_problem=False)
    project.rt("start", "tidy calc")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", '"""Sums."""\n' + CALC)
    project.rt("verify")
    record = project.root / ".rt/tasks/1-tidy-calc/verify.json"
    record.write_text("{cut short")
    project.rt("finish", ret=2)
    assert "verify.json is damaged" in project.last_err
    assert project.rt_json("status")["task"]["state"] == "verified"   # not finished without its report
    assert not (project.root / REPORT.format("tidy-calc")).exists()
    project.rt("repair")
    out = project.rt("finish")
    assert out == project.read(REPORT.format("tidy-calc")) and "verdict: PASS" in out
    assert project.rt_json("tasks")["finished"] == 1
