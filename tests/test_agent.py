"""`rt agent` against a scripted OpenAI-compatible endpoint, in real git repositories with real checks
(ruff and pytest through `rt verify`)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from agent_support import FakeEndpoint, Slow, Status, edit, plan
from conftest import ROOT
from rt import budget

PRICE = '''"""Prices."""


def total(items):
    """The sum of the items' prices."""
    return sum(price for _, price in items)
'''

CART = '''"""Carts."""
from shop.price import total


class Cart:
    def __init__(self):
        self.items = []

    def add(self, name, price):
        self.items.append((name, price))

    def due(self):
        return total(self.items)
'''

TESTS = '''from shop.cart import Cart
from shop.price import total


def test_due():
    cart = Cart()
    cart.add("tea", 3)
    cart.add("cake", 4)
    assert cart.due() == 7


def test_total():
    assert total([("a", 1), ("b", 2)]) == 3
'''


@pytest.fixture
def shop(project):
    project.write("pyproject.toml", '[tool.ruff]\nline-length = 100\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    project.write("src/shop/__init__.py", '"""Shop: prices and carts."""\n')
    project.write("src/shop/price.py", PRICE)
    project.write("src/shop/cart.py", CART)
    project.write("tests/conftest.py", "import pathlib\nimport sys\n\nsys.path.insert(0, str(pathlib.Path(__file__).parent.parent / 'src'))\n")
    project.write("tests/test_cart.py", TESTS)
    project.init_git()
    return project


RENAME = plan((1, "src/shop/price.py", "edit", "rename the function total to order_total", []),
              (2, "src/shop/cart.py", "edit", "use order_total instead of total from shop.price", [1]),
              (3, "tests/test_cart.py", "edit", "use order_total instead of total from shop.price", [1]))

RENAME_ANSWERS = {
    1: [edit("def total(items):\n", "def order_total(items):\n")],
    2: [edit("from shop.price import total\n", "from shop.price import order_total\n")
        + edit("        return total(self.items)\n", "        return order_total(self.items)\n")],
    3: ["```python\n" + TESTS.replace("total", "order_total") + "```\n"],
}


def agent(project, fake, *args, ret=0, window=8192):
    return project.rt("agent", *args, "--endpoint", fake.url, "--model", "m", "--context", str(window), ret=ret)


def tree(project) -> dict[str, bytes]:
    return {p.relative_to(project.root).as_posix(): p.read_bytes() for p in sorted(project.root.rglob("*"))
            if p.is_file() and ".git" not in p.parts and ".rt" not in p.parts}


def assert_within_window(fake, window):
    """Every call: the estimate of what was sent plus the answer's reserve fits the window."""
    for _, body in fake.requests:
        sent = sum(budget.estimate(m["content"]) + 4 for m in body["messages"])
        assert sent + body["max_tokens"] <= window, (sent, body["max_tokens"])


def test_a_multi_file_refactor_runs_in_two_waves_and_ends_pass_through_rt_verify(shop):
    with FakeEndpoint([RENAME], RENAME_ANSWERS) as fake:
        out = agent(shop, fake, "refactor: rename total to order_total", "--jobs", "2")
    assert "rt agent: 3 task(s) in 2 wave(s)" in out
    assert "waves: 1) 1  2) 2, 3" in out
    assert "rt verify: PASS" in out and "# report\n\nverdict: PASS\n" in out
    assert shop.read("src/shop/price.py") == PRICE.replace("def total", "def order_total")
    assert shop.read("src/shop/cart.py") == CART.replace("total", "order_total")
    assert shop.read("tests/test_cart.py") == TESTS.replace("total", "order_total")   # the fence stripped
    task = shop.rt_json("tasks")["tasks"][0]
    assert task["state"] == "finished"
    status = json.loads((shop.root / ".rt/tasks" / task["id"] / "task.json").read_text())
    assert status["scope"] == {"create": [], "delete": [],
                               "edit": ["src/shop/cart.py", "src/shop/price.py", "tests/test_cart.py"]}
    assert [s["note"] for s in status["steps"]] == [
        "rt agent task 1 done: src/shop/price.py: +1 -1 lines",
        "rt agent task 2 done: src/shop/cart.py: +2 -2 lines",
        "rt agent task 3 done: tests/test_cart.py: +3 -3 lines"]
    # one file and one task per executor call; task 2 knows what task 1 did
    for who in ("1", "2", "3"):
        (body,) = fake.of(who)
        user = body["messages"][-1]["content"]
        assert user.count("## Task ") == 1 and user.count("\n### ") == 1
    assert "task 1 (edit src/shop/price.py) is done: rename the function total to order_total" in \
        fake.of("2")[0]["messages"][-1]["content"]
    assert_within_window(fake, 8192)
    # the report names every call's tier and model, and the record is kept with the task
    assert "  planner: powerful (keyword: refactor (original)); m; ~" in out
    assert "  task 3: balanced (no keyword, not read-only); m; ~" in out
    assert (shop.root / ".rt/tasks" / task["id"] / "agent.md").read_text() == out


def test_results_come_in_plan_order_whatever_the_jobs(shop):
    outs = []
    for jobs in ("1", "3"):
        shop.git("checkout", "-q", "--", ".")
        with FakeEndpoint([RENAME], RENAME_ANSWERS) as fake:
            outs.append(agent(shop, fake, "refactor: rename total to order_total", "--jobs", jobs, "--json"))
        shop.rt("start", "reset", "--no-baseline")
        shop.rt("block", "reset")
    first, second = (json.loads(o) for o in outs)
    assert first["results"] == second["results"] and first["calls"] == second["calls"]


def test_a_query_answers_in_the_terminal_and_never_touches_the_disk(shop):
    before = tree(shop)
    answer = "price.py has 7 lines."
    with FakeEndpoint([plan((1, "src/shop/price.py", "query", "how many lines are in price.py?", []))],
                      {1: [answer]}) as fake:
        out = agent(shop, fake, "how many lines are in price.py?")
    assert "1 answered: src/shop/price.py: answered\n    | price.py has 7 lines." in out
    assert "queries only: no rt task was needed, nothing was written" in out
    assert tree(shop) == before and not (shop.root / ".rt/tasks").exists()
    assert "task 1: fast (read-only step, short conversation (2 messages, under 10)" in out


def test_a_query_beside_edits_stays_out_of_the_scope(shop):
    steps = plan((1, "src/shop/price.py", "edit", "rename the function total to order_total", []),
                 (2, "src/shop/cart.py", "query", "which functions does cart.py import?", []))
    with FakeEndpoint([steps], {1: RENAME_ANSWERS[1], 2: ["total, from shop.price"]}) as fake:
        out = agent(shop, fake, "rename total to order_total and tell me what cart.py imports", ret=1)
    assert "    | total, from shop.price" in out
    assert shop.read("src/shop/cart.py") == CART   # the query wrote nothing
    task = shop.rt_json("tasks")["tasks"][0]
    record = json.loads((shop.root / ".rt/tasks" / task["id"] / "task.json").read_text())
    assert record["scope"]["edit"] == ["src/shop/price.py"]
    assert "rt verify: FAIL" in out or "blocked: rt agent: rt verify FAIL" in out   # cart.py still imports total


def test_a_renamed_path_in_the_plan_is_a_clear_error_naming_the_real_file(shop):
    before = tree(shop)
    steps = plan((1, "src/shop/prices.py", "edit", "rename total to order_total", []))
    with FakeEndpoint([steps]) as fake:
        agent(shop, fake, "rename total in prices.py", ret=2)
    assert shop.last_err.startswith("rt: error: plan task 1: src/shop/prices.py: no such file "
                                    "(closest existing: src/shop/price.py, ")
    assert "nothing was changed" in shop.last_err
    assert tree(shop) == before and not (shop.root / ".rt/tasks").exists()
    assert [who for who, _ in fake.requests] == ["planner"]   # no executor call, no silent switch


def test_create_of_an_existing_file_and_a_path_out_of_the_repository_are_refused(shop):
    for steps, want in ((plan((1, "src/shop/cart.py", "create", "a cart", [])), "already exists"),
                        (plan((1, "../outside.py", "edit", "x", [])), "outside the repository")):
        with FakeEndpoint([steps]) as fake:
            agent(shop, fake, "do it", ret=2)
        assert want in shop.last_err


def test_fenced_code_in_a_whole_file_answer_is_stripped(shop):
    steps = plan((1, "src/shop/util.py", "create", "a function double(x) returning 2 * x", []))
    answer = "Here is the file:\n```python\ndef double(x):\n    return 2 * x\n```\nIt doubles x."
    with FakeEndpoint([steps], {1: [answer]}) as fake:
        out = agent(shop, fake, "add a double function in util.py")
    assert shop.read("src/shop/util.py") == "def double(x):\n    return 2 * x\n"
    assert "rt verify: PASS" in out


def test_an_edit_that_does_not_apply_is_retried_once_with_the_error(shop):
    steps = plan((1, "src/shop/price.py", "edit", "rename the function total to order_total", []))
    wrong = edit("def total(items, tax):\n", "def order_total(items, tax):\n")
    with FakeEndpoint([steps], {1: [wrong, RENAME_ANSWERS[1][0]]}) as fake:
        out = agent(shop, fake, "rename total to order_total in price.py", ret=1)   # cart.py now fails: FAIL
    retry = fake.of("1")[1]["messages"][-1]["content"]
    assert "your previous answer could not be applied: edit 1: its SEARCH lines are not in src/shop/price.py " \
           "(the first: 'def total(items, tax):')" in retry
    assert "def order_total(items):" in shop.read("src/shop/price.py")
    assert "task 1 (retry): " in out


def test_an_edit_that_fails_twice_fails_visibly_and_stops_its_dependents(shop):
    wrong = edit("def total(items, tax):\n", "def order_total(items, tax):\n")
    with FakeEndpoint([RENAME], {1: [wrong, wrong]}) as fake:
        out = agent(shop, fake, "refactor: rename total to order_total", ret=1)
    assert "1 failed: src/shop/price.py: edit 1: its SEARCH lines are not in src/shop/price.py" in out
    assert "2 skipped: not run: it depends on task 1, which did not succeed" in out
    assert "3 skipped: not run: it depends on task 1, which did not succeed" in out
    assert [who for who, _ in fake.requests] == ["planner", "1", "1"]
    assert tree(shop)["src/shop/price.py"] == PRICE.encode()
    task = shop.rt_json("tasks")["tasks"][0]
    assert task["state"] == "blocked"
    assert "blocked: rt agent: task 1 failed: src/shop/price.py: edit 1" in out


def test_two_tasks_on_one_file_are_serialised(shop):
    steps = plan((1, "src/shop/price.py", "edit", "rename total to order_total", []),
                 (2, "src/shop/price.py", "edit", "add a docstring line about tax", []),
                 (3, "src/shop/cart.py", "edit", "use order_total", []))
    answers = {1: RENAME_ANSWERS[1],
               2: [edit('    """The sum of the items\' prices."""\n',
                        '    """The sum of the items\' prices, tax included."""\n')],
               3: RENAME_ANSWERS[2]}
    with FakeEndpoint([steps], answers) as fake:
        out = agent(shop, fake, "rename total and document tax", ret=1)   # the tests still import total: FAIL
    assert "waves: 1) 1, 3  2) 2" in out
    assert "tax included" in shop.read("src/shop/price.py") and "def order_total" in shop.read("src/shop/price.py")
    assert "def order_total(items):" in fake.of("2")[0]["messages"][-1]["content"]   # it saw task 1's edit


def test_invalid_planner_json_gets_one_repair_round(shop):
    with FakeEndpoint(["Sure! Here is the plan: {tasks: [1, 2", RENAME], RENAME_ANSWERS) as fake:
        agent(shop, fake, "refactor: rename total to order_total")
    repair = fake.of("planner")[1]["messages"][-1]["content"]
    assert "your previous answer could not be used: invalid JSON" in repair


def test_invalid_planner_json_twice_is_a_clear_error_and_nothing_changes(shop):
    before = tree(shop)
    with FakeEndpoint(["no plan here", '{"tasks": [{"id": 1, "file": "src/shop/price.py", "action_type": "fix"}]}']) as fake:
        agent(shop, fake, "rename total", ret=3)
    assert shop.last_err == ("rt: error: the planner's answer was not a usable plan, also after one repair round "
                             "(task 1: action_type must be one of edit, create, delete, query, not 'fix'); "
                             "nothing was changed\n")
    assert tree(shop) == before and not (shop.root / ".rt/tasks").exists()


def test_a_dependency_circle_is_refused(shop):
    steps = plan((1, "src/shop/price.py", "edit", "a", [2]), (2, "src/shop/cart.py", "edit", "b", [1]))
    with FakeEndpoint([steps]) as fake:
        agent(shop, fake, "x", ret=2)
    assert "depend on each other in a circle" in shop.last_err


def test_dry_run_shows_the_plan_and_waves_and_changes_nothing(shop):
    before = tree(shop)
    with FakeEndpoint([RENAME]) as fake:
        out = agent(shop, fake, "refactor: rename total to order_total", "--dry-run")
    assert "  2 edit src/shop/cart.py: use order_total instead of total from shop.price (after 1)" in out
    assert "waves: 1) 1  2) 2, 3" in out and "dry run: no task started, nothing edited" in out
    assert tree(shop) == before and not (shop.root / ".rt/tasks").exists()
    assert [who for who, _ in fake.requests] == ["planner"]


def big_module(functions: int) -> str:
    body = "".join(f"\n\ndef step_{i}(value):\n    \"\"\"Step {i} of the pipeline.\"\"\"\n"
                   f"    result = value + {i}\n    result = result * 2\n    return result - {i}\n"
                   for i in range(functions))
    return '"""A long pipeline."""\nimport math\n' + body + "\n\ndef target(value):\n    return math.floor(value)\n"


def test_a_file_too_big_for_the_window_is_cut_to_the_section_the_task_needs(shop):
    shop.write("src/shop/pipeline.py", big_module(120))   # ~850 lines, far over a 4096-token window
    shop.git("add", "-A")
    shop.git("commit", "-qm", "pipeline")
    steps = plan((1, "src/shop/pipeline.py", "edit", "make target round the value instead of floor", []))
    answer = edit("    return math.floor(value)\n", "    return round(value)\n")
    with FakeEndpoint([steps], {1: [answer]}) as fake:
        out = agent(shop, fake, "make target round", window=4096, ret=1)   # ruff: math now unused
    sent = fake.of("1")[0]["messages"][-1]["content"]
    assert "### src/shop/pipeline.py (" in sent and ": function target\n```\ndef target(value):" in sent
    assert "def step_60(" not in sent
    assert "    return round(value)\n" in shop.read("src/shop/pipeline.py")
    assert_within_window(fake, 4096)
    assert "F401" in (shop.root / ".rt/tasks").joinpath(shop.rt_json("tasks")["tasks"][0]["id"], "verify.md").read_text()
    assert "rt verify FAIL" in out


def test_what_can_fit_dropped_is_reported_when_the_window_is_small(shop):
    shop.write("src/shop/pipeline.py", big_module(20))   # 146 lines, ~950 tokens: not whole in a 1300-token window
    shop.git("add", "-A")
    shop.git("commit", "-qm", "pipeline")
    steps = plan((1, "src/shop/pipeline.py", "edit", "make target round the value", []))
    answer = edit("    return math.floor(value)\n", "    return round(math.floor(value) + 0.5)\n")
    with FakeEndpoint([steps], {1: [answer]}) as fake:
        out = agent(shop, fake, "make target round", window=1300)
    assert_within_window(fake, 1300)
    line = next(x for x in out.splitlines() if x.startswith("  task 1:"))
    assert "dropped: folder context" in line and "code beyond" in line
    system, user = (m["content"] for m in fake.of("1")[0]["messages"])
    assert "<<<<<<< SEARCH" in system   # a file that did not fit whole is answered with edits, never whole
    assert "function target" in user and "def step_10(" not in user   # its part the task's words point at


def test_memory_keeps_four_entries_and_goes_after_folder_context_before_code(shop):
    """A task after five others: four notes of them at most (the split's memory entries); in a small window
    folder context goes first, then the notes, and only then is code cut."""
    shop.write("src/shop/pipeline.py", big_module(20))
    shop.git("add", "-A")
    shop.git("commit", "-qm", "pipeline")
    made = [(i, f"src/shop/m{i}.py", "create", f"a module m{i} with a docstring", []) for i in range(1, 6)]
    steps = plan(*made, (6, "src/shop/pipeline.py", "edit", "make target round the value", [1, 2, 3, 4, 5]))
    answers = {i: [f'"""M{i}."""\n'] for i in range(1, 6)}
    answers[6] = [edit("    return math.floor(value)\n", "    return round(math.floor(value) + 0.5)\n")]
    lines = {}
    for window in (8192, 1300):
        shop.git("checkout", "-q", "--", ".")
        shop.git("clean", "-qfd", "-e", ".rt")
        with FakeEndpoint([steps], answers) as fake:
            out = agent(shop, fake, "make target round", window=window)
        assert_within_window(fake, window)
        user = fake.of("6")[0]["messages"][-1]["content"]
        lines[window] = next(x for x in out.splitlines() if x.startswith("  task 6:"))
        notes = [x for x in user.splitlines() if x.startswith("- task ")]
        if window == 8192:
            assert len(notes) == 4 and "## Folder\nsrc/shop/" in user and "def step_19(" in user
            assert lines[window].endswith("dropped: nothing")
        else:
            assert notes == [] and "## Folder" not in user and "def step_19(" not in user
            dropped = lines[window].split("dropped: ")[1]
            assert dropped.index("folder context") < dropped.index("4 of 4 memory entries") < dropped.index("code beyond")
        shop.rt("start", "reset", "--no-baseline")
        shop.rt("block", "reset")


def test_a_window_too_small_for_any_code_is_refused_before_any_call(shop):
    with FakeEndpoint([RENAME]) as fake:
        agent(shop, fake, "rename total", window=600, ret=2)
    assert "too small" in shop.last_err and fake.requests == []


@pytest.mark.parametrize("failure, message", [
    (Status(500, "model crashed"), "answered HTTP 500: {\"error\": {\"message\": \"model crashed\"}}"),
    (Slow(4, "late"), "did not answer within 1 s"),
])
def test_a_failing_planner_call_is_a_clear_error_and_nothing_changes(shop, failure, message):
    before = tree(shop)
    with FakeEndpoint([failure]) as fake:
        agent(shop, fake, "rename total", "--timeout", "1", ret=3)
    assert message in shop.last_err and shop.last_err.count("\n") == 1
    assert tree(shop) == before and not (shop.root / ".rt/tasks").exists()


def test_an_endpoint_failing_mid_run_blocks_the_task_and_runs_nothing_after(shop):
    steps = plan((1, "src/shop/price.py", "edit", "rename total to order_total", []),
                 (2, "src/shop/cart.py", "edit", "use order_total", [1]))
    with FakeEndpoint([steps], {1: [Status(500)]}) as fake:
        out = agent(shop, fake, "rename total", ret=3)
    assert "1 failed: the endpoint failed: " in out and "answered HTTP 500" in out
    assert "2 skipped: not run: the endpoint failed" in out
    assert shop.rt_json("tasks")["tasks"][0]["state"] == "blocked"
    assert tree(shop)["src/shop/price.py"] == PRICE.encode()


def test_sigterm_while_a_call_hangs_ends_rt_agent_at_once_and_the_task_stays_as_it_was(shop):
    """An endpoint that took the call and never answers: SIGTERM ends rt agent as documented (`rt: error:
    interrupted`, exit 2) without waiting out the call's timeout; the task stays planned, nothing written."""
    steps = plan((1, "src/shop/price.py", "edit", "rename total to order_total", []))
    with FakeEndpoint([steps], {1: [Slow(3600, "never")]}) as fake:
        proc = subprocess.Popen([sys.executable, "-m", "rt", "agent", "rename total", "--endpoint", fake.url,
                                 "--model", "m", "--timeout", "3000"], cwd=shop.root, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        try:
            for _ in range(2400):   # the executor's call has reached the endpoint, which holds it
                if fake.of("1") or proc.poll() is not None:
                    break
                time.sleep(0.05)
            proc.send_signal(signal.SIGTERM)
            out, err = proc.communicate(timeout=120)   # not the call's 3000 s
        finally:
            proc.kill()
    assert (proc.returncode, err) == (2, "rt: error: interrupted\n"), out + err
    task = shop.rt_json("status")["task"]
    assert task["state"] == "planned" and task["scope"]["edit"] == ["src/shop/price.py"]
    assert shop.read("src/shop/price.py") == PRICE


def test_the_api_key_comes_from_the_named_environment_variable(shop, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sekrit")
    with FakeEndpoint([RENAME]) as fake:
        agent(shop, fake, "refactor: rename total", "--dry-run", "--key-env", "MY_KEY")
    assert fake.requests[0][1]["auth"] == "Bearer sekrit" and fake.requests[0][1]["path"] == "/v1/chat/completions"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with FakeEndpoint([RENAME]) as fake:
        agent(shop, fake, "refactor: rename total", "--dry-run")
    assert fake.requests[0][1]["auth"] is None


def test_tiers_map_to_the_models_of_rt_toml(shop):
    shop.write("rt.toml", '[agent]\nendpoint = "http://127.0.0.1:9/v1"\n\n[agent.models]\nfast = "small"\n'
                          'balanced = "medium"\npowerful = "large"\n')
    steps = plan((1, "src/shop/price.py", "query", "what does total return?", []))
    with FakeEndpoint([steps], {1: ["the sum"]}) as fake:
        out = shop.rt("agent", "refactor question: what does total return?", "--endpoint", fake.url)
    assert [body["model"] for _, body in fake.requests] == ["large", "medium"]   # powerful, then fast damped
    assert "task 1: balanced (read-only step, short conversation (2 messages, under 10); after a powerful call, " \
           "fast is damped to balanced (hysteresis)); medium;" in out


def test_settings_are_checked(shop):
    shop.rt("agent", "x", "--model", "m", ret=2)
    assert "no endpoint" in shop.last_err
    shop.rt("agent", "x", "--endpoint", "http://127.0.0.1:9/v1", ret=2)
    assert "no model for the tier(s) fast, balanced, powerful" in shop.last_err
    shop.rt("agent", "x", "--endpoint", "file:///etc/passwd", "--model", "m", ret=2)
    assert "give an http:// or https:// URL" in shop.last_err
    shop.write("rt.toml", "[agent]\nmodle = \"m\"\n")
    shop.rt("agent", "x", ret=2)
    assert "[agent] unknown key 'modle'" in shop.last_err


def test_an_active_task_is_not_taken_over(shop):
    shop.rt("start", "mine", "--no-baseline")
    with FakeEndpoint([RENAME]) as fake:
        agent(shop, fake, "rename total", ret=2)
    assert "task 1-mine is still active" in shop.last_err and fake.requests == []


def test_delete_and_create_in_a_new_folder(shop):
    shop.write("notes/old.txt", "outdated\n")
    shop.git("add", "-A")
    shop.git("commit", "-qm", "notes")
    steps = plan((1, "notes/old.txt", "delete", "remove the outdated notes", []),
                 (2, "docs/guide/cart.md", "create", "a short guide to Cart", []))
    with FakeEndpoint([steps], {2: ["# Cart\n\nAdd items, then ask what is due.\n"]}) as fake:
        out = agent(shop, fake, "replace the old notes with a guide")
    assert not (shop.root / "notes/old.txt").exists()
    assert shop.read("docs/guide/cart.md") == "# Cart\n\nAdd items, then ask what is due.\n"
    assert [who for who, _ in fake.requests] == ["planner", "2"]   # a delete needs no call
    assert "rt verify: PASS" in out and "scope: as planned" in out


def test_line_endings_encoding_and_permissions_are_kept(shop):
    script = shop.write("bin/run.sh", b"#!/bin/sh\r\necho caf\xe9\r\nexit 0\r\n")
    script.chmod(0o755)
    shop.git("add", "-A")
    shop.git("commit", "-qm", "script")
    steps = plan((1, "bin/run.sh", "edit", "exit with 3", []))
    with FakeEndpoint([steps], {1: [edit("exit 0\n", "exit 3\n")]}) as fake:
        agent(shop, fake, "make the script exit with 3")
    assert script.read_bytes() == b"#!/bin/sh\r\necho caf\xe9\r\nexit 3\r\n"
    assert script.stat().st_mode & 0o777 == 0o755
    assert "exit 0\n" in fake.of("1")[0]["messages"][-1]["content"]   # the model saw plain newlines


def test_prose_instead_of_the_file_is_not_written(shop):
    steps = plan((1, "src/shop/price.py", "edit", "rename the function total to order_total", []))
    with FakeEndpoint([steps], {1: ["I renamed total to order_total.", "Done: it is renamed now."]}) as fake:
        out = agent(shop, fake, "rename total", ret=1)
    assert "the answer keeps no line of src/shop/price.py, so it is not the whole new file" in out
    assert shop.read("src/shop/price.py") == PRICE


def test_a_query_about_the_repository_is_answered_from_the_map(shop):
    steps = plan((1, "", "query", "which folders hold tests?", []))
    with FakeEndpoint([steps], {1: ["tests/"]}) as fake:
        out = agent(shop, fake, "which folders hold tests?")
    user = fake.of("1")[0]["messages"][-1]["content"]
    assert "## Task 1: query (no file)" in user and "- tests/ (2 files: python 2)" in user
    assert "    | tests/" in out


@pytest.mark.parametrize("config, args, message", [
    ('[agent]\nendpoint = "https://models.example.com/v1"\nmodel = "m"\n', [],
     "rt.toml names the endpoint https://models.example.com/v1, not on this machine: rt sends your API key only "
     "where you name it yourself; pass --endpoint https://models.example.com/v1"),
    ('[agent]\nkey_env = "GITHUB_TOKEN"\nmodel = "m"\n', ["--endpoint", "https://models.example.com/v1"],
     "rt.toml chooses the environment variable GITHUB_TOKEN for the key sent to https://models.example.com/v1; "
     "pass --key-env GITHUB_TOKEN yourself if that is meant"),
    ('[agent]\nmodel = "m"\n', ["--endpoint", "http://models.example.com/v1"],
     "--endpoint http://models.example.com/v1: rt sends your API key (OPENAI_API_KEY) over https only"),
    ('[agent]\nmodel = "m"\n', ["--endpoint", "http://[::1"], "--endpoint 'http://[::1': give an http:// or https://"),
    ('[agent]\nmodel = "m"\n', ["--endpoint", "http://a\r\nb/v1"], "give an http:// or https:// URL with a host"),
    ('[agent]\nmodel = "m"\n', ["--endpoint", "https://me:hunter2@models.example.com/v1"],
     "--endpoint: a user or password in the URL is not sent"),
    ('[agent]\nkeywords = ["-"]\n', ["--endpoint", "http://127.0.0.1:9/v1", "--model", "m"],
     "rt.toml: [agent] keywords must be a list of words or phrases"),
])
def test_a_repository_never_chooses_where_the_key_goes_and_bad_endpoints_are_one_line(shop, monkeypatch, config,
                                                                                      args, message):
    """A cloned repository's rt.toml naming a remote endpoint and GITHUB_TOKEN as the key sent the token there."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-secret")
    shop.write("rt.toml", config)
    shop.rt("agent", "rename total", *args, ret=2)
    assert shop.last_err == f"rt: error: {message}\n" or message in shop.last_err and shop.last_err.count("\n") == 1
    assert "hunter2" not in shop.last_err and "secret" not in shop.last_err


def test_an_answer_that_trickles_past_the_timeout_or_is_too_long_or_too_deep_is_an_endpoint_error():
    """The socket's timeout is per read: an answer sent a few bytes at a time never ended within it."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from rt.agent.client import MAX_REPLY, Client, EndpointError
    answer = json.dumps({"choices": [{"message": {"content": "ok"}}]}).encode()
    bodies = {"/trickle/chat/completions": answer, "/long/chat/completions": b" " * (MAX_REPLY + 10) + answer,
              "/deep/chat/completions": b"[" * 100_000 + b"]" * 100_000}

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            body = bodies[self.path]
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.path.startswith("/trickle"):
                for i in range(len(body)):   # about 6 s in all, 0.1 s at a time
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(6 / len(body))
            else:
                self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        for path, said in (("trickle", "did not answer within 2 s"), ("long", "answered over 8 MB"),
                           ("deep", "did not answer with a chat completion")):
            with pytest.raises(EndpointError, match=said):
                Client(f"{base}/{path}", "NO_SUCH_KEY_ENV", 2).chat("m", [{"role": "user", "content": "x"}], 10)
    finally:
        server.shutdown()
        server.server_close()


def test_waves_of_a_long_chain_written_backwards_and_circles():
    """Step i depends on step i+1, 1,200 of them: the waves were found by recursion, past Python's limit."""
    from rt.agent.orchestrator import waves
    from rt.agent.planner import Step
    from rt.core import UsageError
    n = 1200
    steps = [Step(str(i), f"f{i}.py", "edit", "x", (str(i + 1),) if i < n else ()) for i in range(1, n + 1)]
    out = waves(steps, {s.id: s.depends_on for s in steps})
    assert [[s.id for s in w] for w in out] == [[str(i)] for i in range(n, 0, -1)]
    diamond = [Step("a", "a.py", "edit", "x", ("c", "b")), Step("b", "b.py", "edit", "x", ("c",)),
               Step("c", "c.py", "edit", "x", ())]
    assert [[s.id for s in w] for w in waves(diamond, {s.id: s.depends_on for s in diamond})] == [["c"], ["b"], ["a"]]
    ring = [Step(str(i), f"f{i}.py", "edit", "x", (str(i % 3 + 1),)) for i in range(1, 4)]
    with pytest.raises(UsageError, match="depend on each other in a circle"):
        waves(ring, {s.id: s.depends_on for s in ring})


def test_a_reply_no_file_can_hold_fails_its_task_and_a_plan_naming_such_a_file_is_refused(shop):
    """A Latin-1 file given a euro sign, and a planned name holding a lone surrogate: internal errors before."""
    shop.write("src/shop/price.py", PRICE.replace('"""Prices."""', '"""Prices in \xa3."""').encode("latin-1"))
    shop.git("commit", "-qam", "latin-1")
    steps = plan((1, "src/shop/price.py", "edit", "say the currency is the euro", []))
    with FakeEndpoint([steps], {1: [edit('"""Prices in \xa3."""\n', '"""Prices in \u20ac."""\n')]}) as fake:
        out = agent(shop, fake, "say the currency is the euro", ret=1)
    assert "could not be written: the model's text holds '\\u20ac', which latin-1 cannot hold" in out
    assert shop.rt_json("tasks")["tasks"][0]["state"] == "blocked"
    with FakeEndpoint([plan((1, "src/new\ud800.py", "create", "a new module", []))]) as fake:
        agent(shop, fake, "add a module", "--force", ret=2)
    assert "invalid path 'src/new\\ud800.py': no file name holds it" in shop.last_err


def test_a_plan_nested_past_python_reader_is_a_plan_error():
    from rt.agent.planner import PlanError, parse
    with pytest.raises(PlanError, match="nested deeper than a plan is"):
        parse("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("tasks, said", [
    ([{"id": i, "file": f"f{i}.py", "action_type": "create", "task": "x"} for i in range(201)], "201 tasks, more than 200"),
    ([{"id": 1, "file": "newdir/", "action_type": "create", "task": "x"}], "\"file\" must name a file"),
    ([{"id": 1, "file": "a\nb.py", "action_type": "create", "task": "x"}], "without a control character"),
])
def test_a_plan_too_long_or_naming_no_file_is_a_plan_error(tasks, said):
    from rt.agent.planner import PlanError, parse
    with pytest.raises(PlanError, match=said):
        parse(json.dumps({"tasks": tasks}))
