"""`rt agent`: tokens per call against the window, parallel waves against sequential, and (with a real model)
how many tasks end with PASS.

1. Tokens: scripted runs (the fake endpoint of tests/agent_support.py) at several windows; for every call
   the estimate of what was sent, plus the answer's reserve (`max_tokens`), against the window. Never over
   is the rule; the largest share is printed.
2. Waves: five independent one-file edits (one wave), the fake endpoint taking DELAY seconds per answer (a
   model's generation time), run with --jobs 1, 2 and 5 interleaved, RUNS times each; the executor phase's
   wall (first executor request in to last answer out, timed at the endpoint) and the whole `rt agent`
   process's wall and CPU (user + system, children included: ruff in verify).
3. Live (with --live URL --live-model NAME): the tasks of LIVE_TASKS on a small repository with ruff and
   pytest, each a real `rt agent` run against that endpoint; the verdict of each, and the endpoint's own
   prompt-token counts against rt's estimates.

    python3 bench/agent.py [--runs 5] [--delay 1.0] [--live http://127.0.0.1:8080/v1 --live-model NAME --live-context 8192]
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from agent_support import FakeEndpoint, edit, plan  # noqa: E402
from rt import budget  # noqa: E402
from test_agent import CART, PRICE, RENAME, RENAME_ANSWERS, TESTS, big_module  # noqa: E402

GIT = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}


def run(cmd: list[str], cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **GIT, "PYTHONPATH": str(ROOT)})


def repo(files: dict[str, str]) -> Path:
    top = Path(tempfile.mkdtemp(prefix="rt-agent-bench-"))
    atexit.register(shutil.rmtree, top, True)
    root = top / "repo"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    run(["git", "init", "-q", "-b", "main"], root)
    run(["git", "add", "-A"], root)
    run(["git", "commit", "-qm", "init"], root)
    return root


def reset(root: Path) -> None:
    run(["git", "checkout", "-q", "--", "."], root)
    run(["git", "clean", "-qfd", "-e", ".rt"], root)


def agent(root: Path, url: str, model: str, task: str, *extra: str, timeout: float | None = None):
    """One `rt agent` process: (exit code, its --json data or None, wall s, CPU s of it and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = run([sys.executable, "-m", "rt", "agent", task, "--endpoint", url, "--model", model, "--json", *extra],
            root, timeout)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    try:
        data = json.loads(p.stdout)
    except ValueError:
        data = None
    return p.returncode, data, wall, cpu, p.stderr


SHOP = {"pyproject.toml": '[tool.ruff]\nline-length = 100\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        "src/shop/__init__.py": '"""Shop: prices and carts."""\n', "src/shop/price.py": PRICE,
        "src/shop/cart.py": CART, "tests/test_cart.py": TESTS,
        "tests/conftest.py": "import pathlib\nimport sys\n\nsys.path.insert(0, str(pathlib.Path(__file__).parent.parent / 'src'))\n"}


def tokens() -> None:
    print("## 1. tokens per call against the window (scripted endpoint)")
    target = plan((1, "src/shop/pipeline.py", "edit", "make target round the value instead of floor", []))
    rounded = {1: [edit("    return math.floor(value)\n", "    return round(math.floor(value))\n")]}
    cases = [("3-file refactor, 2 waves", SHOP, RENAME, RENAME_ANSWERS, (8192, 4096, 2048)),
             ("one edit in an 849-line file", SHOP | {"src/shop/pipeline.py": big_module(120)}, target, rounded,
              (8192, 4096, 2048)),
             ("one edit in a 146-line file of ~950 tokens", SHOP | {"src/shop/pipeline.py": big_module(20)}, target,
              rounded, (8192, 2048, 1300))]
    worst = 0.0
    for name, files, steps, answers, windows in cases:
        root = repo(files)
        for window in windows:
            reset(root)
            with FakeEndpoint([steps], answers) as fake:
                code, data, *_ = agent(root, fake.url, "m", "refactor: " + name, "--context", str(window))
            rows = []
            for who, body in fake.requests:
                sent = sum(budget.estimate(m["content"]) + 4 for m in body["messages"])
                share = (sent + body["max_tokens"]) / window
                worst = max(worst, share)
                call = next(c for c in data["calls"] if c["who"] == ("planner" if who == "planner" else f"task {who}"))
                rows.append(f"{who}: {sent}+{body['max_tokens']} ({share:.0%}){' dropped: ' + '; '.join(call['dropped']) if call['dropped'] else ''}")
            print(f"{name}, window {window}: exit {code}, " + ", ".join(rows))
    print(f"largest share of a window used (sent + answer reserve): {worst:.0%}")


def waves(runs: int, delay: float) -> None:
    print(f"\n## 2. one wave of five independent edits, {delay} s per answer, {runs} runs interleaved")
    files = {"pyproject.toml": "[tool.ruff]\nline-length = 100\n"}
    files |= {f"pkg/mod_{i}.py": f'"""Module {i}."""\n\n\ndef value():\n    return 0\n' for i in range(5)}
    root = repo(files)
    steps = plan(*[(i + 1, f"pkg/mod_{i}.py", "edit", f"make value return {i + 1}", []) for i in range(5)])
    answers = {i + 1: [edit("    return 0\n", f"    return {i + 1}\n")] for i in range(5)}
    got: dict[int, list[tuple[float, float, float]]] = {1: [], 2: [], 5: []}
    for _ in range(runs):
        for jobs in got:
            reset(root)
            with FakeEndpoint([steps], answers, delay=delay) as fake:
                code, data, wall, cpu, err = agent(root, fake.url, "m", "set the values", "--jobs", str(jobs))
            assert code == 0, err
            spans = [(a, b) for who, a, b in fake.spans if who != "planner"]
            got[jobs].append((max(b for _, b in spans) - min(a for a, _ in spans), wall, cpu))
    base = statistics.median(x[0] for x in got[1])
    for jobs, xs in got.items():
        phase, wall, cpu = (statistics.median(x[i] for x in xs) for i in range(3))
        print(f"--jobs {jobs}: executor phase {phase:.2f} s (x{base / phase:.2f} faster than --jobs 1), "
              f"whole run {wall:.2f} s wall, {cpu:.2f} s CPU")


LIVE_TASKS = [
    ("rename the function total in src/shop/price.py to order_total, and update its callers in src/shop/cart.py "
     "and tests/test_cart.py", "edit"),
    ("add a function double(x) returning 2 * x at the end of src/shop/price.py", "edit"),
    ("create src/shop/tax.py with a function add_tax(amount, rate) returning amount * (1 + rate)", "edit"),
    ("how many functions does src/shop/cart.py define?", "query"),
]


def counted(url: str, model: str, context: int) -> None:
    """The prompts of scripted runs, sent to the real endpoint with max_tokens 1: its tokenizer's count of
    each against rt's estimate, and against the window with the answer's reserve."""
    from rt.agent.client import Client
    from rt.agent.prompt import sent
    bodies = []
    for files, steps, answers in ((SHOP, RENAME, RENAME_ANSWERS),
                                  (SHOP | {"src/shop/pipeline.py": big_module(120)},
                                   plan((1, "src/shop/pipeline.py", "edit", "make target round the value", [])),
                                   {1: [edit("    return math.floor(value)\n", "    return round(math.floor(value))\n")]})):
        root = repo(files)
        with FakeEndpoint([steps], answers) as fake:
            agent(root, fake.url, "m", "refactor it", "--context", str(context))
        bodies += [body for _, body in fake.requests]
    client = Client(url, "OPENAI_API_KEY", 600)
    rows = []
    for body in bodies:
        real = client.chat(model, body["messages"], 1).prompt_tokens
        rows.append((sent(body["messages"]), real, body["max_tokens"]))
    print(f"{len(rows)} prompts of scripted runs at window {context}, counted by the endpoint's tokenizer: "
          + ", ".join(f"{est} est / {real} real" for est, real, _ in rows))
    print(f"real / estimate: median {statistics.median(r / e for e, r, _ in rows):.2f}, "
          f"max {max(r / e for e, r, _ in rows):.2f}; largest real share of the window with the answer's "
          f"reserve: {max((r + a) / context for _, r, a in rows):.0%}")


def live(url: str, model: str, context: int, timeout: float) -> None:
    print(f"\n## 3. a real model: {model} at {url}, window {context}")
    counted(url, model, context)
    root = repo(SHOP)
    passed = 0
    ratios = []
    for task, kind in LIVE_TASKS:
        reset(root)
        before = run(["git", "status", "--porcelain"], root).stdout
        try:
            code, data, wall, cpu, err = agent(root, url, model, task, "--context", str(context), "--jobs", "1",
                                               "--timeout", str(int(timeout)), timeout=timeout * 20)
        except subprocess.TimeoutExpired:
            print(f"- {task[:60]}...: gave up after {timeout * 20:.0f} s")
            continue
        if data is None or "error" in data:
            print(f"- {task[:60]}...: exit {code}, {data['error'] if data else 'no output'} ({wall:.0f} s)")
            continue
        calls = data["calls"]
        ratios += [c["reported"] / c["sent"] for c in calls if c["reported"]]
        if kind == "query":
            untouched = run(["git", "status", "--porcelain"], root).stdout == before
            ok = untouched and any(r["status"] == "answered" for r in data["results"])
            answer = " ".join(" ".join(r["answer"] for r in data["results"]).split())[:120]
            print(f"- query: exit {code}, disk untouched: {untouched}, answer: {answer!r} ({wall:.0f} s)")
        else:
            ok = data.get("end") == "finished"
            print(f"- {task[:60]}...: exit {code}, {data.get('end')}, results "
                  f"{[r['status'] for r in data['results']]}, {len(calls)} calls ({wall:.0f} s)")
        passed += ok
    print(f"tasks that ended as wanted (edits: PASS and finished; query: answered, disk untouched): "
          f"{passed} of {len(LIVE_TASKS)}")
    if ratios:
        print(f"prompt tokens the endpoint counted / rt's estimate: median {statistics.median(ratios):.2f}, "
              f"max {max(ratios):.2f} over {len(ratios)} calls")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--delay", type=float, default=1.0)
    ap.add_argument("--live", metavar="URL")
    ap.add_argument("--live-model", default="local")
    ap.add_argument("--live-context", type=int, default=8192)
    ap.add_argument("--live-timeout", type=float, default=600)
    ap.add_argument("--skip-scripted", action="store_true", help="only the live part")
    ap.add_argument("--count-only", action="store_true", help="live: only the token counts, no tasks")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    if not args.skip_scripted:
        tokens()
        waves(args.runs, args.delay)
    if args.live and args.count_only:
        print(f"\n## 3. a real model's tokenizer: {args.live_model} at {args.live}")
        counted(args.live, args.live_model, args.live_context)
    elif args.live:
        live(args.live, args.live_model, args.live_context, args.live_timeout)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
