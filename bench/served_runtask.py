"""A second `/runtask` in a hook server's life, paired between two rt checkouts: which server answers it cheaper.

Each round starts, for each checkout in turn, a server in the tree (the hook client's first `/runtask`, which
runs fresh and starts it, then one `/runtask` through the server to warm it), then times three more `/runtask`
hooks through the server (the task's records removed before each, as `bench/runtask_hook.py`'s warm runs do),
then stops it. CPU is the client's (bash) plus the server's with its children (git's listings among them),
from `/proc/PID/stat` clock ticks. The order of the checkouts turns each round.

    python3 bench/served_runtask.py --tree TREE --against DIR [--rounds 4] [--task TEXT]
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
from runtask_hook import TASK, clear  # noqa: E402


def ticks(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) * 1000 / os.sysconf("SC_CLK_TCK")


def round_of(root: Path, tree: Path, task: str, timed: int = 3) -> list[float]:
    """CPU ms of `timed` /runtask hooks through a server of the rt in `root`, after two that start and warm it."""
    state = tree / ".rt" / "hookserver"
    state.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "RT_HOOK_SERVER"}
    env.update(RT_PY=sys.executable, PYTHONPATH=str(root), CLAUDE_PROJECT_DIR=str(tree))
    argv = ["bash", str(root / "rt/claude/hook.sh"), "user-prompt-submit"]
    payload = json.dumps({"session_id": "bench", "cwd": str(tree), "hook_event_name": "UserPromptSubmit",
                          "prompt": f"/runtask {task}"})

    def hook() -> None:
        clear(tree, False)
        subprocess.run(argv, input=payload, capture_output=True, text=True, cwd=tree, env=env, check=True)

    hook()
    while not state.exists():
        time.sleep(0.05)
    pid = int(state.read_text().split()[2])
    hook()
    out = []
    for _ in range(timed):
        before, held = resource.getrusage(resource.RUSAGE_CHILDREN), ticks(pid)
        hook()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000 + ticks(pid) - held)
    os.kill(pid, 15)
    while state.exists():
        time.sleep(0.05)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, required=True, help="a repository with its index built")
    ap.add_argument("--against", type=Path, required=True, help="another rt checkout")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--task", default=TASK)
    args = ap.parse_args()
    roots = [ROOT, args.against.resolve()]
    for root in roots:
        compileall.compile_dir(root / "rt", quiet=1)
    got: dict[Path, list[float]] = {root: [] for root in roots}
    loads = []
    for i in range(args.rounds):
        for root in roots if i % 2 == 0 else roots[::-1]:
            got[root] += round_of(root, args.tree.resolve(), args.task)
        loads.append(os.getloadavg()[0])
    print(f"{args.rounds} rounds, {len(got[ROOT])} timed /runtask hooks per checkout; load {min(loads):.1f}-{max(loads):.1f}")
    for root, runs in got.items():
        print(f"{root}: CPU ms median {statistics.median(runs):.0f} (min {min(runs):.0f}, max {max(runs):.0f})")


if __name__ == "__main__":
    main()
