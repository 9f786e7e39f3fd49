"""rt inside the real Claude Code client: what the model sees when the installed skill and hooks run.

Each test installs rt into a temporary repository (`rt install`), runs `claude -p` against the scripted
fake API, and asserts on the request bodies the fake API received, and on the files afterwards.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.e2e.fakeapi import text, tool
from tests.e2e.harness import claude_binary, run_claude, seen, tool_results

pytestmark = pytest.mark.skipif(claude_binary() is None,
                                reason="needs claude (the Claude Code client): not installed here (`bash .ci/run` installs it)")

APP = "def total(xs):\n    return sum(xs)\n"
UTIL = "def helper():\n    return 1\n"


@pytest.fixture
def repo(project, tmp_path):
    """A small Python project with ruff configured, committed, with rt installed into its `.claude/`."""
    project.write("pyproject.toml", '[project]\nname = "demo"\n\n[tool.ruff]\nline-length = 100\n')
    project.write("app.py", APP)
    project.write("util.py", UTIL)
    project.write(".gitignore", ".claude/\n")
    project.init_git()
    project.rt("install")
    project.home = tmp_path / "home"
    return project


def rt_on_path(tmp_path: Path) -> Path:
    """A folder with an `rt` command running this checkout, as `pip install` would provide."""
    folder = tmp_path / "bin"
    folder.mkdir()
    root = Path(__file__).resolve().parent.parent
    wrapper = folder / "rt"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{root}" exec "{sys.executable}" -m rt "$@"\n')
    os.chmod(wrapper, 0o755)
    return folder


def planned(repo, *edit: str) -> None:
    """A task already started (with its baseline) and planned, as after the first steps of /runtask."""
    repo.rt("start", "tidy the app")
    repo.rt("plan", "--edit", *edit)


def edit(repo, rel: str, old: str, new: str) -> dict:
    return tool("Edit", file_path=str(repo.root / rel), old_string=old, new_string=new)


def test_runtask_puts_the_tasks_code_into_the_first_request(repo):
    run = run_claude(repo.root, repo.home, "/runtask rename total to grand_total", [[text("ok")]])
    assert run.code == 0, run.stderr
    first = seen(run.turns[0])
    assert "UserPromptSubmit hook additional context: rt: task 1-rename-total-to-grand-total started." in first
    assert "### app.py 1-2 of 2: function total\n1\tdef total(xs):\n2\t    return sum(xs)\n" in first
    assert "rt started the task" in first  # the skill body, expanded by /runtask
    assert first.count("rename total to grand_total") == 2   # the command's arguments, as the client repeats them
    assert repo.rt_json("status")["task"]["state"] == "ready"  # started with its baseline


def test_a_vague_runtask_gives_the_model_the_files_of_the_work_going_on(repo):
    repo.write("util.py", UTIL + "\n\ndef other():\n    return 2\n")
    repo.git("commit", "-qam", "other helper")
    repo.write("app.py", APP + "\n\ndef mean(xs):\n    return total(xs) / len(xs)\n")   # not committed yet
    run = run_claude(repo.root, repo.home, "/runtask minor fix", [[text("ok")]])
    assert run.code == 0, run.stderr
    first = seen(run.turns[0])
    assert "The task's words pick out no files" in first
    assert "The work going on (not committed, then the last commits), newest first: app.py, util.py." in first
    assert "### app.py 1-6 of 6: changed here\n1\tdef total(xs):\n2\t    return sum(xs)\n3\t\n4\t\n5\tdef mean(xs):\n" in first


def test_in_scope_edit_goes_through_and_its_new_lint_error_reaches_the_next_request(repo):
    planned(repo, "app.py")
    script = [[edit(repo, "app.py", "def total", "import os\n\n\ndef total")], [text("done")]]
    run = run_claude(repo.root, repo.home, "add the import", script)
    assert run.code == 0, run.stderr
    assert repo.read("app.py").startswith("import os\n")
    [result] = tool_results(run.turns[1])
    assert not result.get("is_error")
    after = seen(run.turns[1])
    assert "PostToolUse:Edit hook additional context:" in after
    assert "F401" in after and "app.py" in after
    assert repo.rt_json("status")["task"]["state"] == "building"


def test_out_of_scope_edit_is_denied_with_the_reason(repo):
    planned(repo, "app.py")
    script = [[edit(repo, "util.py", "return 1", "return 2")], [text("stopping")]]
    run = run_claude(repo.root, repo.home, "change the helper", script)
    assert run.code == 0, run.stderr
    assert repo.read("util.py") == UTIL
    [result] = tool_results(run.turns[1])
    assert result["is_error"] is True
    assert "util.py is outside the approved scope" in result["content"]
    assert "ask the user" in result["content"]


def test_a_shell_write_outside_the_scope_is_reported_in_the_next_request(repo):
    planned(repo, "app.py")
    script = [[tool("Bash", command="echo 'x = 1' >> util.py", description="append")], [text("stopping")]]
    run = run_claude(repo.root, repo.home, "append to util", script, args=("--allowedTools", "Bash"))
    assert run.code == 0, run.stderr
    after = seen(run.turns[1])
    assert "PostToolUse:Bash hook additional context: rt: the shell changed 1 file(s) outside the approved scope" in after
    assert "util.py" in after


def test_a_failing_shell_commands_write_outside_the_scope_is_reported_too(repo):
    """A command that fails fires PostToolUseFailure, not PostToolUse: rt registers both."""
    planned(repo, "app.py")
    script = [[tool("Bash", command="echo 'x = 1' >> util.py; exit 3", description="append")], [text("stopping")]]
    run = run_claude(repo.root, repo.home, "append to util", script, args=("--allowedTools", "Bash"))
    assert run.code == 0, run.stderr
    [result] = tool_results(run.turns[1])
    assert result["is_error"] is True
    after = seen(run.turns[1])
    assert ("PostToolUseFailure:Bash hook additional context: rt: the shell changed 1 file(s) outside the "
            "approved scope") in after
    assert "util.py" in after


def test_the_agent_cannot_extend_its_own_scope_without_the_user(repo, tmp_path):
    """`rt scope add` through Bash is put to the user even where Bash is allowed; in -p nobody can approve."""
    planned(repo, "app.py")
    script = [[tool("Bash", command="rt scope add util.py", description="extend")], [text("asking the user")]]
    run = run_claude(repo.root, repo.home, "extend the scope", script, path=rt_on_path(tmp_path),
                     args=("--allowedTools", "Bash"))
    assert run.code == 0, run.stderr
    [result] = tool_results(run.turns[1])
    assert result["is_error"] is True, result
    assert "extending the approved scope is the user's decision" in result["content"]
    assert repo.rt_json("status")["task"]["scope"]["edit"] == ["app.py"]


def test_git_push_in_a_chain_is_blocked(repo, tmp_path):
    remote = tmp_path / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    planned(repo, "app.py")
    script = [[tool("Bash", command="git status --short && git push origin main", description="publish")],
              [text("stopping")]]
    run = run_claude(repo.root, repo.home, "publish the work", script)
    assert run.code == 0, run.stderr
    [result] = tool_results(run.turns[1])
    assert result["is_error"] is True
    assert "PreToolUse:Bash hook error" in result["content"] and "push" in result["content"]
    assert repo.git("--git-dir", str(remote), "for-each-ref") == ""  # nothing reached the remote


def test_the_deny_rules_block_git_push_even_without_the_hook(repo, tmp_path):
    """The second line of defence: with the Bash hook gone and Bash allowed, the installed rules still hold."""
    remote = tmp_path / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    settings = json.loads(repo.read(".claude/settings.json"))
    del settings["hooks"]["PreToolUse"]
    repo.write(".claude/settings.json", json.dumps(settings))
    script = [[tool("Bash", command="echo ready && git push origin main", description="publish")], [text("stopping")]]
    run = run_claude(repo.root, repo.home, "publish the work", script, args=("--allowedTools", "Bash"))
    assert run.code == 0, run.stderr
    [result] = tool_results(run.turns[1])
    assert result["is_error"] is True and "has been denied" in result["content"]
    assert repo.git("--git-dir", str(remote), "for-each-ref") == ""


def test_a_subagents_edit_is_gated_the_same_way(repo):
    planned(repo, "app.py")
    script = [
        [tool("Agent", subagent_type="rt-executor", description="change helper",
              prompt="SUBAGENT_TASK change util.py", run_in_background=False)],
        [edit(repo, "util.py", "return 1", "return 2")],   # the subagent's first turn
        [text("the scope does not allow util.py")],        # the subagent's last turn
        [text("stopping")],                                 # back in the main agent
    ]
    run = run_claude(repo.root, repo.home, "delegate the change", script)
    assert run.code == 0, run.stderr
    sub = run.turns[1]
    assert "SUBAGENT_TASK change util.py" in seen(sub)
    assert "You carry out one coding task under rt" in json.dumps(sub["system"])  # the rt-executor definition
    assert repo.read("util.py") == UTIL
    [result] = tool_results(run.turns[2])
    assert result["is_error"] is True and "util.py is outside the approved scope" in result["content"]


def test_resume_brings_the_task_status_back(repo):
    first = run_claude(repo.root, repo.home, "/runtask rename total to grand_total", [[text("ok")]])
    assert first.code == 0 and first.session_id
    repo.rt("plan", "--edit", "app.py")
    run = run_claude(repo.root, repo.home, "where were we?", [[text("ok")]], args=("--resume", first.session_id))
    assert run.code == 0, run.stderr
    context = seen(run.turns[0])
    assert "SessionStart hook additional context: rt: a task is active in this repository." in context
    assert "# rt handoff: task 1-rename-total-to-grand-total (planned)" in context   # rt/session/handoff.py
    assert "## Goal\nrename total to grand_total\n\n## Constraints\n- scope: edit app.py" in context


def test_compaction_brings_the_task_status_back(repo):
    first = run_claude(repo.root, repo.home, "/runtask rename total to grand_total", [[text("ok")]])
    assert first.code == 0 and first.session_id
    repo.rt("plan", "--edit", "app.py")
    script = [[text("<summary>COMPACT_SUMMARY the task was started</summary>")], [text("ok")]]
    run = run_claude(repo.root, repo.home, ["/compact", "go on"], script, args=("--resume", first.session_id))
    assert run.code == 0, run.stderr
    after = seen(run.turns[-1])
    assert "COMPACT_SUMMARY" in after  # the old turns are replaced by the summary
    assert "rt started the task" not in after
    assert "SessionStart hook additional context: rt: a task is active in this repository." in after
    assert "# rt handoff: task 1-rename-total-to-grand-total (planned)" in after and "- scope: edit app.py" in after


def test_a_turn_that_ends_after_an_edit_without_verify_is_sent_back_once(repo):
    planned(repo, "app.py")
    script = [[edit(repo, "app.py", "sum(xs)", "sum(list(xs))")], [text("done")], [text("still done")]]
    run = run_claude(repo.root, repo.home, "tweak total", script)
    assert run.code == 0, run.stderr
    sent_back = [body for body in run.turns if "Stop hook feedback" in seen(body)]
    assert len(sent_back) == 1
    assert "rt verify" in seen(sent_back[0])
    assert len(run.turns) == 3  # the edit, the first stop (sent back), the second stop (let through)
    assert run.result.get("result") == "still done"


def test_the_whole_runtask_workflow_runs_rt_through_bash_and_ends_finished(repo, tmp_path):
    """/runtask's skill lets `rt ...` run through Bash (its allowed-tools), even in an untrusted workspace."""
    script = [
        [tool("Bash", command="rt plan --edit app.py --note rename", description="plan")],
        [edit(repo, "app.py", "def total", "def grand_total")],
        [tool("Bash", command="rt verify", description="verify")],
        [tool("Bash", command="rt finish", description="finish")],
        [text("renamed total to grand_total; verify PASS")],
    ]
    run = run_claude(repo.root, repo.home, "/runtask rename total to grand_total", script, path=rt_on_path(tmp_path))
    assert run.code == 0, run.stderr
    results = [tool_results(body)[-1] for body in run.turns[1:]]
    assert not any(r.get("is_error") for r in results), results
    assert results[0]["content"] == "scope: edit app.py"
    assert "# verify: PASS" in results[2]["content"] and "rt: [1/" not in results[2]["content"]  # no progress lines
    assert "verdict: PASS" in results[3]["content"]
    assert not any("Stop hook feedback" in seen(body) for body in run.turns)  # verified and finished: let through
    assert len(run.turns) == 5
    assert repo.read("app.py").startswith("def grand_total")
    assert repo.rt_json("tasks")["finished"] == 1


def test_a_user_wide_install_works_in_a_project_without_its_own(project, tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    project.write("app.py", APP)
    project.init_git()
    project.rt("install", "--user")
    assert not (project.root / ".claude").exists()
    run = run_claude(project.root, home, "/runtask rename total to grand_total", [[text("ok")]])
    assert run.code == 0, run.stderr
    first = seen(run.turns[0])
    assert "rt started the task" in first
    assert "1\tdef total(xs):" in first
