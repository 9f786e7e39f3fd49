"""The PreToolUse Bash guard as a hook: the corpus through the hook's own answer, a sample as real processes,
the `ask` for scope changes, and git aliases read from the repository's config."""
from __future__ import annotations

import json

import pytest
from hooks_support import bash, hook, permission, planned
from test_gitguard import ALLOWED, BLOCKED

from rt.claude.hooks import respond


@pytest.fixture
def repo(project):
    planned(project)
    return project


def _answer(project, command: str) -> tuple[str | None, str]:
    reply = respond("pre-tool-use", json.dumps(bash(project, command)))
    assert reply.code == 0, reply.stderr
    return permission(json.loads(reply.stdout) if reply.stdout else None)


def test_corpus_through_the_hook(repo):
    wrong = [c for c in BLOCKED if _answer(repo, c)[0] != "deny"]
    wrong += [c for c in ALLOWED if _answer(repo, c)[0] is not None]
    assert wrong == []


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
    decision, reason = _answer(repo, "rt scope add b.py")
    assert decision == "ask" and "user" in reason


def test_replanning_asks_but_first_plan_passes(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    assert _answer(project, "rt plan --edit a.py")[0] is None
    project.rt("plan", "--edit", "a.py")
    assert _answer(project, "rt plan --edit a.py b.py")[0] == "ask"


def test_alias_from_repository_config(repo):
    repo.git("config", "alias.ship", "push --force")
    repo.git("config", "alias.wip", "!git add -A && git commit -m wip")
    repo.git("config", "alias.st", "status")
    assert _answer(repo, "git ship")[0] == "deny"
    assert _answer(repo, "git wip")[0] == "deny"
    assert _answer(repo, "git st")[0] is None


def test_missing_command_fails_closed(repo):
    data = bash(repo, "x")
    del data["tool_input"]["command"]
    code, _, err = hook(repo, "pre-tool-use", data)
    assert code == 2 and "'command'" in err
