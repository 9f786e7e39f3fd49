"""What rt adds to the model's context in the real Claude Code client, measured on the request bodies.

Runs `claude -p` three times in a synthetic repository against the scripted fake API (tests/e2e/):
without rt, with `rt install` and a plain prompt (the up-front cost: the skill's description and the
agents listing), and with `/runtask <task>` (the skill body and the hook's injection). It reports the
characters of the first request's messages and rt's token estimate (`rt.budget.estimate`), plus the
wall time of each run (hooks included).

    python3 bench/claude_context.py [--files 2000] [--task "..."]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["PATH"] = os.pathsep.join([str(ROOT / ".ci" / "node_modules" / ".bin"), os.environ.get("PATH", "")])

from rt.budget import estimate  # noqa: E402
from tests.e2e.fakeapi import text  # noqa: E402
from tests.e2e.harness import claude_binary, run_claude, seen  # noqa: E402


HOLDS = (("skill listing", "- runtask: "), ("skill body", "rt started the task"),
         ("injected code", "## Code most likely to change"), ("a preview instead", "Output too large"))
"""What to look for in the first request: a label and a marker that only that part carries."""


def first_request(repo: Path, home: Path, prompt: str) -> tuple[str, float]:
    start = time.perf_counter()
    run = run_claude(repo, home, prompt, [[text("ok")]])
    took = time.perf_counter() - start
    if run.code != 0 or not run.turns:
        raise SystemExit(f"claude failed ({run.code}): {run.stderr[-500:]}")
    return seen(run.turns[0]), took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--task", default="fix the invoice total in the cart report export")
    args = ap.parse_args()
    if not claude_binary():
        raise SystemExit("the Claude Code client is not installed: run `bash .ci/run` (or npm install --prefix .ci)")
    with tempfile.TemporaryDirectory() as tmp:
        repo, home = Path(tmp) / "repo", Path(tmp) / "home"
        subprocess.run([sys.executable, str(ROOT / "bench/genrepo.py"), str(repo), "--files", str(args.files)],
                       check=True, capture_output=True)
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        plain, t_plain = first_request(repo, home, args.task)
        subprocess.run([sys.executable, "-m", "rt", "install"], cwd=repo, env=env, check=True, capture_output=True)
        installed, t_installed = first_request(repo, home, args.task)
        runtask, t_runtask = first_request(repo, home, f"/runtask {args.task}")
    rows = [("without rt", plain, t_plain), ("rt installed, plain prompt", installed, t_installed),
            ("rt installed, /runtask", runtask, t_runtask)]
    print(f"repository: bench/genrepo.py --files {args.files}; task: {args.task!r}")
    print("| first request | message chars | est. tokens | added by rt (tokens) | holds | run time (s) |")
    print("|---|---|---|---|---|---|")
    for name, body, took in rows:
        holds = ", ".join(label for label, mark in HOLDS if mark in body) or "-"
        print(f"| {name} | {len(body):,} | {estimate(body):,} | {estimate(body) - estimate(plain):+,} | {holds} | {took:.1f} |")
    failed = [line for line in runtask.splitlines() if "rt could not run" in line]
    if failed:
        print("hook failure the model saw: " + failed[0][:300])


if __name__ == "__main__":
    main()
