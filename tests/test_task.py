"""The task state machine through its commands."""
import json

import pytest

from rt.state import TRANSITIONS


@pytest.fixture
def repo(project):
    project.write("src/app.py", "def total(x):\n    return x\n")
    project.write("src/util.py", "X = 1\n")
    project.write("README.md", "hello\n")
    project.init_git()
    return project


def test_full_cycle_and_archive(repo):
    out = repo.rt("start", "rename total")
    assert out.startswith("started 1-rename-total: 3 files snapshotted")
    repo.rt("plan", "--edit", "src/app.py", "--create", "src/fmt.py", "--note", "extract")
    repo.write("src/app.py", "def total(x):\n    return x + 1\n")
    repo.rt("step", "changed total")
    task = repo.rt_json("status")["task"]
    assert task["state"] == "building"
    assert task["scope"] == {"create": ["src/fmt.py"], "delete": [], "edit": ["src/app.py"]}
    repo.rt("finish", "--incomplete")
    data = repo.rt_json("tasks")
    assert (data["finished"], data["total"]) == (1, 1)
    assert repo.rt("status").startswith("no active task")


def test_state_moves_follow_the_table(repo):
    repo.rt("start", "t", "--no-baseline")  # stays scanned
    # step before a plan: scanned may not move to building
    repo.rt("step", "too early", ret=2)
    assert "is scanned; it cannot move to building (allowed next: ready, planned, blocked)" in repo.last_err
    repo.rt("plan", "--edit", "src/app.py")
    repo.rt("finish", ret=2)  # planned -> finished is not in the table
    assert "allowed next: planned, building, blocked" in repo.last_err
    assert TRANSITIONS["finished"] == () and TRANSITIONS["blocked"] == ()


def test_block_closes_and_start_needs_force_while_active(repo):
    repo.rt("start", "first")
    repo.rt("start", "second", ret=2)
    assert "task 1-first is still active" in repo.last_err and "--force" in repo.last_err
    repo.rt("start", "second", "--force", "--no-baseline")
    tasks = repo.rt_json("tasks")["tasks"]
    assert [(t["id"], t["state"]) for t in tasks] == [("1-first", "blocked"), ("2-second", "scanned")]
    repo.rt("block", "needs a key")
    assert repo.rt_json("tasks")["tasks"][1]["state"] == "blocked"
    repo.rt("step", "x", ret=2)
    assert "no active task" in repo.last_err


def test_plan_names_closest_paths_and_checks_existence(repo):
    repo.rt("start", "t", "--no-baseline")
    repo.rt("plan", "--edit", "src/ap.py", ret=2)
    assert "closest existing: src/app.py" in repo.last_err
    repo.rt("plan", "--create", "src/app.py", ret=2)
    assert "already exists; to change it use --edit" in repo.last_err
    repo.rt("plan", "--delete", "nope.py", ret=2)
    repo.rt("plan", ret=2)
    assert repo.rt_json("status")["task"]["state"] == "scanned"  # nothing recorded by the failed plans


def test_scope_add_remove(repo):
    repo.rt("start", "t")
    repo.rt("scope", "add", "README.md", ret=2)  # no plan yet
    repo.rt("plan", "--edit", "src/app.py")
    repo.rt("scope", "add", "README.md", "src/new.py")
    repo.rt("scope", "add", "--delete", "src/util.py")
    scope = repo.rt_json("status")["task"]["scope"]
    assert scope == {"create": ["src/new.py"], "delete": ["src/util.py"], "edit": ["README.md", "src/app.py"]}
    repo.rt("scope", "remove", "README.md")
    repo.rt("scope", "remove", "README.md", ret=2)
    assert repo.rt_json("status")["task"]["scope"]["edit"] == ["src/app.py"]


def test_status_is_byte_stable_and_has_no_times_or_absolute_paths(repo):
    repo.rt("start", "t", "--path", "src")
    repo.rt("plan", "--edit", "src/app.py")
    a, b = repo.rt("status"), repo.rt("status")
    assert a == b
    assert str(repo.root) not in a and "20" not in a  # no years, no absolute paths
    assert "pinned: src" in a and "next: edit the planned files" in a


def test_task_text_with_shell_metacharacters_is_stored_verbatim(repo):
    text = "fix `touch pwned1` $(touch pwned2); touch pwned3 && echo $HOME | tee x > y 'q\"'"
    repo.rt_proc("start", text)
    assert repo.rt_json("status")["task"]["text"] == text
    assert not any((repo.root / n).exists() for n in ("pwned1", "pwned2", "pwned3", "x", "y"))


def test_empty_task_text_and_unknown_command(repo):
    repo.rt("start", "  ", ret=2)
    assert "task text is empty" in repo.last_err
    repo.rt("bogus", ret=2)
    assert "unknown command 'bogus'" in repo.last_err
    out = json.loads(repo.rt("bogus", "--json", ret=2))
    assert out["exit"] == 2


def test_twenty_concurrent_steps_lose_nothing(repo):
    import subprocess
    import sys
    repo.rt("start", "t")
    repo.rt("plan", "--edit", "src/app.py")
    env_root = str(repo.root)
    from conftest import ROOT
    procs = [subprocess.Popen([sys.executable, "-m", "rt", "step", f"step {i}"], cwd=env_root,
                              env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(20)]
    codes = [p.wait() for p in procs]
    assert codes == [0] * 20
    task_file = next((repo.root / ".rt" / "tasks").iterdir()) / "task.json"
    task = json.loads(task_file.read_text())  # valid JSON
    assert sorted(s["note"] for s in task["steps"]) == sorted(f"step {i}" for i in range(20))
    assert task["state"] == "building"


def test_plan_and_scope_refuse_paths_in_git_and_rt_stores(repo):
    """A setting or a hook in any .git/ runs programs (core.fsmonitor at the next `git status`)."""
    repo.rt("start", "t", "--no-baseline")
    for flag, path in (("--create", ".git/hooks/pre-commit"), ("--edit", ".git/config"),
                       ("--create", "vendor/lib/.git/config"), ("--create", ".GIT/config"),
                       ("--create", "sub/.rt/state.json")):
        repo.rt("plan", flag, path, ret=2)
        assert "own store" in repo.last_err, path
    (repo.root / "hooks").symlink_to(repo.root / ".git" / "hooks")
    repo.rt("plan", "--create", "hooks/pre-commit", ret=2)
    assert ".git/ is git's own store" in repo.last_err
    repo.rt("plan", "--edit", "src/app.py")
    repo.rt("scope", "add", ".git/config", ret=2)
    repo.rt("scope", "add", "hooks/post-checkout", ret=2)
    assert repo.rt_json("status")["task"]["scope"] == {"create": [], "delete": [], "edit": ["src/app.py"]}
