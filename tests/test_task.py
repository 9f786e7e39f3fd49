"""The task state machine through its commands."""
import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

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


def test_a_task_never_planned_can_neither_be_built_nor_finished(repo):
    """`ready` (baseline taken, no scope) may only be planned or blocked: were `building` allowed,
    `rt finish --incomplete` would close a task that never had an approved scope."""
    out = repo.rt("start", "t")   # this repository declares no checks: the baseline is empty
    assert "baseline for task 1-t: 0 check(s)" in out
    assert repo.rt_json("status")["task"]["state"] == "ready"
    repo.rt("step", "early", ret=2)
    assert repo.last_err == ("rt: error: task 1-t is ready; it cannot move to building (allowed next: planned, "
                             "blocked); next step: read the manifest and pack, then record the scope with "
                             "`rt plan --edit F ... --create F ...`\n")
    repo.rt("finish", "--incomplete", ret=2)
    assert "task 1-t is ready; it cannot move to finished (allowed next: planned, blocked)" in repo.last_err
    task = repo.rt_json("status")["task"]
    assert (task["state"], [(h["from"], h["to"]) for h in task["history"]], task["steps"]) == \
        ("ready", [("scanned", "ready")], [])


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
    assert "--delete nope.py: no such file" in repo.last_err
    repo.rt("plan", ret=2)
    assert "a plan names at least one file" in repo.last_err
    assert repo.rt_json("status")["task"]["state"] == "scanned"  # nothing recorded by the failed plans


def test_scope_add_remove(repo):
    repo.rt("start", "t")
    repo.rt("scope", "add", "README.md", ret=2)  # no plan yet
    assert "with no plan; record one first with `rt plan --edit F ...`" in repo.last_err
    repo.rt("plan", "--edit", "src/app.py")
    repo.rt("scope", "add", "README.md", "src/new.py")
    repo.rt("scope", "add", "--delete", "src/util.py")
    scope = repo.rt_json("status")["task"]["scope"]
    assert scope == {"create": ["src/new.py"], "delete": ["src/util.py"], "edit": ["README.md", "src/app.py"]}
    repo.rt("scope", "remove", "README.md")
    repo.rt("scope", "remove", "README.md", ret=2)
    assert "README.md: not in the scope of task" in repo.last_err
    assert repo.rt_json("status")["task"]["scope"]["edit"] == ["src/app.py"]


def test_status_is_byte_stable_and_has_no_times_or_absolute_paths(repo):
    repo.rt("start", "t", "--path", "src")
    repo.rt("plan", "--edit", "src/app.py")
    a, b = repo.rt("status"), repo.rt("status")
    assert a == b
    assert str(repo.root) not in a and "20" not in a  # no years, no absolute paths
    assert "pinned: src" in a and "next: edit the planned files" in a


def test_status_shows_a_long_task_text_cut_at_500_characters_and_says_where_it_is_whole(repo):
    text = " ".join(f"w{i:03d}" for i in range(120))    # 599 characters
    repo.rt("start", text, "--no-baseline")
    first = repo.rt("status").splitlines()[0]
    assert first == f"task 1-w000-w001-w002-w003-w004-w005-w006-w007: {text[:500]}... (the task text goes on for 99 " \
                    "more characters: `rt status --json`)"
    assert repo.rt_json("status")["task"]["text"] == text
    repo.rt("start", "short one", "--no-baseline", "--force")
    assert repo.rt("status").splitlines()[0] == "task 2-short-one: short one"
    repo.rt("start", "rename configuration loader functions everywhere", "--no-baseline", "--force")
    assert repo.rt_json("status")["task"]["id"] == "3-rename-configuration-loader-functions-ev"   # 40 at most


def test_status_shows_a_multi_line_text_on_its_one_line_and_no_line_of_it_passes_for_a_status_line(repo):
    """A task text, step note or block reason of several lines is folded onto the line `rt status` gives it
    (`rt tasks --why` the same for the reason); `--json` keeps each whole."""
    text = "fix the login\nstate: finished\nlast verify: PASS"
    repo.rt("start", text, "--no-baseline")
    repo.rt("plan", "--edit", "src/app.py")
    repo.rt("step", "did one\nnext: nothing")
    assert repo.rt("status").splitlines()[:4] == [
        "task 1-fix-the-login-state-finished-last-verify: fix the login state: finished last verify: PASS",
        "state: building", "scope: edit src/app.py", "steps: 1 (last: did one next: nothing)"]
    assert repo.rt_json("status")["task"]["text"] == text
    repo.rt("block", "waits on\nstate: verified")
    assert "; blocked: waits on state: verified\n" in repo.rt("tasks", "--why")


def test_a_lost_task_counter_never_reuses_a_task_folder(repo):
    """`.rt/state.json` gone (set aside by `rt repair`, or deleted): the next task with the same text gets the
    next free number, and the old task's record stays as it was."""
    repo.rt("start", "same words", "--no-baseline")
    old = (repo.root / ".rt" / "tasks" / "1-same-words" / "task.json").read_bytes()
    (repo.root / ".rt" / "state.json").unlink()
    assert repo.rt("start", "same words", "--no-baseline").startswith("started 2-same-words:")
    assert (repo.root / ".rt" / "tasks" / "1-same-words" / "task.json").read_bytes() == old
    assert [t["id"] for t in repo.rt_json("tasks")["tasks"]] == ["1-same-words", "2-same-words"]


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


def _waiting_on(lock_fd: int) -> set[int]:
    """The processes blocked on the flock held through `lock_fd`, from /proc/locks (`-> FLOCK ... pid dev:inode`)."""
    inode = os.fstat(lock_fd).st_ino
    waiting = set()
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if len(fields) > 6 and fields[1] == "->" and fields[2] == "FLOCK" and fields[6].endswith(f":{inode}"):
            waiting.add(int(fields[5]))
    return waiting


@pytest.mark.skipif(not Path("/proc/locks").is_file(), reason="needs Linux's /proc/locks to see who waits on a lock")
def test_twenty_concurrent_steps_wait_for_the_store_lock_and_lose_nothing(repo):
    """Twenty `rt step`s started at once while the test holds `.rt/lock`: none may finish while it is held,
    each is seen waiting on it, and once it is released all twenty are recorded, in a valid task.json."""
    from conftest import ROOT
    repo.rt("start", "t")
    repo.rt("plan", "--edit", "src/app.py")
    fd = os.open(repo.root / ".rt" / "lock", os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        procs = [subprocess.Popen([sys.executable, "-m", "rt", "step", f"step {i}"], cwd=repo.root,
                                  env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(20)]
        pids = {p.pid for p in procs}
        deadline = time.monotonic() + 600   # a safety net for a stuck machine, not a measure of speed
        while not pids <= _waiting_on(fd) and not any(p.poll() is not None for p in procs):
            assert time.monotonic() < deadline, "the steps neither waited on the lock nor finished"
            time.sleep(0.05)
        finished = [p.args[-1] for p in procs if p.poll() is not None]
        assert finished == [], f"finished while the store's lock was held: {finished}"
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    assert [p.wait() for p in procs] == [0] * 20, [p.stderr.read() for p in procs]
    task = json.loads((repo.root / ".rt" / "tasks" / "1-t" / "task.json").read_text())   # valid JSON
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
    assert ".git/ is git's own store" in repo.last_err
    repo.rt("scope", "add", "hooks/post-checkout", ret=2)
    assert ".git/ is git's own store" in repo.last_err
    assert repo.rt_json("status")["task"]["scope"] == {"create": [], "delete": [], "edit": ["src/app.py"]}


def test_a_path_in_a_submodule_is_refused_for_the_plan(project, tmp_path):
    """A submodule is a repository of its own: its files are not in the snapshot, so `rt plan --edit sub/s.txt` was
    taken and verify then said it was never done, however it was edited."""
    inner = tmp_path / "inner"
    inner.mkdir()
    for args in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "i"]):
        subprocess.run(["git", *args], cwd=inner, check=True)
    (inner / "s.txt").write_text("s\n")
    subprocess.run(["git", "add", "s.txt"], cwd=inner, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "s"], cwd=inner, check=True)
    project.write("a.txt", "a\n")
    project.init_git()
    project.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
    project.git("commit", "-qm", "sub")
    project.rt("start", "t", "--no-baseline")
    project.rt("plan", "--edit", "sub/s.txt", ret=2)
    assert project.last_err == ("rt: error: --edit sub/s.txt: is in the submodule sub, a repository of its own whose "
                                "files rt does not track here; start the task in sub\n")
    project.rt("plan", "--edit", "a.txt")
    project.rt("scope", "add", "sub/s.txt", ret=2)
    assert "is in the submodule sub" in project.last_err


def test_a_file_the_task_deleted_outside_the_plan_is_approved_as_a_deletion(repo):
    """`rt verify` says to approve a change outside the plan with `rt scope add F`; for a file the task deleted
    that must plan its deletion, not its creation (planned, never done: a FAIL no edit could mend)."""
    repo.rt("start", "t", "--no-baseline")
    repo.rt("plan", "--edit", "src/app.py")
    repo.write("src/app.py", "def total(x):\n    return x + 1\n")
    (repo.root / "src/util.py").unlink()
    assert repo.rt_json("delta", ret=1)["outside_scope"] == ["src/util.py"]
    repo.rt("scope", "add", "src/util.py")
    assert repo.rt_json("status")["task"]["scope"] == {"create": [], "delete": ["src/util.py"], "edit": ["src/app.py"]}
    repo.rt("scope", "remove", "src/util.py")
    repo.rt("scope", "add", "--delete", "src/util.py")
    assert repo.rt_json("delta")["outside_scope"] == []
    repo.rt("start", "u", "--force", "--no-baseline")
    repo.git("rm", "-q", "README.md")   # deleted before the plan: --delete names it still
    repo.rt("plan", "--delete", "README.md")
    repo.rt("scope", "add", "--delete", "gone.py", ret=2)   # never there: nothing to delete
    assert "gone.py: cannot be planned for deletion, it does not exist" in repo.last_err


def test_scope_add_refuses_a_folder_as_the_plan_does(repo):
    """A folder in the scope is a path no change ever has: 'planned but not done' at every verify."""
    repo.rt("start", "t", "--no-baseline")
    repo.rt("plan", "--edit", "src/app.py")
    repo.rt("scope", "add", "src", ret=2)
    assert "src: is a folder; name the files inside it" in repo.last_err
    repo.rt("scope", "add", "--delete", "src/", ret=2)
    assert repo.rt_json("status")["task"]["scope"]["edit"] == ["src/app.py"]


@pytest.mark.parametrize("run", ["verify", "baseline"])
def test_a_run_whose_task_was_set_aside_meanwhile_records_nothing_on_the_next_task(project, tmp_path, run):
    """The checks may run for minutes; a task started with --force meanwhile must not get the verdict (nor the
    failed verify count the edit gate reads, nor the baseline) of a tree and scope it never had."""
    wait = f"while [ ! -e {tmp_path}/go ]; do sleep 0.05; done"
    project.write("rt.toml", '[checks.slow]\nkind = "lint"\nparser = "generic"\ncommand = ["sh", "-c", '
                  f'"if grep -q WAIT a.txt; then touch {tmp_path}/started; {wait}; echo a.txt:1:1: error: bad; fi"]\n')
    project.write("a.txt", "a\n")
    project.init_git()
    project.rt("start", "first", *(["--no-baseline"] if run == "baseline" else []))
    if run == "verify":
        project.rt("plan", "--edit", "a.txt")
    project.write("a.txt", "a\nWAIT\n")
    if run == "baseline":
        project.git("commit", "-qam", "wait")   # a baseline is refused once files changed: start it on this tree
        project.rt("start", "first again", "--force", "--no-baseline")
    proc = subprocess.Popen([sys.executable, "-m", "rt", run], cwd=project.root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)})
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    project.rt("start", "second", "--force", "--no-baseline")
    (tmp_path / "go").touch()
    out, err = proc.communicate(timeout=60)
    task = project.rt_json("status")["task"]
    assert proc.returncode == 2 and f"was closed while its checks ran ({task['id']} is active now)" in err, (out, err)
    assert (task["state"], task.get("verify"), task.get("failed_verifies")) == ("scanned", None, None)
    assert not (project.root / ".rt" / "tasks" / task["id"] / "baseline.json").exists()
