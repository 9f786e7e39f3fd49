"""The PreToolUse Bash guard as Claude Code runs it: each command of the table (tests/guard_cases.py) as a
JSON payload on stdin to a real `rt hook pre-tool-use` process, in a repository with a planned task; the
task's repository found from a nested repository and from outside the project; git aliases read from the
repository's config."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
from guard_cases import BYPASSES, HARMLESS, NESTED
from guard_harm import write_files
from conftest import ROOT
from hooks_support import bash, edit, hook, payload, permission, planned


@pytest.fixture
def repo(project):
    planned(project)
    write_files(project.root)
    vendored = project.root / "vendored"
    vendored.mkdir()
    project.git("-C", "vendored", "init", "-q")
    return project


def _answers(project, commands: list[str], cwd, env: dict) -> list[tuple[str | None, str]]:
    """(decision, reason) of the real hook for each command, the payload's cwd set to `cwd`, run as
    `rt install` registers it (`python3 -S -m rt hook pre-tool-use`, rt on PYTHONPATH)."""
    def one(command: str):
        data = json.dumps(bash(project, command) | {"cwd": str(cwd)})
        proc = subprocess.run([sys.executable, "-S", "-m", "rt", "hook", "pre-tool-use"], cwd=cwd, input=data,
                              capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT), **env})
        assert proc.returncode == 0 and proc.stderr == "", (command, proc.returncode, proc.stderr)
        return permission(json.loads(proc.stdout) if proc.stdout.strip() else None)
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(one, commands))


def test_table_through_the_hook(repo):
    env = {"CLAUDE_PROJECT_DIR": str(repo.root)}
    wrong = []
    for cls, cases in BYPASSES.items():
        commands = [c for c, _ in cases]
        cwd = repo.root / "vendored" if cls == NESTED else repo.root
        for command, (decision, reason) in zip(commands, _answers(repo, commands, cwd, env)):
            if decision not in ("deny", "ask") or not reason.startswith("rt"):
                wrong.append((cls, command, decision))
            elif "\n" in reason or len(reason) > 600:  # one short line the model reads
                wrong.append((cls, command, reason))
    for command, (decision, reason) in zip(HARMLESS, _answers(repo, HARMLESS, repo.root, env)):
        if decision is not None:
            wrong.append(("harmless", command, reason))
    assert wrong == []


def test_nested_repository_stays_under_the_task(repo):
    """From inside a repository of its own under the task, git aimed anywhere and edits are still judged."""
    nested = repo.root / "vendored"
    env = {"CLAUDE_PROJECT_DIR": str(repo.root)}
    answers = _answers(repo, ["git -C .. push", "git status", "git -C .. reset --hard", "git push"], nested, env)
    assert [a[0] for a in answers] == ["deny", None, "deny", "deny"]
    for path, expected in (("../b.py", "deny"), ("x.txt", "deny"), ("../a.py", None)):
        data = edit(repo, str(nested / path)) | {"cwd": str(nested)}
        assert permission(hook(repo, "pre-tool-use", data, env=env)[1])[0] == expected, path
    data = edit(repo, str(nested / "x.txt")) | {"cwd": str(nested)}
    reason = permission(hook(repo, "pre-tool-use", data, env=env)[1])[1]
    assert "vendored/x.txt is outside the approved scope" in reason


def test_shell_outside_the_project_is_still_guarded(repo, tmp_path):
    elsewhere = tmp_path / "scratch"
    elsewhere.mkdir()
    data = bash(repo, "git push") | {"cwd": str(elsewhere)}
    env = {"CLAUDE_PROJECT_DIR": str(repo.root)}
    assert permission(hook(repo, "pre-tool-use", data, env=env)[1])[0] == "deny"
    assert hook(repo, "pre-tool-use", data, env={"CLAUDE_PROJECT_DIR": ""})[1] is None  # no task in sight


def test_a_store_above_the_project_is_not_the_projects(project, tmp_path):
    """`.rt/` in a folder above the project's own repository belongs to another tree: the hooks stay out."""
    (tmp_path / ".rt").mkdir()
    project.write("a.py", "x = 1\n")
    project.init_git()
    data = bash(project, "git push")
    assert hook(project, "pre-tool-use", data, env={"CLAUDE_PROJECT_DIR": str(project.root)})[1] is None


def test_git_dir_and_work_tree_are_judged_against_the_task(repo):
    env = {"CLAUDE_PROJECT_DIR": str(repo.root)}
    commands = ["git --git-dir=/elsewhere/.git --work-tree=/elsewhere push", "GIT_DIR=/x/.git git commit -m x",
                "git -C /tmp/scratch commit -m x", "git --git-dir=/elsewhere/.git log"]
    assert [a[0] for a in _answers(repo, commands, repo.root, env)] == ["deny", "deny", "deny", None]


@pytest.mark.parametrize("command", ["git push --force origin main", 'bash -c "git commit -am x"',
                                     "cd sub && env GIT_DIR=.git /usr/bin/git reset --hard"])
def test_blocked_as_a_real_process(repo, command):
    code, out, err = hook(repo, "pre-tool-use", bash(repo, command))
    decision, reason = permission(out)
    assert code == 0 and decision == "deny" and reason.startswith("rt")
    assert err == ""


@pytest.mark.parametrize("command", ["git status", "git checkout -b new", 'echo "git push"'])
def test_harmless_as_a_real_process(repo, command):
    assert hook(repo, "pre-tool-use", bash(repo, command)) == (0, None, "")


def test_scope_add_is_the_users_decision(repo):
    decision, reason = permission(hook(repo, "pre-tool-use", bash(repo, "rt scope add b.py"))[1])
    assert decision == "ask" and "user" in reason


def test_replanning_asks_but_first_plan_passes(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    assert hook(project, "pre-tool-use", bash(project, "rt plan --edit a.py"))[1] is None
    project.rt("plan", "--edit", "a.py")
    assert permission(hook(project, "pre-tool-use", bash(project, "rt plan --edit a.py b.py"))[1])[0] == "ask"


def test_alias_from_repository_config(repo):
    repo.git("config", "alias.ship", "push --force")
    repo.git("config", "alias.wip", "!git add -A && git commit -m wip")
    repo.git("config", "alias.st", "status")
    ship, wip, st = _answers(repo, ["git ship", "git wip", "git st"], repo.root, {})
    assert ship[0] == "deny" and "push --force" in ship[1]
    assert wip[0] == "deny" and "shell command" in wip[1]
    assert st[0] == "ask" and "run `git status` instead" in st[1]


def test_missing_command_fails_closed(repo):
    data = bash(repo, "x")
    del data["tool_input"]["command"]
    code, _, err = hook(repo, "pre-tool-use", data)
    assert code == 2 and "'command'" in err


def test_repository_without_rt_gets_no_answer(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    assert hook(project, "pre-tool-use", payload(project, "PreToolUse", tool_name="Bash",
                                                 tool_input={"command": "git push --force"},
                                                 tool_use_id="t"))[1] is None
