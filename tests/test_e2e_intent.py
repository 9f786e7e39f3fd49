"""Intent mode in the real Claude Code client: the commands typed as a user types them, one `claude -p`
per user message (`--continue` for the next one: prompts written at once to one stream-json session are
folded into the first turn), against the scripted fake API. Assertions are on what the model was sent,
on the files and on git afterwards."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from rt.claude.intent import COMMANDS, CONVERSATION, parse, transcript_intent
from tests.e2e.fakeapi import text, tool
from tests.e2e.harness import claude_binary, run_claude, seen, tool_results

pytestmark = pytest.mark.skipif(claude_binary() is None,
                                reason="the Claude Code client is not installed (run `bash .ci/run` to install it)")

ROOT = Path(__file__).resolve().parent.parent
APP = "def total(xs):\n    return sum(xs)\n"
UTIL = "def helper():\n    return 1\n"


def make(project, tmp_path, *, install: bool = True, task: bool = True):
    """A committed Python project with git identity; rt installed with --intent; a task planned on app.py."""
    project.write("app.py", APP)
    project.write("util.py", UTIL)
    project.write(".gitignore", ".claude/\n")
    project.init_git()
    project.git("config", "user.name", "t")
    project.git("config", "user.email", "t@t")
    if install:
        project.rt("install", "--intent")
    if task:
        project.rt("start", "tidy the app", "--no-baseline")
        project.rt("plan", "--edit", "app.py")
    project.home = tmp_path / "home"
    return project


def say(project, prompt: str, script: list, *, first: bool = False, args: tuple[str, ...] = ()):
    """One user message as its own `claude -p` run; later ones continue the same session."""
    run = run_claude(project.root, project.home, prompt, script, args=(() if first else ("--continue",)) + args)
    assert run.code == 0, run.stderr
    return run


def edit(project, rel: str, old: str, new: str) -> dict:
    return tool("Edit", file_path=str(project.root / rel), old_string=old, new_string=new)


def new_results(run, i: int) -> list[dict]:
    """The tool results that reached the model by turn `i` of this run, not those of earlier runs, which
    stay in the conversation's history."""
    return tool_results(run.turns[i])[len(tool_results(run.turns[0])):]


def commits(project) -> list[str]:
    return project.git("log", "--format=%s").splitlines()


def test_a_plain_message_gets_no_edit_and_go_gets_the_edit_and_the_understood_as_line(project, tmp_path):
    repo = make(project, tmp_path)
    run = say(repo, "why does total not round?", [[edit(repo, "app.py", "sum(xs)", "round(sum(xs))")],
                                                  [text("It does not round because ...")]], first=True)
    [result] = new_results(run, 1)
    assert result["is_error"] is True and f"rt: {CONVERSATION}." in result["content"]
    assert repo.read("app.py") == APP

    run = say(repo, "/go make total round its result", [[edit(repo, "app.py", "sum(xs)", "round(sum(xs))")],
                                                        [text("Understood as: round the total. Done.")]])
    first = seen(run.turns[0])
    assert "<command-name>/go</command-name>\n<command-args>make total round its result</command-args>" in first
    assert 'Begin your reply with one line "Understood as: <the task in your own words>"' in first
    [result] = new_results(run, 1)
    assert not result.get("is_error"), result
    assert repo.read("app.py") == APP.replace("sum(xs)", "round(sum(xs))")
    # the scope still applies under /go
    run = say(repo, "/go also change the helper", [[edit(repo, "util.py", "return 1", "return 2")], [text("no")]])
    [result] = new_results(run, 1)
    assert result["is_error"] is True and "util.py is outside the approved scope" in result["content"]

    # the client's own transcript stores the typed /go as markup, and rt reads it back from there
    [path] = (repo.home / ".claude" / "projects").glob(f"*/{run.session_id}.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines()]
    prompts = [r for r in records if r.get("type") == "user" and isinstance(r["message"]["content"], str)
               and not r.get("isMeta")]
    go = [r for r in prompts if "make total round" in r["message"]["content"]]
    assert [r["message"]["content"] for r in go] == [
        "<command-message>go</command-message>\n<command-name>/go</command-name>\n"
        "<command-args>make total round its result</command-args>"]
    assert transcript_intent(str(path), go[0]["promptId"]).name == "go"
    assert [parse(r["message"]["content"]).name for r in prompts][:3] == [None, "go", "go"]


def test_q_then_an_edit_is_denied(project, tmp_path):
    repo = make(project, tmp_path)
    run = say(repo, "/q what does total return?", [[edit(repo, "app.py", "sum(xs)", "sum(xs) or 0")],
                                                   [text("the sum")]], first=True)
    assert "Answer the user's question above in words only" in seen(run.turns[0])
    [result] = new_results(run, 1)
    assert result["is_error"] is True and "the user asked with /q: answer in words only" in result["content"]
    assert repo.read("app.py") == APP


def test_stop_runs_rts_command_not_the_builtin(project, tmp_path):
    """`/stop` is a built-in of the client (it stops a background session); the project command wins."""
    repo = make(project, tmp_path)
    run = say(repo, "/stop", [[edit(repo, "app.py", "sum(xs)", "0")], [text("stopped")]], first=True)
    assert "Run `rt status` and report" in seen(run.turns[0])
    [result] = new_results(run, 1)
    assert result["is_error"] is True and "/stop: stop, run `rt status`" in result["content"]


def test_commit_lets_exactly_one_commit_through(project, tmp_path):
    repo = make(project, tmp_path)
    before = commits(repo)
    script = [[tool("Bash", command="git commit --allow-empty -m 'first'", description="commit")],
              [tool("Bash", command="git commit --allow-empty -m 'second'", description="commit again")],
              [text("committed once")]]
    run = say(repo, "/commit", script, first=True)
    assert "Make exactly one git commit now" in seen(run.turns[0])
    first, second = new_results(run, 2)
    assert not first.get("is_error"), first
    assert second["is_error"] is True and "the user has not allowed a commit" in second["content"]
    assert commits(repo) == ["first", *before]
    assert "permission:" not in repo.rt("status")


def test_a_subagents_commit_under_a_live_commit_is_denied(project, tmp_path):
    repo = make(project, tmp_path)
    before = commits(repo)
    script = [[tool("Agent", description="commit it", subagent_type="general-purpose",
                    prompt="SUBAGENT_PROMPT commit the work", run_in_background=False)],
              [tool("Bash", command="git commit --allow-empty -m 'by the subagent'", description="commit")],
              [text("SUBAGENT_DONE could not commit")],
              [text("the subagent could not commit")]]
    run = say(repo, "/commit", script, first=True)
    sub = next(body for body in run.turns if "SUBAGENT_PROMPT" in seen(body) and tool_results(body))
    [result] = tool_results(sub)
    assert result["is_error"] is True and "a subagent cannot use the user's /commit permission" in result["content"]
    assert commits(repo) == before
    assert "permission: commit allowed once" in repo.rt("status")  # not spent by the refused attempt


def test_mem_lands_in_the_journal_and_in_the_next_pack(project, tmp_path):
    repo = make(project, tmp_path, task=False)
    fact = "total must keep returning an int, callers compare it with =="
    run = say(repo, f"/mem {fact}", [[text("Noted.")]], first=True)
    assert "rt recorded the user's words above in its journal as a fact" in seen(run.turns[0])
    assert [(e["kind"], e["text"]) for e in repo.rt_json("journal")["entries"]] == [("mem", fact)]
    run = say(repo, "/runtask rename total to grand_total", [[text("ok")]])
    first = seen(run.turns[0])
    assert "rt: task 1-rename-total-to-grand-total started." in first and "def total(xs):" in first
    assert f"The user's facts (/mem), newest first:\n- {fact}\n" in first


def test_command_names_and_the_override(project, tmp_path):
    """Without rt's files the client offers none of the ten; with them it lists all ten as slash commands,
    and keeps them out of the model's skill listing (disable-model-invocation)."""
    repo = make(project, tmp_path, install=False, task=False)
    run = say(repo, "hello", [[text("hi")]], first=True)
    init = next(e for e in run.events if e.get("subtype") == "init")
    assert not set(COMMANDS) & set(init["slash_commands"])
    repo.rt("install", "--intent")
    run = say(repo, "hello again", [[text("hi")]], first=True)
    init = next(e for e in run.events if e.get("subtype") == "init")
    assert set(COMMANDS) <= set(init["slash_commands"])
    listing = seen(run.turns[0]) + json.dumps(run.turns[0].get("system"))
    assert "The following skills are available" in listing
    assert not any(f"- {name}: {m.summary}" in listing for name, m in COMMANDS.items())


def test_the_plugin_with_intent_on_in_rt_toml(project, tmp_path):
    repo = make(project, tmp_path, install=False)
    repo.write("rt.toml", "intent = true\n")
    plugin = ("--plugin-dir", str(ROOT))
    run = say(repo, "thoughts on total?", [[edit(repo, "app.py", "sum(xs)", "0")], [text("fine")]],
              first=True, args=plugin)
    [result] = new_results(run, 1)
    assert result["is_error"] is True and f"rt: {CONVERSATION}." in result["content"]
    run = say(repo, "/go make total return 0", [[edit(repo, "app.py", "sum(xs)", "0")], [text("done")]],
              args=plugin)
    first = seen(run.turns[0])
    assert "<command-name>/rt:go</command-name>" in first and '"Understood as:' in first
    assert not new_results(run, 1)[0].get("is_error")
    assert repo.read("app.py") == APP.replace("sum(xs)", "0")
