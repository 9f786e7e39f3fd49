"""A test that fails now and then: `rt verify` runs a test check with new failures once more, and a
failure the rerun does not repeat is reported as flaky, not counted as new."""
from __future__ import annotations

import json

import pytest

from tests.checks_support import CALC, commit_config, verify_md

FLAKY = ("from pathlib import Path\n\nCOUNT = Path({count!r})\n\n\n"
         "def test_sometimes():\n"
         "    runs = int(COUNT.read_text()) + 1 if COUNT.exists() else 1\n"
         "    COUNT.write_text(str(runs))\n"
         "    assert runs not in {fail_on}, 'under load'\n")


def flaky_project(project, tmp_path, fail_on: set[int], config: str = "") -> object:
    """A pytest project whose test_sometimes fails on the runs numbered in `fail_on` (the baseline's is run
    1), counted in a file outside the repository; the task changes calc.py harmlessly. The counter file."""
    count = tmp_path / "runs"
    project.write("pyproject.toml", "[tool.pytest.ini_options]\n")
    project.write("calc.py", CALC)
    project.write("tests/test_flaky.py", FLAKY.format(count=str(count), fail_on=sorted(fail_on)))
    project.init_git()
    if config:
        commit_config(project, config)
    project.rt("start", "document add")
    assert count.read_text() == "1"
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", '"""Sums."""\n' + CALC)
    return count


def verify_json(project) -> dict:
    task = project.rt_json("status")["task"]["id"]
    return json.loads(project.read(f".rt/tasks/{task}/verify.json"))


@pytest.mark.parametrize("config, fail_on, runs", [("", {2}, 3), ("rerun_failed_tests = 2\n", {2, 3}, 4)])
def test_a_failure_a_rerun_does_not_repeat_is_flaky_and_verify_passes(project, tmp_path, config, fail_on, runs):
    count = flaky_project(project, tmp_path, fail_on, config)
    out = project.rt("verify")
    assert count.read_text() == str(runs)   # the rerun(s) happened, and no more
    assert out.startswith("# verify: PASS") and "## new diagnostics" not in out and "## fix attempts" not in out
    [line] = [ln for ln in out.splitlines() if ln.startswith("- flaky: ")]
    assert line.startswith("- flaky: tests/test_flaky.py:9 pytest [") and "test_sometimes]" in line
    assert line.endswith(" failed, then passed when run again (not counted)")
    assert "under load" not in line
    record = verify_json(project)
    assert record["summary"] == "PASS: 1 check(s) ran, nothing new; 1 flaky, not counted (pytest 1)"
    assert record["checks"][0]["new"] == 0 and record["checks"][0]["flaky"] == 1
    assert [d["code"] for d in record["flaky"]] == ["tests/test_flaky.py::test_sometimes"]
    task = project.rt_json("status")["task"]
    assert task["state"] == "verified" and task["failed_verifies"] == 0
    assert verify_md(project) == out
    assert "checks run: pytest passed (1 flaky, not counted)\n" in project.rt("finish")


@pytest.mark.parametrize("config, fail_on, runs", [("", {2, 3}, 3), ("rerun_failed_tests = 0\n", {2}, 2)])
def test_a_failure_every_run_repeats_stays_new(project, tmp_path, config, fail_on, runs):
    """Failing in the rerun too, or with reruns turned off, the failure is new: FAIL, a fix attempt used."""
    count = flaky_project(project, tmp_path, fail_on, config)
    out = project.rt("verify", ret=1)
    assert count.read_text() == str(runs)
    assert out.startswith("# verify: FAIL") and "- flaky:" not in out and "not counted" not in out
    assert "- failed verify 1 of 2" in out
    record = verify_json(project)
    assert record["summary"] == "FAIL: 1 new diagnostic(s) (pytest 1)"
    assert record["checks"][0]["flaky"] == 0 and record["flaky"] == []
    assert project.rt_json("status")["task"]["failed_verifies"] == 1


TWO = ("from pathlib import Path\n\nCOUNT = Path({count!r})\n\n\n"
       "def test_a():\n"
       "    runs = int(COUNT.read_text()) + 1 if COUNT.exists() else 1\n"
       "    COUNT.write_text(str(runs))\n"
       "    assert runs != 2, 'a broke'\n\n\n"
       "def test_b():\n"
       "    assert int(COUNT.read_text()) != 3, 'b broke'\n")


def test_a_rerun_failing_elsewhere_proves_nothing_flaky(project, tmp_path):
    """Run 2 fails test_a, its rerun test_b: nothing passed when run again, so both are new and verify fails."""
    count = tmp_path / "runs"
    project.write("pyproject.toml", "[tool.pytest.ini_options]\n")
    project.write("calc.py", CALC)
    project.write("tests/test_two.py", TWO.format(count=str(count)))
    project.init_git()
    project.rt("start", "document add")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", '"""Sums."""\n' + CALC)
    out = project.rt("verify", ret=1)
    assert count.read_text() == "3" and out.startswith("# verify: FAIL") and "- flaky:" not in out
    record = verify_json(project)
    assert record["summary"] == "FAIL: 2 new diagnostic(s) (pytest 2)" and record["flaky"] == []
