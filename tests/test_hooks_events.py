"""PostToolUse (state, formatter, new diagnostics, shell writes outside the scope), SessionStart,
UserPromptSubmit (/runtask), Stop, and two hooks at once on the same task."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hooks_support import bash, context_text, edit, hook, payload, planned

ROOT = Path(__file__).resolve().parent.parent


def _task(project) -> dict:
    return json.loads(next((project.root / ".rt" / "tasks").glob("*/task.json")).read_text())


# ---------------------------------------------------------------- PostToolUse on edits

def test_edit_moves_planned_to_building(project):
    planned(project)
    project.write("a.py", "x = 2\n")
    code, out, err = hook(project, "post-tool-use", edit(project, "a.py", event="PostToolUse"))
    assert (code, out, err) == (0, None, "")  # no checks configured: nothing to say
    assert _task(project)["state"] == "building"


def test_a_check_that_cannot_run_is_said_after_the_first_edit_only(project):
    """Every later edit would repeat the same line into the context; `rt verify` still reports it each run."""
    project.write("rt.toml", '[checks.lint]\nkind = "lint"\ncommand = ["no-such-linter-here"]\n'
                             'per_file = ["no-such-linter-here", "{file}"]\n')
    planned(project, edit=("a.py", "b.py"))
    said = []
    for rel, text in (("a.py", "x = 2\n"), ("b.py", "y = 3\n"), ("a.py", "x = 4\n")):
        project.write(rel, text)
        said.append(context_text(hook(project, "post-tool-use", edit(project, rel, event="PostToolUse"))[1],
                                 "PostToolUse"))
    assert said[0] == ("lint could not check a.py: program not found: no-such-linter-here (install it, or set its "
                       "command in rt.toml) (said once: `rt verify` stays INCOMPLETE while it cannot run)")
    assert said[1:] == ["", ""]
    assert "- lint (lint): could not run: program not found: no-such-linter-here" in project.rt("verify", ret=3)


def test_edit_after_verify_moves_back_to_building(project):
    planned(project)
    task_file = next((project.root / ".rt" / "tasks").glob("*/task.json"))
    task = json.loads(task_file.read_text())
    task["state"] = "verified"
    task_file.write_text(json.dumps(task))
    hook(project, "post-tool-use", edit(project, "a.py", event="PostToolUse"))
    moved = _task(project)
    assert moved["state"] == "building"
    assert moved["history"][-1]["from"] == "verified"


@pytest.mark.skipif(shutil.which("ruff") is None, reason="needs ruff: not installed here (`bash .ci/run` installs it)")
def test_formatter_then_only_new_diagnostics(project):
    project.write("pyproject.toml", "[tool.ruff]\nline-length = 100\n[tool.ruff.lint]\nselect = ['F']\n"
                                    "[tool.ruff.format]\n")
    project.write("a.py", "import os\n\nx = os.sep\n")
    project.write("old.py", "import sys\n")  # an existing finding: in the baseline, never reported
    project.init_git()
    project.rt("start", "use json")
    project.rt("plan", "--edit", "a.py")
    project.write("a.py", "import os\nimport json\n\nx   =   os.sep\n")
    code, out, _ = hook(project, "post-tool-use", edit(project, "a.py", event="PostToolUse"))
    text = context_text(out, "PostToolUse")
    assert code == 0
    assert "rt formatted a.py" in text
    assert project.read("a.py") == "import os\nimport json\n\nx = os.sep\n"
    assert "a.py:2" in text and "F401" in text
    assert "old.py" not in text


def test_a_formatter_added_after_the_task_started_is_not_run(project, tmp_path):
    """An agent's edit of rt.toml's [format] would have the post-edit hook run its command without the user's word."""
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    project.rt("plan", "--edit", "a.py", "--create", "rt.toml")
    marker = tmp_path / "ran"
    project.write("rt.toml", f'[format]\n"*.py" = ["{sys.executable}", "-c", "open({str(marker)!r}, \'w\')", "{{file}}"]\n')
    project.write("a.py", "x = 2\n")
    text = context_text(hook(project, "post-tool-use", edit(project, "a.py", event="PostToolUse"))[1], "PostToolUse")
    assert "rt did not format a.py: the config's [format] changed after the task started" in text
    assert not marker.exists()


def test_a_file_gone_by_the_time_the_hook_runs_is_not_formatted(project, tmp_path):
    """A file deleted between the edit and its PostToolUse (a shell command, the user) had the formatter run on it,
    and the model read "the formatter failed ... No such file": nothing to format, nothing to say."""
    marker = tmp_path / "ran"
    project.write("rt.toml", f'[format]\n"*.py" = ["{sys.executable}", "-c", "open({str(marker)!r}, \'w\'); '
                             f'open(__import__(\'sys\').argv[1])", "{{file}}"]\n')
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    project.rt("plan", "--edit", "a.py")
    payload = edit(project, "a.py", event="PostToolUse")
    (project.root / "a.py").unlink()
    text = context_text(hook(project, "post-tool-use", payload)[1], "PostToolUse")
    assert "format" not in text and not marker.exists(), text


def test_check_that_cannot_run_is_said_plainly(project):
    project.write("pyproject.toml", "[tool.mypy]\n")
    project.write("rt.toml", '[checks.mypy]\ncommand = ["no-such-mypy-here", "."]\n'
                             'per_file = ["no-such-mypy-here", "{file}"]\n')
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt_proc("start", "t")  # the baseline records that mypy could not run
    project.rt("plan", "--edit", "a.py")
    project.write("a.py", "x = 2\n")
    code, out, _ = hook(project, "post-tool-use", edit(project, "a.py", event="PostToolUse"))
    text = context_text(out, "PostToolUse")
    assert code == 0 and "could not" in text and "a.py" in text


def test_post_edit_bad_input_fails_open_with_a_visible_note(project):
    planned(project)
    code, out, err = hook(project, "post-tool-use", "")
    text = context_text(out, "PostToolUse")
    assert (code, err) == (0, "") and "could not run" in text and "stdin is empty" in text
    code, out, _ = hook(project, "post-tool-use", "[]")
    assert code == 0 and "not an object" in context_text(out, "PostToolUse")


# ---------------------------------------------------------------- PostToolUse on Bash

def test_shell_write_outside_scope_is_reported_once(project):
    planned(project)
    project.write("b.py", "y = 3\n")
    code, out, _ = hook(project, "post-tool-use", bash(project, "sed -i s/2/3/ b.py", event="PostToolUse"))
    text = context_text(out, "PostToolUse")
    assert code == 0 and "outside the approved scope" in text and "M b.py" in text
    assert "a.py" not in text
    assert hook(project, "post-tool-use", bash(project, "ls", event="PostToolUse"))[1] is None
    project.write("c.py", "new\n")
    text = context_text(hook(project, "post-tool-use", bash(project, "touch c.py", event="PostToolUse"))[1],
                        "PostToolUse")
    assert "A c.py" in text and "b.py" not in text


def test_a_shell_command_writing_many_files_outside_the_scope_is_said_within_the_clients_limit(project):
    """A build or an install writing hundreds of files listed every one: past 10,000 characters the client hands
    the model a 2 KB preview of a saved file instead. The first ones are named, the rest counted."""
    planned(project)
    for i in range(400):
        project.write(f"gen/generated_output_file_{i:03}.txt", f"{i}\n")
    code, out, err = hook(project, "post-tool-use", bash(project, "make", event="PostToolUse"))
    text = context_text(out, "PostToolUse")
    assert (code, err) == (0, "") and len(text) < 9000
    assert "the shell changed 400 file(s) outside the approved scope" in text
    assert "A gen/generated_output_file_000.txt" in text and "... and 390 more (`rt delta` lists them all)" in text
    assert hook(project, "post-tool-use", bash(project, "ls", event="PostToolUse"))[1] is None   # each said once


def test_shell_write_inside_scope_is_quiet(project):
    planned(project)
    project.write("a.py", "x = 5\n")
    assert hook(project, "post-tool-use", bash(project, "sed -i s/1/5/ a.py", event="PostToolUse"))[1] is None


def test_failed_shell_command_is_checked_too(project):
    planned(project)
    project.write("b.py", "y = 9\n")
    data = payload(project, "PostToolUseFailure", tool_name="Bash", tool_input={"command": "false"},
                   error="Exit code 1", is_interrupt=False)
    text = context_text(hook(project, "post-tool-use", data)[1], "PostToolUseFailure")
    assert "b.py" in text


# ---------------------------------------------------------------- SessionStart

@pytest.mark.parametrize("source", ["startup", "compact", "resume", "clear"])
def test_session_start_restores_the_task(project, source):
    """The status on a fresh start; the whole handoff, holding the same lines, after the others."""
    planned(project)
    code, out, _ = hook(project, "session-start", payload(project, "SessionStart", source=source))
    text = context_text(out, "SessionStart")
    assert code == 0
    if source == "startup":
        assert "task 1-change-x: change x" in text and "state: planned" in text and "scope: edit a.py" in text
        assert "next:" in text
    else:
        assert "task 1-change-x (planned)" in text and "## Goal\nchange x\n" in text and "- scope: edit a.py" in text
        assert "## Next steps\n- edit the planned files" in text
    again = hook(project, "session-start", payload(project, "SessionStart", source=source))[1]
    if source == "resume":   # the same handoff is in this session's context already
        assert context_text(again, "SessionStart").endswith("the handoff given earlier in this session still holds "
                                                            "(`rt handoff` prints it again).")
    else:
        assert again == out  # byte-stable


@pytest.mark.parametrize("source", ["startup", "compact"])
def test_session_start_answers_in_utf8_whatever_a_record_holds(project, source):
    """A record kept from a Latin-1 terminal (`caf\\udce9`, as rt read such an argument before it made it `?`) and
    a note with a byte that is no UTF-8: the hook still answers, in UTF-8, under a strict locale."""
    planned(project)
    record = project.root / ".rt/tasks/1-change-x/task.json"
    data = json.loads(record.read_text())
    data["text"] = "caf\udce9"
    record.write_text(json.dumps(data))
    proc = project.rt_proc("hook", "session-start", input=json.dumps(payload(project, "SessionStart", source=source)),
                           env={"PYTHONIOENCODING": "utf-8:strict"})
    assert proc.returncode == 0 and proc.stderr == ""
    assert "caf?" in context_text(json.loads(proc.stdout), "SessionStart")


def test_free_text_keeps_no_control_character_and_no_byte_that_is_no_utf8(project):
    planned(project)
    project.rt("note", "--decision", "caf\udce9 \x1b[2Jnow\x07")
    assert "caf? ?[2Jnow?" in project.rt("handoff")
    project.rt("step", "one\r\ntwo\x00")
    assert project.rt_json("status")["task"]["steps"][-1]["note"] == "one\ntwo?"


def test_session_start_without_task_says_nothing(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    assert hook(project, "session-start", payload(project, "SessionStart", source="compact")) == (0, None, "")


# ---------------------------------------------------------------- UserPromptSubmit

def test_runtask_starts_the_task_injects_its_code_and_writes_manifest_and_pack(project):
    project.write("billing/invoice.py", "def total(items):\n    return sum(i.price for i in items)\n")
    project.write("README.md", "# shop\n")
    project.init_git()
    prompt = "   /runtask fix the invoice total rounding"
    code, out, _ = hook(project, "user-prompt-submit", payload(project, "UserPromptSubmit", prompt=prompt))
    text = context_text(out, "UserPromptSubmit")
    assert code == 0 and text.startswith("rt: task 1-fix-the-invoice-total-rounding started.")
    assert "### billing/invoice.py 1-2 of 2: function total\n1\tdef total(items):\n" in text
    assert "Read .rt/tasks/1-fix-the-invoice-total-rounding/: pack.md" in text
    task_dir = project.root / ".rt/tasks/1-fix-the-invoice-total-rounding"
    assert (task_dir / "pack.md").read_text().startswith("# Task pack")
    assert (task_dir / "manifest.md").read_text().startswith("# Repository manifest")
    status = project.rt_json("status")["task"]
    assert status["text"] == "fix the invoice total rounding"
    again = context_text(hook(project, "user-prompt-submit",
                              payload(project, "UserPromptSubmit", prompt="/runtask another"))[1], "UserPromptSubmit")
    assert "already active" in again and "1-fix-the-invoice-total-rounding" in again
    assert project.rt_json("tasks")["total"] == 1


def test_plugin_namespaced_runtask_and_empty_task(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    text = context_text(hook(project, "user-prompt-submit",
                             payload(project, "UserPromptSubmit", prompt="/runtask"))[1], "UserPromptSubmit")
    assert "needs the task" in text
    text = context_text(hook(project, "user-prompt-submit",
                             payload(project, "UserPromptSubmit", prompt="/rt:runtask rename x"))[1], "UserPromptSubmit")
    assert text.startswith("rt: task 1-rename-x started.")


@pytest.mark.parametrize("prompt", ["fix the bug", "/runtasks x", "please /runtask x", "/other x"])
def test_other_prompts_pass_untouched(project, prompt):
    project.write("a.py", "x = 1\n")
    project.init_git()
    assert hook(project, "user-prompt-submit", payload(project, "UserPromptSubmit", prompt=prompt)) == (0, None, "")
    assert not (project.root / ".rt" / "state.json").exists()


# ---------------------------------------------------------------- Stop

def _stop(project, **extra):
    return hook(project, "stop", payload(project, "Stop", stop_hook_active=False, last_assistant_message="done",
                                         **extra))


def test_stop_blocks_once_when_changes_were_never_verified(project):
    planned(project)
    assert _stop(project) == (0, None, "")  # nothing changed yet
    project.write("a.py", "x = 2\n")
    code, out, _ = _stop(project)
    assert code == 0 and out["decision"] == "block"
    assert "never verified" in out["reason"] and "rt verify" in out["reason"] and "rt finish" in out["reason"]
    assert hook(project, "stop", payload(project, "Stop", stop_hook_active=True)) == (0, None, "")


def test_stop_compares_with_the_last_verify(project):
    planned(project)
    project.write("a.py", "x = 2\n")
    project.rt_proc("verify")
    assert _task(project).get("verify"), "rt verify records its fingerprint"
    assert _stop(project) == (0, None, "")
    project.write("a.py", "x = 3\n")
    out = _stop(project)[1]
    assert out["decision"] == "block" and "since its last `rt verify`" in out["reason"]


def test_stop_before_any_plan_asks_for_the_plan_first(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    project.write("a.py", "x = 2\n")  # written through the shell: the edit gate never saw it
    reason = _stop(project)[1]["reason"]
    assert "rt plan" in reason and reason.index("rt plan") < reason.index("rt verify")


def test_stop_in_a_subagent_never_blocks(project):
    planned(project)
    project.write("a.py", "x = 2\n")
    assert _stop(project, agent_id="a1", agent_type="general-purpose") == (0, None, "")


def test_stop_error_reports_once(project):
    planned(project)
    next((project.root / ".rt" / "tasks").glob("*/task.json")).write_text("{cut")
    code, out, _ = _stop(project)
    assert code == 0 and out["decision"] == "block" and "could not check" in out["reason"]
    assert hook(project, "stop", payload(project, "Stop", stop_hook_active=True)) == (0, None, "")
    code, out, _ = hook(project, "stop", "")  # cannot tell whether it already blocked: tell the user, never block
    assert code == 0 and "decision" not in out and "stdin is empty" in out["systemMessage"]


# ---------------------------------------------------------------- two hooks at once

def test_two_post_edit_hooks_at_once_keep_the_task_whole(project):
    planned(project, edit=("a.py", "b.py"))
    project.write("a.py", "x = 2\n")
    project.write("b.py", "y = 3\n")
    procs = []
    for name in ("a.py", "b.py") * 3:
        data = json.dumps(edit(project, name, event="PostToolUse"))
        procs.append(subprocess.Popen([sys.executable, "-m", "rt", "hook", "post-tool-use"], cwd=project.root,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      env={**os.environ, "PYTHONPATH": str(ROOT)}, text=True))
        procs[-1].stdin.write(data)
        procs[-1].stdin.close()
    results = [(p.wait(), p.stdout.read(), p.stderr.read()) for p in procs]
    assert all(code == 0 and not err for code, _, err in results), results
    task = _task(project)
    assert task["state"] == "building"
    assert [h["to"] for h in task["history"]].count("building") == 1


# ---------------------------------------------------------------- the failure policy, event by event

@pytest.mark.parametrize("event, name", [("post-tool-use", "PostToolUse"), ("session-start", "SessionStart"),
                                         ("user-prompt-submit", "UserPromptSubmit")])
def test_open_hooks_say_what_failed(project, event, name):
    planned(project)
    for raw in ("", "not json", "{}" if event == "user-prompt-submit" else "[]"):
        code, out, err = hook(project, event, raw)
        assert (code, err) == (0, ""), raw
        assert context_text(out, name).startswith(f"rt could not run its {name} hook: "), raw


def test_repository_without_rt_gets_no_answer_from_any_hook(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.write("a.py", "x = 2\n")
    calls = [("post-tool-use", edit(project, "a.py", event="PostToolUse")),
             ("post-tool-use", bash(project, "touch b.py", event="PostToolUse")),
             ("session-start", payload(project, "SessionStart", source="resume")),
             ("user-prompt-submit", payload(project, "UserPromptSubmit", prompt="fix it")),
             ("stop", payload(project, "Stop", stop_hook_active=False))]
    for event, data in calls:
        assert hook(project, event, data) == (0, None, ""), event
    assert not (project.root / ".rt").exists()


def test_a_scope_of_hundreds_of_files_is_named_within_the_clients_limit(project):
    """A rename across the tree planned as 450 files: the edit gate's denial, the session's status and /runtask's
    "already active" each listed every one, 12,000 characters, and the client gave the model a preview instead."""
    names = [f"src/module_number_{i:03}.py" for i in range(450)]
    for name in names:
        project.write(name, "x = 1\n")
    project.write("other.py", "y = 1\n")
    project.init_git()
    project.rt("start", "rename x", "--no-baseline")
    project.rt("plan", "--edit", *names)
    denied = hook(project, "pre-tool-use", edit(project, "other.py"))[1]["hookSpecificOutput"]["permissionDecisionReason"]
    status = context_text(hook(project, "session-start", payload(project, "SessionStart", source="startup"))[1],
                          "SessionStart")
    again = context_text(hook(project, "user-prompt-submit",
                              payload(project, "UserPromptSubmit", prompt="/runtask another"))[1], "UserPromptSubmit")
    for text in (denied, status, again):
        assert len(text) < 9000, len(text)
        assert "src/module_number_029.py and 420 more (`rt status --json` lists them all)" in text
    assert len(project.rt_json("status")["task"]["scope"]["edit"]) == 450
