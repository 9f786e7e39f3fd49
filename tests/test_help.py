"""`rt help`: full usage of one command, BM25 search over the command table, and plain empty results."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from rt.cli import COMMANDS

ROOT_SKILL = Path(__file__).resolve().parent.parent / "skill" / "SKILL.md"


def test_help_command_prints_full_usage_of_any_command_in_the_table(project):
    for name in COMMANDS:
        out = project.rt("help", name)
        assert out.startswith(f"usage: rt {name}"), name
        assert COMMANDS[name].summary in out
    assert "--edit F" in project.rt("help", "plan")


def test_help_usage_is_byte_stable_whatever_the_terminal(project, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    narrow = project.rt("help", "plan")
    monkeypatch.setenv("COLUMNS", "250")
    assert project.rt("help", "plan") == narrow


def test_search_ranks_the_command_that_does_it_first(project):
    cases = {
        "what changed since the task started": "delta",
        "show the diff of my edits": "review",
        "record the files I am allowed to edit": "plan",
        "stop the task because it cannot go on": "block",
        "install the hooks into claude code": "install",
        "is the hook answering": "doctor",
    }
    for query, want in cases.items():
        data = project.rt_json("help", "--search", query)
        assert data["results"][0]["command"] == want, (query, data["results"])
    out = project.rt("help", "--search", "changed files since start")
    assert out.splitlines()[0].startswith("delta")


AGENT_QUERIES = {
    "where is a function defined": "symbol",
    "show lines of a file": "slice",
    "who calls this function": "refs",
    "find where a button label is": "find",
    "list the functions in a file": "outline",
    "check my edit for new lint errors": "check",
    "add a file to the scope": "scope",
    "compare two CI logs": "diff-logs",
    "what files are in the repo": "manifest",
    "record something I checked by hand": "claim",
    "why is the hook not working": "doctor",
    "what changed since the task started": "delta",
    "run the tests": "verify",
    "get an overview of the project structure": "manifest",
    "the most relevant code for my task": "pack",
}
"""How an agent asks, in its own words, and the command that answers (needs the whole project's table)."""


def test_search_answers_an_agents_own_wording(project):
    missing = sorted(set(AGENT_QUERIES.values()) - set(COMMANDS))
    if missing:
        pytest.fail(f"commands not in the table: {missing}")
    top1 = 0
    for query, want in AGENT_QUERIES.items():
        ranked = [r["command"] for r in project.rt_json("help", "--search", query)["results"]]
        assert want in ranked[:3], (query, ranked[:3])
        top1 += ranked[0] == want
    assert top1 >= 0.8 * len(AGENT_QUERIES), top1


def test_search_finds_commands_added_to_the_table_later(project, monkeypatch):
    from rt.cli import Command
    monkeypatch.setitem(COMMANDS, "frobnicate", Command("rt.task.commands", "task", "polish the widgets until they shine"))
    monkeypatch.setattr("rt.task.commands.args_frobnicate", lambda p: None, raising=False)
    monkeypatch.setattr("rt.task.commands.cmd_frobnicate", lambda ctx, args: None, raising=False)
    data = project.rt_json("help", "--search", "shine the widgets")
    assert data["results"][0]["command"] == "frobnicate"


def test_empty_search_says_so_and_suggests_other_words(project):
    project.rt("help", "--search", "xylophone quasar", ret=1)
    err = project.last_err
    assert "no command's description matches" in err
    assert "does not mean rt cannot do it" in err and "other words" in err


def test_words_that_name_no_command_search_the_commands(project):
    """`rt help find where a label is`: what the user wants to do, as `--search` takes it."""
    assert project.rt("help", "find", "where", "a", "label", "is").splitlines()[0].startswith("find ")
    assert project.rt("help", "label") == project.rt("help", "--search", "label")
    project.rt("help", "xylophone", "quasar", ret=1)
    assert "no command's description matches 'xylophone quasar'" in project.last_err


def test_unknown_command_names_the_closest(project):
    project.rt("help", "stat", ret=2)
    assert "closest: start, status" in project.last_err


def test_bad_usage(project):
    project.rt("help", "plan", "--search", "x", ret=2)
    assert "give a command name or --search, not both" in project.last_err
    project.rt("help", "--search", "  ...  ", ret=2)
    assert "--search needs words" in project.last_err


def test_overview_lists_every_command(project):
    out = project.rt("help")
    for name in COMMANDS:
        assert re.search(rf"^  {re.escape(name)}\s", out, re.M), name


def test_skill_points_to_the_full_command_list():
    """The skill's body is sent on every /runtask, so it names the commands of its flow and leaves the
    rest to `rt help`, which lists every command (test_overview_lists_every_command)."""
    text = ROOT_SKILL.read_text(encoding="utf-8")
    assert "`rt help` lists every command" in text and "`rt help --search" in text
    assert len(text) < 2000


def test_every_command_in_the_skill_has_the_options_it_shows():
    from rt.cli import build_parser
    text = ROOT_SKILL.read_text(encoding="utf-8")
    shown = re.findall(r"`rt ([a-z-]+)([^`]*)`", text)
    assert len({name for name, _ in shown}) >= 10
    for name, rest in shown:
        assert name in COMMANDS, f"the skill documents `rt {name}`, which is not a command"
        parser, _ = build_parser(name)
        options = {s for a in parser._actions for s in a.option_strings}
        for flag in re.findall(r"(?<![\w-])--[a-z-]+", rest):
            assert flag in options, f"`rt {name}` has no {flag}"
