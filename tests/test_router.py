"""The model router (seed 001): keywords, large content, the read-only downgrade, hysteresis, `rt route`."""
from __future__ import annotations

import pytest

from rt.agent.router import FAMILIES, KEYWORDS, LARGE, ORIGINAL, SHORT_CONVERSATION, Router


def test_the_list_has_35_terms_in_the_seeds_four_families_plus_the_original_words():
    assert set(FAMILIES) == {"performance", "debugging", "architecture", "scope"}
    assert sum(len(t) for t in FAMILIES.values()) == 35
    assert ORIGINAL == ("refactor", "debug", "architect") and len(set(KEYWORDS)) == 38
    seed_examples = {"optimize", "memory leak", "race condition", "investigate", "diagnose", "troubleshoot",
                     "root cause", "design pattern", "dependency injection", "decouple", "implement from scratch",
                     "build a system"}
    assert seed_examples <= set(KEYWORDS)


@pytest.mark.parametrize("text, found", [
    ("Refactor the login form", ["refactor"]),
    ("we are REFACTORING it", ["refactor"]),
    ("start the debugger", ["debug"]),
    ("the optimization of the query", ["optimize"]),
    ("an investigation of the outage", ["investigate"]),
    ("find the Root Cause", ["root cause"]),
    ("a root  cause", ["root cause"]),
    ("end to end tests and end-to-end ones", ["end-to-end"]),
    ("decoupling the layers", ["decouple"]),
    ("prefactor the list", []),          # whole words only
    ("debugfs mount", []),
    ("the rootcause field", []),
    ("a race", []),                      # a phrase needs all its words
])
def test_keywords_match_whole_words_and_phrases_in_any_case(text, found):
    assert Router().matches(text) == found


def test_the_seeds_missed_task_is_caught_by_the_new_list_not_the_old_words():
    text = "investigate why the payment system silently drops transactions under concurrent load"
    assert Router(ORIGINAL).route(text).tier == "balanced"
    d = Router().route(text)
    assert d.tier == "powerful" and d.reasons == ("keyword: investigate (debugging)",)


def test_large_content_escalates_to_powerful():
    assert Router().route("write the module", chars=LARGE).tier == "balanced"
    d = Router().route("write the module", chars=LARGE + 1)
    assert d.tier == "powerful" and d.reasons == (f"{LARGE + 1} characters of file content or tool output (over {LARGE})",)


def test_a_read_only_step_is_downgraded_only_in_a_short_conversation():
    assert Router().route("read config.py", read_only=True, messages=SHORT_CONVERSATION - 1).tier == "fast"
    d = Router().route("read config.py", read_only=True, messages=SHORT_CONVERSATION)
    assert d.tier == "balanced" and "not downgraded" in d.reasons[0]
    assert Router().route("rename the variable", messages=0).tier == "balanced"


def test_hysteresis_damps_fast_after_powerful_and_returns_to_fast_after_one_balanced():
    r = Router()
    tiers = [r.route(text, read_only=ro, messages=m).tier for text, ro, m in [
        ("refactor the billing module", False, 0),
        ("what is in README.md?", True, 2),     # raw fast, right after powerful: balanced
        ("what is in setup.py?", True, 4),      # raw fast after balanced: fast again
        ("what is in tox.ini?", True, 6),
    ]]
    assert tiers == ["powerful", "balanced", "fast", "fast"]
    r = Router()
    r.route("refactor it")
    d = r.route("add a field", messages=2)      # raw balanced stays balanced
    assert (d.raw, d.tier) == ("balanced", "balanced")


def test_the_seeds_five_turn_refactor_no_longer_drops_to_fast_in_turn_four():
    turns = [("Refactor the order service into a repository and a controller", {}),
             ("Plan: refactor OrderService, move the queries into OrderRepository", {}),
             ("write src/order_service.py", {"chars": 6200}),
             ("read src/order_service.py to check the result", {"read_only": True}),
             ("refactor the controller to use the repository", {})]
    r = Router()
    decisions = [r.route(text, messages=2 * i, **kw) for i, (text, kw) in enumerate(turns)]
    assert [d.tier for d in decisions] == ["powerful", "powerful", "powerful", "balanced", "powerful"]
    assert [d.raw for d in decisions] == ["powerful", "powerful", "powerful", "fast", "powerful"]   # the old drop
    assert decisions[3].reasons[-1] == "after a powerful call, fast is damped to balanced (hysteresis)"


def test_rt_route_prints_the_tier_and_explains_it(project):
    assert project.rt("route", "fix the typo") == "balanced\n"
    out = project.rt("route", "Diagnose the memory leak", "--explain")
    assert out == "powerful\n- keywords: memory leak (performance), diagnose (debugging)\n"
    out = project.rt("route", "show the file", "--read-only", "--after", "powerful", "--explain")
    assert out == ("balanced\n- read-only step, short conversation (0 messages, under 10)\n"
                   "- after a powerful call, fast is damped to balanced (hysteresis)\n")
    data = project.rt_json("route", "read it", "--read-only", "--messages", "12")
    assert data == {"tier": "balanced", "raw": "balanced", "keywords": [],
                    "reasons": ["read-only step, but 12 messages into the conversation (10 or more): "
                                "a step of a larger task, not downgraded"]}
    project.rt("route", "x", "--chars", "-1", ret=2)


def test_the_keyword_list_is_configurable_in_rt_toml(project):
    project.write("rt.toml", '[agent]\nkeywords = ["migration", "schema change"]\n')
    assert project.rt("route", "a Schema Change for users", "--explain") == \
        "powerful\n- keyword: schema change (configured)\n"
    assert project.rt("route", "refactor it") == "balanced\n"   # the list is replaced
    project.write("rt.toml", '[agent]\nkeywords = ["ok", ""]\n')
    project.rt("route", "x", ret=2)
    assert "keywords must be a list of words or phrases" in project.last_err
