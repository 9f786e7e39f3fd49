"""Long sessions in the real Claude Code client: what its compaction summariser is asked to keep, what the
first request after a compaction carries, and the tokens `rt usage` reads back from the transcript.

Each message is its own `claude -p` run (`--continue`), as in cc-facts §5: a `/compact` run, then the
next prompt. The fake API prices every answer through `tests/e2e/cache.py`.
"""
from __future__ import annotations

import json

import pytest

from rt.session.handoff import PRECOMPACT, SECTIONS
from tests.e2e.cache import PromptCache
from tests.e2e.fakeapi import text
from tests.e2e.harness import claude_binary, run_claude, seen
from tests.test_e2e_task import APP, repo  # noqa: F401  (the fixture: a small project with rt installed)

pytestmark = pytest.mark.skipif(claude_binary() is None,
                                reason="needs claude (the Claude Code client): not installed here (`bash .ci/run` installs it)")

ERROR = "app.py:1:8 ruff [F401] `os` imported but unused"
DECISION = "DECISION_MARK total() stays a pure function"
PATTERN = "PATTERN_MARK helpers live in util.py, imported by absolute name"


def recorded_task(repo) -> None:
    """A task with a failed verify (a real ruff error), a step, a decision and a pattern."""
    repo.rt("start", "tidy the app")
    repo.rt("plan", "--edit", "app.py")
    repo.write("app.py", "import os\n\n" + APP)
    repo.rt("verify", ret=1)
    repo.rt("step", "STEP_MARK added the import")
    repo.rt("note", "--decision", DECISION)
    repo.rt("note", "--pattern", PATTERN)


def summariser_request(run) -> dict:
    [body] = [b for b in run.requests if "Additional Instructions:" in seen(b)]
    return body


def test_compaction_asks_for_the_two_sections_and_the_next_request_carries_the_handoff(repo):
    recorded_task(repo)
    cache = PromptCache()
    first = run_claude(repo.root, repo.home, "FIRST_PROMPT hello", [[text("ok")]], usage=cache)
    assert first.code == 0, first.stderr
    compact = run_claude(repo.root, repo.home, "/compact FOCUS_MARK", [[text("<summary>SUMMARY_MARK</summary>")]],
                         args=("--continue",), usage=cache)
    assert compact.code == 0, compact.stderr
    asked = seen(summariser_request(compact))
    # the PreCompact hook's text follows the user's own instructions in the summariser's request
    assert f"Additional Instructions:\nFOCUS_MARK\n\n{PRECOMPACT}" in asked
    after = run_claude(repo.root, repo.home, "AFTER_PROMPT go on", [[text("ok")]], args=("--continue",), usage=cache)
    assert after.code == 0, after.stderr
    body = after.turns[0]
    now = seen(body)
    assert "SUMMARY_MARK" in now and "FIRST_PROMPT" not in now   # the old turns replaced by the summary
    handoff = repo.rt("handoff").rstrip("\n")
    assert f"SessionStart hook additional context: rt: a task is active in this repository.\n{handoff}" in now
    assert now.count("# rt handoff: task") == 1   # the run's resume gave the same bytes; the client sent them once
    for name in SECTIONS:
        assert f"\n## {name}\n" in now
    for fact in (ERROR, DECISION, PATTERN, "step 1: STEP_MARK added the import"):
        assert fact in now
    # what the client sends again after the compaction: the PreCompact text, paid for a second time
    assert "PreCompact [" in now and PRECOMPACT in now.split("Compacted", 1)[1]
    data = repo.rt_json("usage")
    [task] = data["tasks"]
    [session] = data["sessions"]
    assert session["compactions"] == 1 and task["compactions"] == 1
    summariser = cache.answers[len(first.requests)]   # the /compact run's one request
    assert (session["unseen"]["input"], session["unseen"]["output"]) == \
        (summariser["input_tokens"], summariser["output_tokens"])   # the client's own total has it; the records do not


def test_usage_reads_back_what_the_api_answered(repo):
    """Every answer the fake API priced that the transcript records, once, under the task's window."""
    recorded_task(repo)
    cache = PromptCache()
    run = run_claude(repo.root, repo.home, "hello", [[text("ok")]], usage=cache)
    assert run.code == 0, run.stderr
    again = run_claude(repo.root, repo.home, "and again", [[text("ok")]], args=("--continue",), usage=cache)
    assert again.code == 0, again.stderr
    [task] = repo.rt_json("usage")["tasks"]
    answered = cache.answers
    assert task["total"]["requests"] == len(answered)
    for ours, theirs in (("input", "input_tokens"), ("output", "output_tokens"), ("cache_read", "cache_read_input_tokens"),
                         ("cache_write", "cache_creation_input_tokens")):
        assert task["total"][ours] == sum(a[theirs] for a in answered), ours
    assert task["total"]["cache_read"] > 0   # the second run read the first one's prefix
    sessions = json.loads((repo.root / ".rt" / "sessions.json").read_text())["sessions"]
    assert list(sessions) == [run.session_id] and sessions[run.session_id].endswith(f"/{run.session_id}.jsonl")


def test_a_second_resume_does_not_pay_for_the_same_handoff_again(repo):
    recorded_task(repo)
    first = run_claude(repo.root, repo.home, "hello", [[text("ok")]])
    assert first.code == 0, first.stderr
    resumed = run_claude(repo.root, repo.home, "where were we?", [[text("ok")]], args=("--resume", first.session_id))
    assert seen(resumed.turns[0]).count("# rt handoff: task") == 1
    again = run_claude(repo.root, repo.home, "and now?", [[text("ok")]], args=("--resume", first.session_id))
    now = seen(again.turns[0])
    assert now.count("# rt handoff: task") == 1   # the first resume's copy, still in the conversation
    assert "the handoff given earlier in this session still holds" in now
    repo.rt("note", "--decision", "LATER_MARK")
    changed = run_claude(repo.root, repo.home, "and now?", [[text("ok")]], args=("--resume", first.session_id))
    assert seen(changed.turns[0]).count("# rt handoff: task") == 2 and "LATER_MARK" in seen(changed.turns[0])
