"""`rt usage`, `rt tasks` and the report's effort line, on transcripts the real Claude Code client wrote
(tests/data/transcripts/, sums in its README): one count per message id, subagents' files included,
compactions said, tasks' windows from start to finish or block, transcripts found through the hooks."""
from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from hooks_support import payload

from rt import state
from rt.session.usage import Tally, read_session, unseen

DATA = Path(__file__).resolve().parent / "data" / "transcripts"
PLAIN = "b3713c1e-ae2c-47a5-ad5f-6212d6ebf235"
SUB = "39553405-e8ac-4e28-a46b-a0f15b7e2edb"
COMPACT = "8ce6e363-207a-426b-b2fb-2d7c6172d68c"
IMAGE = "5eb6fea0-9394-4442-985c-acf77e1101da"


def at(stamp: str) -> float:
    return datetime.fromisoformat(stamp + "+00:00").timestamp()


def copied(tmp_path: Path, folder: str, session: str) -> str:
    """The capture copied under a projects folder of its own, as Claude Code lays it out; its path."""
    dest = tmp_path / "projects" / folder
    shutil.copytree(DATA / folder, dest)
    return str(dest / f"{session}.jsonl")


def sums(tally) -> tuple:
    return (tally.requests, tally.input, tally.output, tally.cache_read, tally.cache_write_5m, tally.cache_write_1h)


def total(session) -> tuple:
    t = Tally()
    for call in session.calls:
        t.add(call.tally)
    return sums(t)


def test_a_response_written_as_two_records_counts_once(tmp_path):
    session = read_session(PLAIN, copied(tmp_path, "plain", PLAIN))
    assert total(session) == (5, 35, 205, 25500, 5650, 1050)
    lines = (DATA / "plain" / f"{PLAIN}.jsonl").read_text().splitlines()
    assert sum('"type":"assistant"' in ln for ln in lines) == 6   # what a count per record would take


def test_subagent_calls_are_read_from_their_own_files(tmp_path):
    session = read_session(SUB, copied(tmp_path, "subagent", SUB))
    assert total(session) == (12, 198, 102, 15600, 1460, 100)
    assert session.client is not None and sums(session.client)[1:] == (198, 102, 15600, 1460, 100)
    bare = copied(tmp_path / "bare", "subagent", SUB)
    shutil.rmtree(Path(bare).with_suffix(""))   # without its subagents' folder: the main file's calls alone
    assert total(read_session(SUB, bare)) == (10, 155, 95, 14500, 1350, 100)


def test_the_compaction_summariser_is_not_in_the_transcript_and_is_said_so(tmp_path):
    session = read_session(COMPACT, copied(tmp_path, "compact", COMPACT))
    assert total(session) == (4, 52, 92, 7000, 7180, 0)
    assert len(session.compactions) == 1
    gap = unseen(session)   # the client's own running total holds the summariser's 5,000 in / 400 out
    assert (gap.input, gap.output, gap.cache_read, gap.cache_write) == (5000, 400, 0, 0)


def test_a_tool_result_with_an_image_is_read_like_any_other(tmp_path):
    session = read_session(IMAGE, copied(tmp_path, "image", IMAGE))
    assert total(session) == (2, 10, 22, 100, 150, 0)
    assert unseen(session) is None   # the client's total equals the records'


@pytest.fixture
def clock(monkeypatch):
    """Set rt's clock (`state.now`) to a moment of the captured session."""
    def set_to(stamp: str) -> None:
        monkeypatch.setattr(state, "now", lambda: at(stamp))
    return set_to


def started(project, clock, stamp: str, text: str = "edit a.py and add b.py") -> None:
    project.write("a.py", "x = 1\n")
    if not (project.root / ".git").exists():
        project.init_git()
    clock(stamp)
    project.rt("start", text, "--no-baseline")


def seen_by_hook(project, transcript: str, session: str, event: str = "session-start") -> None:
    """The hook records the session's transcript from its payload, as Claude Code sends it."""
    name = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "pre-compact": "PreCompact"}[event]
    extra = {"session-start": {"source": "startup"}, "user-prompt-submit": {"prompt": "hello"},
             "pre-compact": {"trigger": "manual", "custom_instructions": None}}[event]
    data = payload(project, name, **extra) | {"session_id": session, "transcript_path": transcript}
    proc = project.rt_proc("hook", event, input=json.dumps(data))
    assert proc.returncode == 0, proc.stderr


def test_a_tasks_window_runs_from_its_start_to_its_block(project, tmp_path, clock):
    transcript = copied(tmp_path, "plain", PLAIN)
    started(project, clock, "2026-12-01T13:29:55.300")
    seen_by_hook(project, transcript, PLAIN)
    clock("2026-12-01T13:29:55.700")
    project.rt("block", "stopped to measure")
    data = project.rt_json("usage")
    [task] = data["tasks"]
    # msg_fake_4 (two records), 6 and 8 fall inside; 2 before the start, 9 after the block
    assert task["total"] == task["total"] | {"requests": 3, "input": 5 + 7 + 9, "output": 60 + 30 + 50,
                                              "cache_read": 6000 + 6300 + 6500, "cache_write_5m": 300 + 200 + 150,
                                              "cache_write_1h": 50}
    assert data["outside"]["total"]["requests"] == 2
    assert task["models"].keys() == {"claude-fake-1"}
    prompt = 5 + 7 + 9 + 18800 + 700
    assert task["total"]["hit_ratio"] == pytest.approx(18800 / prompt)
    text = project.rt("usage")
    assert f"1-edit-a-py-and-add-b-py (blocked): 3 requests, {140 + prompt:,} tokens, hit ratio 96%" in text
    assert "claude-fake-1: 3 requests; input 21, output 140, cache reads 18,800, cache writes 700 (5m 650, 1h 50)" in text
    assert "outside any task: 2 requests" in text


def test_transcripts_come_from_the_hooks_payloads_only(project, tmp_path, clock):
    """No session recorded: rt says so rather than look in a home folder."""
    started(project, clock, "2026-12-01T13:29:00.000")
    out = project.rt("usage")
    assert out.startswith("no Claude Code session recorded in this repository")
    assert project.rt_json("tasks")["tasks"][0]["usage"] is None
    transcript = copied(tmp_path, "subagent", SUB)
    seen_by_hook(project, transcript, SUB, "user-prompt-submit")
    seen_by_hook(project, transcript, SUB, "pre-compact")   # the same session again: one entry
    sessions = json.loads((project.root / ".rt/sessions.json").read_text())["sessions"]
    assert sessions == {SUB: transcript}
    [task] = project.rt_json("usage")["tasks"]
    assert task["total"]["requests"] == 12   # the subagent's two calls found beside the transcript


def test_a_compaction_inside_a_task_is_counted_and_the_gap_is_said(project, tmp_path, clock):
    transcript = copied(tmp_path, "compact", COMPACT)
    started(project, clock, "2026-12-01T13:36:17.000")
    seen_by_hook(project, transcript, COMPACT)
    [task] = project.rt_json("usage")["tasks"]
    assert task["compactions"] == 1 and task["total"]["requests"] == 4
    text = project.rt("usage")
    assert "1 compaction(s): the summariser's calls are not in the transcript, not counted" in text
    assert "session 8ce6e363: the client's own total is 5,000 input and 400 output tokens above its records" in text


@pytest.mark.parametrize("capture, session, stamp, want", [
    ("plain", PLAIN, "2026-12-01T13:29:00.000", {"requests": 5, "input": 35, "compactions": 0}),
    ("compact", COMPACT, "2026-12-01T13:36:17.000", {"requests": 4, "compactions": 1}),
])
def test_a_record_a_fork_repeats_counts_once(project, tmp_path, clock, capture, session, stamp, want):
    """A forked session repeats its parent's records under a new session id: a message id, or a compaction."""
    first = copied(tmp_path / "one", capture, session)
    second = copied(tmp_path / "two", capture, session)
    started(project, clock, stamp)
    seen_by_hook(project, first, session)
    seen_by_hook(project, second, "fork-of-" + session)
    [task] = project.rt_json("usage")["tasks"]
    got = task["total"] | {"compactions": task["compactions"]}
    assert {k: got[k] for k in want} == want


def test_tasks_lists_tokens_and_finish_reports_the_effort(project, tmp_path, clock):
    transcript = copied(tmp_path, "plain", PLAIN)
    started(project, clock, "2026-12-01T13:29:55.000")
    seen_by_hook(project, transcript, PLAIN)
    project.rt("plan", "--edit", "a.py")
    project.rt("step", "changed x")
    clock("2026-12-01T13:29:56.000")
    project.rt("finish", "--incomplete")
    prompt = 35 + 25500 + 6700
    line = f"5 requests, {prompt + 205:,} tokens, hit ratio {25500 / prompt:.0%}"
    assert f"1-edit-a-py-and-add-b-py  finished  {line}" in project.rt("tasks")
    report = project.read(".rt/tasks/1-edit-a-py-and-add-b-py/report.md")
    assert f"effort: {line}, 0 fix attempt(s) (failed verify runs)" in report
    assert project.rt_json("tasks")["tasks"][0]["usage"]["total"]["requests"] == 5


def test_a_recorded_transcript_that_is_gone_is_said(project, tmp_path, clock):
    started(project, clock, "2026-12-01T13:29:55.000")
    seen_by_hook(project, str(tmp_path / "gone" / "x.jsonl"), "x")
    out = project.rt("usage")
    assert "1 recorded transcript(s) no longer exist" in out
    assert str(tmp_path) not in out   # no absolute path in text a model may read
    assert project.rt_json("usage")["sessions"][0]["missing"] is True


def test_usage_of_an_unknown_task_is_a_usage_error(project, tmp_path, clock):
    started(project, clock, "2026-12-01T13:29:55.000")
    seen_by_hook(project, copied(tmp_path, "plain", PLAIN), PLAIN)
    project.rt("usage", "--task", "9-nope", ret=2)
    assert "no task '9-nope'" in project.last_err


def test_lines_of_another_shape_are_skipped_and_finish_still_reports(project, tmp_path, clock):
    """A damaged or foreign line (a message that is no object, counts that are no whole numbers, an id or model that
    is a list, a usage total that is a list, a line nested past Python's reader) counts nothing and stops nothing."""
    transcript = copied(tmp_path, "plain", PLAIN)
    stamp = '"timestamp":"2026-12-01T13:29:58Z"'
    odd = [f'{{"type":"assistant",{stamp},"message":"oops"}}',
           f'{{"type":"assistant",{stamp},"message":[1]}}',
           f'{{"type":"assistant",{stamp},"message":{{"id":["x"],"model":"m","usage":{{"input_tokens":5}}}}}}',
           f'{{"type":"assistant",{stamp},"message":{{"id":"odd1","model":["m"],"usage":{{"input_tokens":"5",'
           f'"output_tokens":NaN,"cache_read_input_tokens":-100,"cache_creation_input_tokens":1e400}}}}}}',
           f'{{"type":"assistant",{stamp},"message":{{"id":"odd2","model":5,"usage":{{"input_tokens":{10**300},'
           f'"cache_creation":{{"ephemeral_5m_input_tokens":"9"}}}}}}}}',
           '{"type":"cost-state","modelUsage":["x"]}', '{"type":"cost-state","modelUsage":{"m":"x"}}',
           '{"type":"assistant",' + '"a":[' * 100_000 + ']' * 100_000 + '}']
    with open(transcript, "a") as f:
        f.write("\n".join(odd) + "\n")
    sub = Path(transcript).with_suffix("") / "subagents"   # what a glob finds there but is no transcript
    sub.mkdir(parents=True)
    (sub / "agent-dir.jsonl").mkdir()
    (sub / "agent-gone.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    os.mkfifo(sub / "agent-pipe.jsonl")   # reading it would wait for ever
    (sub / "agent-zero.jsonl").symlink_to("/dev/zero")
    started(project, clock, "2026-12-01T13:29:55.000")
    seen_by_hook(project, transcript, PLAIN)
    [task] = project.rt_json("usage")["tasks"]
    assert (task["total"]["requests"], task["total"]["input"], task["total"]["output"]) == (7, 35, 205)
    assert sorted(task["models"]) == ["claude-fake-1", "unknown"]   # the odd two: requests, 0 tokens
    project.rt("plan", "--edit", "a.py")
    project.rt("step", "changed x")
    clock("2026-12-01T13:29:59.000")
    assert "effort: 7 requests" in project.rt("finish", "--incomplete")
