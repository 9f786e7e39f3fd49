"""The PreToolUse edit gate, driven as Claude Code drives it: `rt hook pre-tool-use` with JSON on stdin."""
from __future__ import annotations

import json
import os
import shutil

import pytest
from hooks_support import bash, edit, hook, permission, planned


def test_in_scope_edit_passes_silently(project):
    planned(project)
    code, out, err = hook(project, "pre-tool-use", edit(project, "a.py"))
    assert (code, out, err) == (0, None, "")


def test_out_of_scope_edit_is_denied_with_an_actionable_reason(project):
    planned(project)
    code, out, _ = hook(project, "pre-tool-use", edit(project, "b.py"))
    decision, reason = permission(out)
    assert code == 0 and decision == "deny"
    assert "b.py is outside the approved scope" in reason
    assert "ask the user" in reason and "rt scope add b.py" in reason


def test_scope_admits_a_file_by_its_whole_path_only(project):
    """`a.py` in the scope opens a.py, not a file whose path starts or ends like it."""
    planned(project)
    for path in ("a.py.orig", "a.pyc", "a.p", "a", "xa.py", "sub/a.py", "A.py", "a.py/x"):
        decision, reason = permission(hook(project, "pre-tool-use", edit(project, path, tool="Write"))[1])
        assert decision == "deny" and f"rt: {path} is outside the approved scope of task 1-change-x" in reason, path


def test_every_edit_tool_is_gated(project):
    planned(project, create=("new.py",))
    for tool in ("Write", "MultiEdit", "NotebookEdit"):
        assert permission(hook(project, "pre-tool-use", edit(project, "b.py", tool=tool))[1])[0] == "deny", tool
    assert hook(project, "pre-tool-use", edit(project, "new.py", tool="Write"))[1] is None


def test_no_active_task_denies(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    project.rt("block", "waiting")
    decision, reason = permission(hook(project, "pre-tool-use", edit(project, "a.py"))[1])
    assert decision == "deny" and "no active task" in reason and "/runtask" in reason


def test_task_without_plan_denies_and_names_next_step(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    decision, reason = permission(hook(project, "pre-tool-use", edit(project, "a.py"))[1])
    assert decision == "deny" and "no approved scope yet" in reason and "rt plan" in reason


def test_verified_task_stays_editable(project):
    planned(project)
    store = project.root / ".rt" / "tasks"
    task_file = next(store.glob("*/task.json"))
    task = json.loads(task_file.read_text())
    task["state"] = "verified"
    task_file.write_text(json.dumps(task))
    assert hook(project, "pre-tool-use", edit(project, "a.py"))[1] is None


def test_path_outside_repository_is_denied(project, tmp_path):
    planned(project)
    outside = tmp_path / "elsewhere.py"
    outside.write_text("z = 1\n")
    decision, reason = permission(hook(project, "pre-tool-use", edit(project, str(outside)))[1])
    assert decision == "deny" and "outside the repository" in reason
    decision, _ = permission(hook(project, "pre-tool-use", edit(project, str(project.root / ".." / "x.py")))[1])
    assert decision == "deny"


def test_path_through_symlink_leaving_repository_is_denied(project, tmp_path):
    (tmp_path / "ext").mkdir()
    (tmp_path / "ext" / "a.py").write_text("q = 1\n")
    planned(project)
    os.symlink(tmp_path / "ext", project.root / "link")
    decision, reason = permission(hook(project, "pre-tool-use", edit(project, "link/a.py"))[1])
    assert decision == "deny" and "symlink" in reason


def test_an_edit_through_a_linked_folder_is_the_planned_file(project):
    planned(project)
    os.symlink(".", project.root / "here")
    assert hook(project, "pre-tool-use", edit(project, "here/a.py")) == (0, None, "")
    decision, reason = permission(hook(project, "pre-tool-use", edit(project, "here/b.py"))[1])
    assert decision == "deny" and "rt: b.py is outside the approved scope" in reason


def test_rt_store_cannot_be_edited(project):
    planned(project)
    decision, reason = permission(hook(project, "pre-tool-use", edit(project, ".rt/state.json"))[1])
    assert decision == "deny" and ".rt/" in reason


def test_subagent_meets_the_same_gate(project):
    planned(project)
    sub = edit(project, "b.py", agent_id="ae36a3661501ab5f9", agent_type="general-purpose")
    assert permission(hook(project, "pre-tool-use", sub)[1])[0] == "deny"
    sub_ok = edit(project, "a.py", agent_id="ae36a3661501ab5f9", agent_type="general-purpose")
    assert hook(project, "pre-tool-use", sub_ok)[1] is None


def test_relative_path_taken_from_payload_cwd(project):
    project.write("pkg/m.py", "m = 1\n")
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    project.rt("plan", "--edit", "pkg/m.py")
    data = edit(project, "m.py")
    data["tool_input"]["file_path"] = "m.py"
    data["cwd"] = str(project.root / "pkg")
    assert hook(project, "pre-tool-use", data)[1] is None


def test_a_session_in_a_subfolder_meets_the_gate(project):
    """The hook finds the task's `.rt/` from a session started in a subfolder: an edit outside the scope is
    still denied there, one inside it passes."""
    project.write("pkg/sub/m.py", "m = 1\n")
    project.write("pkg/other.py", "o = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    project.rt("plan", "--edit", "pkg/sub/m.py")
    for path, allowed in (("m.py", True), ("../other.py", False)):
        data = edit(project, path)
        data["tool_input"]["file_path"] = path
        data["cwd"] = str(project.root / "pkg" / "sub")
        decision, reason = permission(hook(project, "pre-tool-use", data)[1])
        assert decision == (None if allowed else "deny"), (path, reason)
    assert "rt: pkg/other.py is outside the approved scope" in reason


def test_repository_without_rt_is_left_alone(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    assert hook(project, "pre-tool-use", edit(project, "a.py")) == (0, None, "")
    assert hook(project, "pre-tool-use", bash(project, "git push")) == (0, None, "")
    assert not (project.root / ".rt").exists()


def test_other_tools_pass(project):
    planned(project)
    data = edit(project, "b.py", tool="Read")
    assert hook(project, "pre-tool-use", data) == (0, None, "")


# ---------------------------------------------------------------- bad input: fail closed, visibly

def test_empty_stdin_fails_closed(project):
    planned(project)
    code, out, err = hook(project, "pre-tool-use", "")
    assert code == 2 and out is None
    assert "stdin is empty" in err and "blocked" in err


@pytest.mark.parametrize("raw", ["{not json", "[" * 100_000 + "]" * 100_000])
def test_not_json_fails_closed(project, raw):
    planned(project)
    code, _, err = hook(project, "pre-tool-use", raw)
    assert code == 2 and "stdin is not JSON" in err and "internal error" not in err


def test_missing_fields_fail_closed(project):
    planned(project)
    code, _, err = hook(project, "pre-tool-use", json.dumps({"cwd": str(project.root)}))
    assert code == 2 and "'tool_name'" in err
    no_path = edit(project, "a.py")
    del no_path["tool_input"]["file_path"]
    code, _, err = hook(project, "pre-tool-use", no_path)
    assert code == 2 and "'file_path'" in err
    code, _, err = hook(project, "pre-tool-use", json.dumps([1, 2]))
    assert code == 2 and "not an object" in err


def test_damaged_state_fails_closed_with_the_repair_hint(project):
    planned(project)
    next((project.root / ".rt" / "tasks").glob("*/task.json")).write_text("{cut sho")
    code, _, err = hook(project, "pre-tool-use", edit(project, "a.py"))
    assert code == 2 and "rt repair" in err


def test_unknown_event_is_a_usage_error(project):
    proc = project.rt_proc("hook", "bogus", input="{}")
    assert proc.returncode == 2 and "unknown event 'bogus'" in proc.stderr and "pre-tool-use" in proc.stderr
    proc = project.rt_proc("hook", input="{}")
    assert proc.returncode == 2 and "no event given" in proc.stderr
    proc = project.rt_proc("hook", "--help")
    assert (proc.returncode, proc.stderr) == (0, "")
    assert proc.stdout == ("usage: rt hook <event>  (reads the hook's JSON on stdin; events: pre-compact, stop, "
                           "post-tool-use, pre-tool-use, user-prompt-submit, session-start)\n")


def test_internal_error_blocks_the_edit_in_one_line(project):
    """Any exception, not only rt's own errors, fails the edit gate closed: exit 2 with one line on stderr.
    (Claude Code ignores exit 1 and a traceback: the edit would go through.)"""
    planned(project)
    task_file = next((project.root / ".rt" / "tasks").glob("*/task.json"))
    task = json.loads(task_file.read_text())
    task["fix_limit"] = "2"   # damaged by hand: reading it raises a TypeError in rt
    task_file.write_text(json.dumps(task))
    code, out, err = hook(project, "pre-tool-use", edit(project, "a.py"))
    assert (code, out) == (2, None)
    assert err == ("rt hook pre-tool-use: internal error: TypeError: can only concatenate str (not \"int\") to str. The tool "
                   "call is blocked to be safe; fix the cause (`rt doctor`, `rt repair`) or ask the user.\n")


def test_a_record_of_another_shape_denies_the_edit_and_names_the_repair(project):
    planned(project)
    task_file = next((project.root / ".rt" / "tasks").glob("*/task.json"))
    task_file.write_text(json.dumps(json.loads(task_file.read_text()) | {"scope": 5}))
    code, out, err = hook(project, "pre-tool-use", edit(project, "a.py"))
    assert (code, out) == (2, None) and err.count("\n") == 1
    assert "task.json is damaged (its 'scope' is not what rt writes there); run `rt repair`" in err


def test_in_process_command_table_gives_the_same_answer(project, monkeypatch):
    import io
    planned(project)
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(edit(project, "b.py"))))
    out = json.loads(project.rt("hook", "pre-tool-use"))
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_gate_process_stays_lean(project):
    """The PreToolUse hook runs on every tool call, as `rt install` registers it (`-S -P`): no argparse, no
    command table, no checks or index, and no program started or signalled (no `subprocess`, `signal`) for
    an edit or `git status`."""
    planned(project)
    for data in (edit(project, "a.py"), edit(project, "b.py"), bash(project, "git status")):
        proc, imported = project.imports("hook", "pre-tool-use", input=json.dumps(data))
        assert proc.returncode == 0 and "rt.claude.hooks" in imported
        assert not imported & {"argparse", "rt.cli", "rt.checks", "rt.task.verify", "rt.context", "rt.task.changes", "rt.snapshot",
                               "subprocess", "signal", "dataclasses", "typing"}
        others = ("rt.task", "rt.index", "rt.lookup", "rt.pack", "rt.diagnostics", "rt.session", "rt.mcp", "rt.agent")
        assert not {m for m in imported if m.startswith(others)}, "a subsystem the gate does not use"


def test_git_store_cannot_be_edited_even_when_in_scope(project):
    """A scope that names a file in .git/ (written by hand into task.json) still does not open it."""
    planned(project)
    task_file = next((project.root / ".rt" / "tasks").glob("*/task.json"))
    task = json.loads(task_file.read_text())
    task["scope"]["create"] = [".git/hooks/pre-commit", "sub/.git/config"]
    task_file.write_text(json.dumps(task))
    for path in (".git/hooks/pre-commit", "sub/.git/config", ".git/config"):
        decision, reason = permission(hook(project, "pre-tool-use", edit(project, path, tool="Write"))[1])
        assert decision == "deny" and ".git/ is git's own store" in reason, path



@pytest.mark.skipif(shutil.which("ruff") is None, reason="needs ruff: not installed here (`bash .ci/run` installs it)")
def test_post_edit_process_stays_lean(project):
    """PostToolUse after an edit, ruff the project's check, run as `rt install` registers it (`-S -P`): it
    runs ruff on the file and compares with the baseline, and imports nothing else: no command-line
    parsing, no index, no pack, no diff library, no temporary files, no `dataclasses` (which imports
    `inspect`, `ast` and `dis`) or `typing`, also when ruff finds nothing and the forms any tool may write
    are tried, and no TOML parser while rt.toml and pyproject.toml are as rt last read them (kept parsed
    in .rt/). A changed rt.toml is parsed again and holds at once: the check whose command it changed is held back
    for this task, said once."""
    project.write("pyproject.toml", "[tool.ruff.lint]\nselect = ['F']\n")
    project.write("rt.toml", '[checks.ruff]\nkind = "lint"\nparser = "ruff"\n'
                             'command = ["ruff", "check", "--output-format=concise", "--no-cache", "."]\n'
                             'per_file = ["ruff", "check", "--output-format=concise", "--no-cache", "{file}"]\n'
                             'files = ["*.py"]\n')
    project.write("a.py", "import os\n\nx = os.sep\n")
    project.init_git()
    project.rt("start", "change a")
    project.rt("plan", "--edit", "a.py")
    heavy = {"argparse", "shutil", "tempfile", "difflib", "configparser", "rt.index", "rt.context", "rt.pack",
             "rt.lookup", "rt.agent", "rt.mcp", "rt.task.commands", "rt.diagnostics.parsers.js", "dataclasses",
             "inspect"}
    said = []
    bodies = ("import os\nimport json\n\nx = os.sep\n", "import os\nimport json\nimport sys\n\nx = os.sep\n",
              "import os\n\nx = os.sep\n")
    for n, body in enumerate(bodies):
        project.write("a.py", body)
        if n == 1:   # rt.toml changed: this check now looks for E501 only, a command the task did not start with
            project.write("rt.toml", project.read("rt.toml").replace('"--no-cache", "{file}"',
                                                                     '"--no-cache", "--select", "E501", "{file}"'))
        proc, imported = project.imports("hook", "post-tool-use",
                                         input=json.dumps(edit(project, "a.py", event="PostToolUse")))
        assert proc.returncode == 0 and "rt.task.verify" in imported
        assert not imported & heavy, imported & heavy
        assert ("tomllib" in imported) == (n == 1)
        assert "typing" not in imported or "tomllib" in imported, "typing only for the TOML parser"
        said.append(proc.stdout)
    assert "a.py:2" in said[0] and "F401" in said[0]
    assert "ruff could not check a.py: its command changed after the task started" in said[1] and said[2] == ""
