"""CPU and wall time of the `/runtask` prompt hook as Claude Code runs it: a fresh `python3 -S -m rt hook
user-prompt-submit` with the JSON payload on stdin, in a `bench/genrepo.py` tree.

- cold: no `.rt/` (snapshot, index build, baseline, ranking, manifest, pack, injection);
- warm: the index kept from the run before, the task's records removed (what a second `/runtask` in the
  same repository costs).

Runs alternate cold and warm; CPU is user + system time of the hook and its children (git, the checks).
rt is byte-compiled first, as `pip install` does (this environment sets PYTHONDONTWRITEBYTECODE).

    python3 bench/runtask_hook.py [--files 20000] [--runs 3] [--tree DIR]
"""
from __future__ import annotations

import argparse
import compileall
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
TASK = "fix the invoice total in the cart report export"


def clear(tree: Path, cold: bool) -> None:
    store = tree / ".rt"
    if cold:
        shutil.rmtree(store, ignore_errors=True)
        return
    shutil.rmtree(store / "tasks", ignore_errors=True)
    (store / "state.json").unlink(missing_ok=True)


def once(tree: Path, cold: bool) -> tuple[float, float, int]:
    """(CPU s, wall s, characters injected) of one hook run."""
    clear(tree, cold)
    payload = json.dumps({"session_id": "bench", "cwd": str(tree), "hook_event_name": "UserPromptSubmit",
                          "prompt": f"/runtask {TASK}"})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-S", "-m", "rt", "hook", "user-prompt-submit"], input=payload, cwd=tree,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    if text.startswith("rt could not run"):   # a failed hook is no figure
        sys.exit(f"the hook failed: {text}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall, len(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tree", type=Path, help="an existing bench/genrepo.py tree (else one is made)")
    args = ap.parse_args()
    compileall.compile_dir(ROOT / "rt", quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        tree = args.tree or Path(tmp) / "repo"
        if not args.tree:
            subprocess.run([sys.executable, str(ROOT / "bench/genrepo.py"), str(tree), "--files", str(args.files)],
                           check=True, capture_output=True)
        files = len(subprocess.run(["git", "ls-files"], cwd=tree, capture_output=True, text=True).stdout.splitlines())
        got: dict[str, list[tuple[float, float, int]]] = {"cold": [], "warm": []}
        for _ in range(args.runs):
            got["cold"].append(once(tree, True))
            got["warm"].append(once(tree, False))
        load = os.getloadavg()[0]
    print(f"tree: {files:,} files; {args.runs} runs each, alternating; load average {load:.1f}")
    print("| run | CPU s median (min-max) | wall s median | characters injected |")
    print("|---|---|---|---|")
    for name, rows in got.items():
        cpu = [r[0] for r in rows]
        print(f"| {name} | {statistics.median(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f}) | "
              f"{statistics.median(r[1] for r in rows):.2f} | {rows[-1][2]:,} |")


if __name__ == "__main__":
    main()
