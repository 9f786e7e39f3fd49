"""`rt tasks --why`: the unfinished tasks grouped by the state they stopped in, with their last verdict,
failed verify runs and block reason, so the share that reaches `finished` can be worked on."""
from __future__ import annotations

import shutil

import pytest

pytestmark = pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")


def test_unfinished_tasks_are_grouped_by_where_and_why_they_stopped(project):
    project.write("pyproject.toml", "[tool.ruff.lint]\nselect = ['F']\n")
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "finished one")
    project.rt("plan", "--edit", "a.py")
    project.write("a.py", "x = 2\n")
    project.rt("verify")
    project.rt("finish")
    project.rt("start", "failing one")
    project.rt("plan", "--edit", "a.py")
    project.write("a.py", "import os\nx = 3\n")
    project.rt("verify", ret=1)
    project.rt("verify", ret=1)
    project.rt("block", "the import is needed by a plugin loader")
    project.write("a.py", "x = 2\n")
    project.rt("start", "never planned", "--no-baseline")
    project.rt("start", "still going", "--no-baseline", "--force")   # sets the one before aside
    out = project.rt("tasks", "--why")
    assert out.splitlines() == [
        "1 of 4 finished (25%)",
        "unfinished: 3",
        "stopped in scanned (2):",
        "  3-never-planned: blocked; last verify never run; 0 failed verify run(s); blocked: set aside by rt start --force",
        "  4-still-going: still active; last verify never run; 0 failed verify run(s)",
        "stopped in building (1):",
        "  2-failing-one: blocked; last verify FAIL; 2 failed verify run(s); blocked: the import is needed by a plugin loader",
        "by last verdict: FAIL 1, never verified 2",
    ]
    data = project.rt_json("tasks", "--why")
    assert [g["stopped_in"] for g in data["groups"]] == ["scanned", "building"]
    assert data["groups"][1]["tasks"][0]["failed_verifies"] == 2
    assert data["by_last_verdict"] == {"FAIL": 1, "never verified": 2}
