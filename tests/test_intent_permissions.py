"""/commit and /push: one operation, of that kind, within ten minutes, by the main agent, never a destructive
one. The cases below run through rt's PreToolUse hook with a set clock (no waiting).

The mutation test switches off, one at a time, the four guards of the permission (the expiry, the single
use, the subagent ban, the kind check) and shows that the cases catch each: it fails if a mutation
survives, so a guard that no case exercises cannot go unnoticed.
"""
from __future__ import annotations

import pytest
from intent_support import bash, intent_project, prompt

from rt import journal, state
from rt.claude import intent

T0 = 1_000_000.0

# A step: ("user", text, session, seconds after T0) or ("bash", command, session, agent, seconds, decision,
# words the reason must hold). Decision "allow": rt answers allow; "deny": rt denies.
CASES: dict[str, list[tuple]] = {
    "commit within ten minutes": [
        ("user", "/commit", "s1", 0),
        ("bash", "git commit -m 'fix the parser'", "s1", None, 599, "allow", "this one commit is let through")],
    "commit after ten minutes": [
        ("user", "/commit", "s1", 0),
        ("bash", "git commit -m 'late'", "s1", None, 600, "deny", "expired")],
    "a second commit": [
        ("user", "/commit", "s1", 0),
        ("bash", "git commit -m 'one'", "s1", None, 10, "allow", ""),
        ("bash", "git commit -m 'two'", "s1", None, 20, "deny", "has not allowed a commit")],
    "a subagent's commit": [
        ("user", "/commit", "s1", 0),
        ("bash", "git commit -m 'sub'", "s1", "ada22a1749adf7ad6", 10, "deny", "a subagent cannot use"),
        ("bash", "git commit -m 'main'", "s1", None, 20, "allow", "")],  # the subagent did not spend it
    "a push under /commit": [
        ("user", "/commit", "s1", 0),
        ("bash", "git push", "s1", None, 10, "deny", "allowed one commit (/commit), not a push"),
        ("bash", "git commit -m 'x'", "s1", None, 20, "allow", "")],
    "a commit under /push": [
        ("user", "/push", "s1", 0),
        ("bash", "git commit -m 'x'", "s1", None, 10, "deny", "allowed one push (/push), not a commit")],
    "a push within ten minutes": [
        ("user", "/push", "s1", 0),
        ("bash", "git push origin main", "s1", None, 300, "allow", "this one push is let through")],
    "a destructive push under /push": [
        ("user", "/push", "s1", 0),
        ("bash", "git push --force origin main", "s1", None, 10, "deny", "no force"),
        ("bash", "git push origin +main", "s1", None, 10, "deny", "no force"),
        ("bash", "git push origin main", "s1", None, 10, "allow", "")],
    "more than one commit, or an amend, under /commit": [
        ("user", "/commit", "s1", 0),
        ("bash", "git commit -m 'a' && git commit -m 'b'", "s1", None, 10, "deny", "no second commit or push"),
        ("bash", "git commit --amend -m 'x'", "s1", None, 10, "deny", "no amend"),
        ("bash", "git add -A && git commit -m 'x'", "s1", None, 10, "allow", "")],  # staging first is fine
    "another session": [
        ("user", "/commit", "s1", 0),
        ("user", "what is left to do?", "s2", 5),
        ("bash", "git commit -m 'x'", "s2", None, 10, "deny", "has not allowed a commit")],
    "a conversation turn after /commit": [  # the permission outlives its turn, as the seed has it
        ("user", "/commit", "s1", 0),
        ("user", "thanks", "s1", 30),
        ("bash", "git commit -m 'x'", "s1", None, 60, "allow", "")],
}


def run_case(project, monkeypatch, steps: list[tuple]) -> list[str]:
    """Run one case from a clean intent state; the steps whose answer was not the expected one."""
    project.root.joinpath(".rt", journal.INTENT_FILE).unlink(missing_ok=True)
    project.rt("intent", "on")
    wrong = []
    for i, step in enumerate(steps):
        if step[0] == "user":
            _, text, session, at = step
            monkeypatch.setattr(state, "now", lambda at=at: T0 + at)
            prompt(project, text, session=session, prompt_id=f"p{i}")
            continue
        _, command, session, agent, at, want, words = step
        monkeypatch.setattr(state, "now", lambda at=at: T0 + at)
        decision, reason = bash(project, command, session=session, agent=agent, prompt_id=f"p{i}")
        if decision != want or words not in reason:
            wrong.append(f"step {i} `{command}`: {decision} ({reason})")
    return wrong


@pytest.fixture
def repo(project):
    intent_project(project)
    return project


@pytest.mark.parametrize("name", list(CASES))
def test_case(repo, monkeypatch, name):
    assert run_case(repo, monkeypatch, CASES[name]) == []


MUTATIONS = {
    # name: (object, attribute, replacement, the case that must catch it)
    "no ten-minute expiry": (journal, "expired", lambda grant, now: False, "commit after ten minutes"),
    "no single use": (intent, "_spend", lambda data, grant: None, "a second commit"),
    "no subagent ban": (intent, "_is_subagent", lambda payload: False, "a subagent's commit"),
    "no kind check": (intent, "_kind_fits", lambda grant, kind: True, "a push under /commit"),
}


@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_the_cases_catch_each_mutation(repo, monkeypatch, mutation):
    owner, name, replacement, catcher = MUTATIONS[mutation]
    with monkeypatch.context() as m:
        m.setattr(owner, name, replacement)
        caught = {case for case, steps in CASES.items() if run_case(repo, monkeypatch, steps)}
    assert caught, f"the mutation {mutation!r} survived every case"
    assert catcher in caught, (mutation, sorted(caught))


def test_the_permission_is_spent_on_disk(repo, monkeypatch):
    """What the status line and `rt intent` read: the grant, gone once used."""
    monkeypatch.setattr(state, "now", lambda: T0)
    prompt(repo, "/commit")
    assert [g["kind"] for g in repo.rt_json("intent")["permissions"]] == ["commit"]
    assert bash(repo, "git commit -m 'x'")[0] == "allow"
    assert repo.rt_json("intent")["permissions"] == []


def test_mode_off_commit_stays_blocked_and_the_model_is_told(project):
    intent_project(project, on=False)
    note = prompt(project, "/commit")
    assert "intent mode is off in this project, so /commit grants nothing" in note
    decision, reason = bash(project, "git commit -m 'x'")
    assert decision == "deny" and reason.startswith("rt blocks `git commit")
    assert "/commit" not in reason


# ---------------------------------------------------------------- which commands a permission lets through

@pytest.mark.parametrize("command,kind,allowed", [
    ("git commit -m 'fix the parser'", "commit", True),
    ("git commit -am 'x'", "commit", True),
    ("git add -A && git commit -m 'x'", "commit", True),
    ('git commit -m "$(cat <<\'EOF\'\nthe message\nEOF\n)"', "commit", True),  # Claude Code's usual form
    ("git push", "push", True),
    ("git push -u origin feature/x", "push", True),
    ("git commit --amend -m x", "commit", False),
    ("git commit --no-verify -m x", "commit", False),   # hooks skipped
    ("git commit -m a && git commit -m b", "commit", False),
    ("git commit -m x && git push", "commit", False),
    ("git commit -m x && git reset --hard", "commit", False),
    ("git commit -m x; rm -rf .git", "commit", False),
    ("for i in 1 2; do git commit -m x; done", "commit", False),
    ("git -c core.hooksPath=/tmp/h commit -m x", "commit", False),
    ("git push --force", "push", False),
    ("git push -f origin main", "push", False),
    ("git push origin +main", "push", False),
    ("git push --delete origin x", "push", False),
    ("git push --mirror", "push", False),
    ("git push --all", "push", False),
    ("export CDPATH=/tmp; cd other && git commit -m x", "commit", False),   # cd lands in /tmp/other
    ("CDPATH=/tmp cd other && git commit -m x", "commit", False),
    ("cd ./sub/.. && git commit -m x", "commit", True),
])
def test_what_one_permission_lets_through(repo, monkeypatch, command, kind, allowed):
    """The git guard's reading (`gitguard.sole_operation`): one plain commit or push, nothing else blocked."""
    monkeypatch.setattr(state, "now", lambda: T0)
    prompt(repo, f"/{kind}")
    decision, reason = bash(repo, command)
    assert decision == ("allow" if allowed else "deny"), reason
