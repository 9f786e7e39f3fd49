"""Files the checks themselves write are theirs, not the task's: a test suite that writes `./test` at the root
(as a popular HTTP library's does) must not fail verify, count as a fix attempt, or stand in the way of a plan."""
from __future__ import annotations

import os
import subprocess
import sys
import time

from conftest import ROOT
from tests.checks_support import CALC, commit_config, python_project
from tests.hooks_support import bash, context_text, hook, payload

WRITER = ("def test_writes_a_file():\n"
          "    with open('test', 'w') as f:\n"
          "        f.write('written by the suite\\n')\n")


def suite_writing_test(project) -> None:
    """calc.py with its tests, one of which writes `./test` at the root, run by the real pytest."""
    python_project(project, tools="pytest", old_problem=False)
    project.write("tests/test_io.py", WRITER)
    project.git("add", "-A")
    project.git("commit", "-qm", "a test that writes ./test")


def test_a_file_the_test_suite_writes_is_not_the_tasks(project):
    suite_writing_test(project)
    project.rt("start", "make add sum three")
    assert project.read("test") == "written by the suite\n"     # the baseline's pytest wrote it
    assert project.rt("delta").splitlines() == ["0 file(s) changed since task 1-make-add-sum-three started",
                                                "made by the checks themselves (not counted): A test (pytest)"]
    code, out, _ = hook(project, "stop", payload(project, "Stop", stop_hook_active=False))
    assert out is None, out                                         # nothing of the task's to verify yet
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n\ndef add3(a: int, b: int, c: int) -> int:\n    return a + b + c\n")
    out = project.rt("verify")
    assert out.startswith("# verify: PASS"), out
    assert "changed outside the plan" not in out
    assert "## made by the checks themselves (theirs, not the task's: not counted)\n- A test (pytest)" in out
    data = project.rt_json("status")["task"]
    assert data["failed_verifies"] == 0 and data["state"] == "verified"
    project.rt("verify")                                            # the suite writes it again: still theirs
    report = project.rt("finish")
    assert "outside the plan" not in report and "verdict: PASS" in report


def test_the_baseline_may_run_again_over_what_a_check_wrote(project):
    suite_writing_test(project)
    project.rt("start", "t")
    out = project.rt("baseline")    # refused before: "1 file(s) changed since `rt start` (first: test)"
    assert "- pytest: 0 diagnostic(s)" in out


def test_a_file_a_check_made_can_be_planned(project):
    suite_writing_test(project)
    project.rt("start", "t")
    project.rt("plan", "--edit", "calc.py", "--create", "test")  # refused before: "--create test: already exists"
    project.write("calc.py", CALC + "\n")
    project.write("test", "the task's own content\n")
    out = project.rt("verify")   # planned, so the task's: created as the plan said
    assert out.startswith("# verify: PASS") and "- scope: as planned (2 file(s) changed)" in out
    assert "## made by the checks themselves" not in out


def with_check(project, rel: str, name: str, command: str) -> None:
    """A project with a committed file `rel` and one more check, `command` (TOML), that acts on it."""
    python_project(project, tools="ruff", old_problem=False)
    project.write(rel, "one\n")
    project.git("add", "-A")
    project.git("commit", "-qm", rel)
    commit_config(project, f'[checks.{name}]\nkind = "lint"\nparser = "generic"\ncommand = {command}\n')
    project.rt("start", "t")


def test_a_check_does_not_launder_the_tasks_own_change(project):
    with_check(project, "other.txt", "touch", '["sh", "-c", "[ -f other.txt ] && echo touched >> other.txt; true"]')
    assert project.read("other.txt") == "one\ntouched\n"            # the baseline's check changed it: theirs
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    assert "## made by the checks themselves" in project.rt("verify")
    project.write("other.txt", "the agent's edit\n")               # now the task changes it
    out = project.rt("verify", ret=1)
    assert "- changed outside the plan: other.txt" in out
    assert "## made by the checks themselves" not in out


def test_a_file_a_check_deletes_is_the_checks(project):
    with_check(project, "scratch.log", "clean", '["rm", "-f", "scratch.log"]')
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    out = project.rt("verify")
    assert out.startswith("# verify: PASS") and "- D scratch.log (clean)" in out


def test_the_shell_hook_does_not_blame_the_task_for_a_checks_file(project):
    suite_writing_test(project)
    project.rt("start", "t")
    project.rt("plan", "--edit", "calc.py")
    code, out, _ = hook(project, "post-tool-use", bash(project, "ls", event="PostToolUse"))
    assert "test" not in context_text(out, "PostToolUse")


def test_a_check_that_never_started_costs_no_scan_of_the_tree(project, monkeypatch):
    """A check whose program is missing ran nothing, so nothing in the tree can be its: the tree is not scanned
    again after it (on a large tree a scan costs about what `git status` does); one that ran still is."""
    from rt.task import verify
    python_project(project, tools="ruff", old_problem=False)
    commit_config(project, '[checks.gone]\nkind = "lint"\nparser = "generic"\ncommand = ["rt-test-no-such-program"]\n'
                  '[checks.maker]\nkind = "lint"\nparser = "generic"\ncommand = ["sh", "-c", "echo x >> made.txt"]\n')
    scans = []
    real = verify.scan
    monkeypatch.setattr(verify, "scan", lambda *args: scans.append(args) or real(*args))
    out = project.rt("start", "t")
    assert "- gone: could not run: program not found: rt-test-no-such-program" in out
    assert len(scans) == 2   # after ruff and after maker, none after gone
    assert project.rt("delta").endswith("made by the checks themselves (not counted): A made.txt (maker)\n")


def test_rt_starts_baseline_watches_from_the_snapshot_it_just_took_not_read_back(project, monkeypatch):
    """`rt start`'s baseline compares what its checks write with the snapshot `rt start` holds in memory,
    not read back from `.rt/`, and still finds the file the suite wrote."""
    from rt import state
    suite_writing_test(project)
    monkeypatch.setattr(state, "load_snapshot", lambda *a: (_ for _ in ()).throw(AssertionError("read back")))
    project.rt("start", "make add sum three")
    monkeypatch.undo()
    assert project.rt("delta").splitlines()[1] == "made by the checks themselves (not counted): A test (pytest)"


def test_an_edit_made_while_a_check_runs_stays_the_tasks_and_is_scope_checked(project, tmp_path):
    """A file no check wrote before, changed while one runs, may be an edit made meanwhile (rt cannot tell who
    wrote it): it counts as the task's, as any other edit does. A file the check makes is still its own."""
    signals = tmp_path / "signals"
    signals.mkdir()
    project.write("a.py", "x = 1\n")
    project.write("b.py", "y = 1\n")
    project.init_git()
    wait = (f"if [ -f {signals}/wait ]; then echo out > made.txt; touch {signals}/started; i=0; "
            f"while [ ! -f {signals}/edited ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; fi; true")
    commit_config(project, f'[checks.slow]\nkind = "lint"\nparser = "generic"\ncommand = ["sh", "-c", "{wait}"]\n')
    project.rt("start", "t")
    project.rt("plan", "--edit", "a.py")
    project.write("a.py", "x = 2\n")
    (signals / "wait").touch()
    proc = subprocess.Popen([sys.executable, "-m", "rt", "verify"], cwd=project.root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    for _ in range(1200):   # the check has started: edit meanwhile, then let it end
        if (signals / "started").exists():
            break
        time.sleep(0.05)
    project.write("b.py", "y = 'the user edited this meanwhile'\n")
    (signals / "edited").touch()
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 1, out + err
    assert "- changed outside the plan: b.py" in out
    assert "## made by the checks themselves (theirs, not the task's: not counted)\n- A made.txt (slow)" in out
    assert project.rt("delta", ret=1).splitlines() == [
        "2 file(s) changed since task 1-t started; 1 outside the planned scope",
        "M a.py  +1 -1", "M b.py  +1 -1  OUTSIDE SCOPE", "made by the checks themselves (not counted): A made.txt (slow)"]
