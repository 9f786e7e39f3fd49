"""`rt handoff`, `rt note` and the run history behind them: eight sections from rt's records, every
error verbatim with what made it go away, quoted output cut at head and tail, a cap with a fixed drop
order, and the hooks that carry it past compaction, resume and clear."""
from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest
from hooks_support import context_text, hook, payload

from rt.session.handoff import PRECOMPACT, SECTIONS, Item, fit
from rt.session.runs import QUOTE, quote
from tests.handoff_support import DECISION, PATTERNS, long_task

GOLDEN = Path(__file__).resolve().parent / "data" / "handoff"
needs_tools = pytest.mark.skipif(not (shutil.which("ruff") and shutil.which("pytest")),
                                 reason="needs ruff, pytest: not installed here (`bash .ci/run` installs it)")

HANDOFF_CHARS = 6_000
"""The README's promise for `rt handoff`: "at most 6,000 characters"."""


def runs_of(project) -> list[dict]:
    folder = next((project.root / ".rt" / "tasks").glob("*/runs"))
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))]


# ---------------------------------------------------------------- the long task, end to end

@needs_tools
def test_the_long_tasks_handoff_is_the_golden_one_and_holds_every_error_verbatim(project):
    long_task(project)
    text = project.rt("handoff").rstrip("\n")
    golden = GOLDEN / "long-task.md"
    if os.environ.get("RT_WRITE_GOLDEN"):
        golden.write_text(text + "\n")
    assert text == golden.read_text().rstrip("\n")
    assert [line[3:] for line in text.splitlines() if line.startswith("## ")] == list(SECTIONS)
    history = runs_of(project)
    assert [(r["kind"], r["verdict"]) for r in history] == [("verify", "FAIL"), ("check", "PASS"),
                                                              ("verify", "FAIL"), ("verify", "FAIL")]
    failures = [f for r in history for f in r["failures"]]
    assert len(failures) == 5   # F401, the test, F821 twice on one line, F841
    for f in failures:   # path, line and message as the tool printed them
        assert f"{f['file']}:{f['line']}" in text and f["message"] in text
    assert DECISION in text and all(p in text for p in PATTERNS)
    assert len(text) <= HANDOFF_CHARS
    assert project.rt("handoff") == text + "\n"   # the same records, the same bytes


@needs_tools
def test_an_error_that_went_away_names_the_run_the_files_and_the_step(project):
    long_task(project)
    errors = {e["text"]: e for e in project.rt_json("handoff")["errors"]}
    f401 = errors["shop/cart.py:1:8 ruff [F401] `os` imported but unused"]
    assert (f401["runs"], f401["gone"], f401["changed"], f401["steps"]) == ([1], 2, ["shop/cart.py"], ["prices in cents"])
    f821 = errors["shop/money.py:6:16 ruff [F821] Undefined name `Decimal`"]
    assert (f821["gone"], f821["changed"]) == (4, ["shop/money.py"])
    open_ = [e for e in errors.values() if e["gone"] is None]
    assert [e["text"] for e in open_] == ["shop/money.py:5:5 ruff [F841] Local variable `rate` is assigned to but never used"]


@needs_tools
def test_the_output_of_a_failing_check_is_kept_with_its_run(project):
    long_task(project)
    last = runs_of(project)[-1]
    assert last["outputs"]["ruff"].startswith("shop/money.py:5:5: F841 Local variable `rate`")
    assert str(project.root) not in json.dumps(runs_of(project))   # the repository's own path taken out


# ---------------------------------------------------------------- quoting and the cap

def test_a_check_that_could_not_run_is_no_error_to_fix_and_its_empty_output_is_not_quoted(project):
    """A missing program is not the change's doing: the next step says what `rt verify` lacks, not "fix"."""
    project.write("pyproject.toml", '[project]\nname = "x"\n')
    project.write("rt.toml", '[checks.lint]\nkind = "lint"\ncommand = ["python3", "-c", "raise SystemExit(3)"]\n')
    project.write("calc.py", "X = 1\n")
    project.init_git()
    project.rt("start", "touch calc", ret=3)
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", "X = 2\n")
    project.rt("verify", ret=3)
    out = project.rt("handoff")
    assert "- 1 check(s) could not run (Error history): `rt verify` stays INCOMPLETE until they run; tell the user " \
           "what they need" in out
    assert "fix what this task caused" not in out and "output of lint" not in out
    assert "- lint could not run: exit 3 without any diagnostic\n" in out


def test_quote_keeps_head_and_tail_with_a_visible_marker():
    lines = [f"line {i:04d} " + "x" * 60 for i in range(400)]
    text = "\n".join(lines)
    cut = quote(text)
    assert len(cut) <= QUOTE
    assert cut.startswith("line 0000 ") and cut.endswith(lines[-1])
    marker = [ln for ln in cut.splitlines() if ln.startswith("[... ")]
    assert len(marker) == 1 and marker[0].endswith(" characters cut here ...]")
    kept = [ln for ln in cut.splitlines() if ln.startswith("line ")]
    assert all(ln in lines for ln in kept)   # whole lines only
    head, tail = cut.split("\n" + marker[0] + "\n")
    assert text.startswith(head + "\n") and text.endswith("\n" + tail)
    assert int(marker[0].split()[1].replace(",", "")) == len(text) - len(head) - len(tail)
    assert quote("short\n") == "short"


def test_one_long_line_is_cut_in_its_middle():
    cut = quote("a" * 3000 + "b" * 3000)
    assert len(cut) <= QUOTE and cut.startswith("aaa") and cut.endswith("bbb") and "characters cut here" in cut


def _sections(**counts) -> dict[str, list[Item]]:
    from rt.session.handoff import RANK, _ranked
    s = {name: [] for name in SECTIONS}
    s["Goal"] = [Item("G" * 1500, RANK["goal"], "g" * 100)]
    s["Progress"] = [Item("- state: building")] + _ranked("step", [f"- step {i}: " + "s" * 80 for i in range(counts["steps"])])
    s["Key decisions"] = _ranked("decision", [f"- decision {i}" for i in range(3)])
    s["Architecture and patterns"] = _ranked("pattern", [f"- pattern {i}: " + "p" * 60 for i in range(counts["patterns"])])
    s["Error history"] = (_ranked("open", [f"- open {i}: " + "o" * 90 for i in range(counts["open"])])
                          + _ranked("resolved", [f"- resolved {i}: " + "r" * 90 for i in range(counts["resolved"])]))
    return s


def test_the_cap_drops_progress_detail_before_errors_and_patterns():
    text, dropped = fit(_sections(steps=60, patterns=5, open=5, resolved=10), "# t")
    assert len(text) <= HANDOFF_CHARS and dropped > 0
    assert "- step 59" not in text or "- step 0:" not in text
    assert all(f"- open {i}:" in text for i in range(5)) and all(f"- resolved {i}:" in text for i in range(10))
    assert all(f"- pattern {i}:" in text for i in range(5)) and "G" * 1500 in text
    assert "left out to fit; `rt handoff --json` has them all" in text


def test_then_the_goal_then_resolved_errors_oldest_first_and_patterns_last():
    text, _ = fit(_sections(steps=60, patterns=5, open=5, resolved=60), "# t")
    assert len(text) <= HANDOFF_CHARS
    assert "- step " not in text and "G" * 1500 not in text and "g" * 100 in text
    assert "- resolved 59:" in text and "- resolved 0:" not in text   # the oldest went first
    assert all(f"- open {i}:" in text for i in range(5)) and all(f"- pattern {i}:" in text for i in range(5))
    text, _ = fit(_sections(steps=0, patterns=70, open=70, resolved=0), "# t")
    assert len(text) <= HANDOFF_CHARS
    assert "- pattern 69:" in text and "- decision" not in text   # decisions go before errors, errors before patterns
    assert "- open 0:" not in text and "- open 69:" in text


def test_what_no_drop_can_fit_is_cut_saying_so():
    s = _sections(steps=0, patterns=0, open=0, resolved=0)
    s["Critical context"] = [Item("c" * 9000)]
    text, _ = fit(s, "# t")
    assert len(text) <= HANDOFF_CHARS and text.endswith("[... cut to fit; `rt handoff --json` has it all]")


# ---------------------------------------------------------------- rt note

def test_notes_decisions_need_a_task_patterns_do_not(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("note", "--decision", "use cents", ret=2)
    assert "no rt task here yet" in project.last_err or "no active task" in project.last_err
    assert project.rt("note", "--pattern", "repository   pattern\nfor DB access") == "pattern 1 kept\n"
    project.rt("start", "x", "--no-baseline")
    project.rt("note", "--decision", "use cents")
    assert project.rt("note") == "1. pattern: repository pattern for DB access\n2. decision (1-x): use cents\n"
    project.rt("note", "--drop", "1")
    assert project.rt_json("note")["notes"] == [{"n": 2, "kind": "decision", "text": "use cents", "task": "1-x"}]
    project.rt("note", "--drop", "7", ret=2)
    project.rt("note", "--pattern", "   ", ret=2)
    text = project.rt("handoff")
    assert "## Key decisions\n- use cents\n" in text
    assert "## Architecture and patterns\n- none recorded" in text


def test_the_users_mem_facts_are_key_decisions(project):
    planned_task(project)
    proc = project.rt_proc("hook", "user-prompt-submit", input=json.dumps(
        payload(project, "UserPromptSubmit", prompt="/mem MEM_MARK the staging database is read-only")))
    assert proc.returncode == 0, proc.stderr
    assert "- the user (/mem): MEM_MARK the staging database is read-only" in project.rt("handoff")


def test_handoff_without_a_task_is_a_usage_error(project):
    project.init_git()
    project.rt("handoff", ret=2)
    assert project.last_err == 'rt: error: no rt task here yet; start one with `rt start "<task>"`\n'


# ---------------------------------------------------------------- the hooks

def planned_task(project) -> None:
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "change x", "--no-baseline")
    project.rt("plan", "--edit", "a.py")
    project.rt("note", "--pattern", "PATTERN_MARK module-level constants only")


@pytest.mark.parametrize("source", ["compact", "resume", "clear"])
def test_session_start_after_compaction_resume_and_clear_injects_the_handoff(project, source):
    planned_task(project)
    code, out, _ = hook(project, "session-start", payload(project, "SessionStart", source=source))
    text = context_text(out, "SessionStart")
    assert code == 0
    assert text == "rt: a task is active in this repository.\n" + project.rt("handoff").rstrip("\n")
    assert "PATTERN_MARK" in text and len(text) < 10_000


def test_a_resume_whose_context_holds_the_same_handoff_gets_one_line(project):
    planned_task(project)
    start = payload(project, "SessionStart", source="resume")
    first = context_text(hook(project, "session-start", start)[1], "SessionStart")
    assert "## Error history" in first
    again = context_text(hook(project, "session-start", start)[1], "SessionStart")
    assert again == ("rt: task 1-change-x is active; the handoff given earlier in this session still holds "
                     "(`rt handoff` prints it again).")
    other = context_text(hook(project, "session-start", start | {"session_id": "s2"})[1], "SessionStart")
    assert other == first   # another session has not seen it
    project.rt("note", "--decision", "DECISION_MARK")
    changed = context_text(hook(project, "session-start", start)[1], "SessionStart")
    assert "DECISION_MARK" in changed and "## Error history" in changed
    compact = payload(project, "SessionStart", source="compact")
    assert context_text(hook(project, "session-start", compact)[1], "SessionStart") == changed   # the summary replaced it


def test_a_fresh_start_gets_the_status_and_where_the_handoff_is(project):
    planned_task(project)
    _, out, _ = hook(project, "session-start", payload(project, "SessionStart", source="startup"))
    text = context_text(out, "SessionStart")
    assert "state: planned" in text and "`rt handoff` gives its decisions, patterns and error history." in text
    assert "PATTERN_MARK" not in text


def test_pre_compact_asks_the_summariser_for_the_two_sections_in_few_characters(project):
    planned_task(project)
    proc = project.rt_proc("hook", "pre-compact", input=json.dumps(
        payload(project, "PreCompact", trigger="manual", custom_instructions=None)))
    assert proc.returncode == 0 and proc.stdout == PRECOMPACT + "\n"
    assert "\"Architecture and patterns\"" in PRECOMPACT and "\"Error history\"" in PRECOMPACT
    assert len(PRECOMPACT) < 700   # paid twice: in the summariser's request and after the compaction


def test_pre_compact_says_nothing_where_rt_is_not_in_use_or_no_task_is_active(project):
    project.init_git()
    proc = project.rt_proc("hook", "pre-compact", input=json.dumps(payload(project, "PreCompact", trigger="auto")))
    assert (proc.returncode, proc.stdout) == (0, "")
    planned_task(project)
    project.rt("block", "waiting for the user")
    proc = project.rt_proc("hook", "pre-compact", input=json.dumps(payload(project, "PreCompact", trigger="auto")))
    assert (proc.returncode, proc.stdout) == (0, "")


def test_pre_compact_on_a_broken_store_lets_the_compaction_go_on(project):
    planned_task(project)
    (project.root / ".rt" / "sessions.json").write_text("{broken")
    proc = project.rt_proc("hook", "pre-compact", input=json.dumps(payload(project, "PreCompact", trigger="auto")))
    assert (proc.returncode, proc.stdout) == (0, "")
    assert "rt hook pre-compact:" in proc.stderr and "sessions.json is damaged" in proc.stderr


def test_fit_drops_what_drawing_each_level_would_without_drawing_each():
    """`fit` reckons each level's length from the last; the oracle draws the handoff at every level, as it did
    (10,000 notes took 21 s that way). Random sections, ranks, short forms and limits."""
    from rt.session.handoff import NEVER, SECTIONS, Item, fit, render

    def drawn(sections, title, limit):
        levels = sorted({i.rank for items in sections.values() for i in items if i.rank != NEVER})
        text, dropped = render(sections, title, float("-inf"))
        for level in levels:
            if len(text) <= limit:
                break
            text, dropped = render(sections, title, level)
        if len(text) > limit:
            tail = "\n[... cut to fit; `rt handoff --json` has it all]"
            text = text[:limit - len(tail)].rsplit("\n", 1)[0] + tail
        return text, dropped

    rnd = random.Random(7)
    for _ in range(500):
        sections = {name: [Item("x" * rnd.randint(0, 120), rnd.choice([NEVER, rnd.randint(0, 5), rnd.random() * 5]),
                                rnd.choice([None, None, "s" * rnd.randint(0, 30)])) for _ in range(rnd.randint(0, 15))]
                    for name in SECTIONS}
        limit = rnd.randint(50, 3000)
        assert fit(sections, "# t", limit) == drawn(sections, "# t", limit)
