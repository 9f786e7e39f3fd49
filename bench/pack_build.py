"""`build_pack`'s own CPU, in-process on a kept index, for rt checkouts compared on the same trees and tasks.

    python3 bench/pack_build.py --rt DIR [--rt DIR ...] --tree REPO --task TEXT [--task TEXT ...] [--runs 60] [--rounds 3]

For each tree, task and round, each `--rt` checkout runs in a process of its own (its `rt` imported from that
folder), loads the tree's index once, then ranks and packs the task `--runs` times; the least and the median CPU
of one rank + pack are printed, with the pack's size and files given code. The checkouts alternate within each
round, so load hits them alike. What the server pays for a served `rt pack` besides the request itself.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = """
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
from rt.cli import Ctx
from rt import context
from rt.index import index
ctx = Ctx(False)
idx = index.load(ctx)
xs = []
for _ in range(int(sys.argv[3])):
    t = time.process_time()
    pack = context.build_pack(context._view(ctx, sys.argv[2], [], idx))
    xs.append((time.process_time() - t) * 1000)
print(json.dumps({"least": min(xs), "median": statistics.median(xs), "chars": len(pack.text), "files": len(pack.files)}))
"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rt", action="append", required=True, help="an rt checkout (repeatable)")
    p.add_argument("--tree", action="append", required=True, help="a repository to pack in (repeatable)")
    p.add_argument("--task", action="append", required=True, help="a task text (repeatable)")
    p.add_argument("--runs", type=int, default=60)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    print("| tree | task | rt | least ms (each round) | median ms | chars | files |\n|---|---|---|---|---|---|---|")
    for tree in args.tree:
        for task in args.task:
            got: dict[str, list[dict]] = {rt: [] for rt in args.rt}
            for _ in range(args.rounds):
                for rt in args.rt:
                    out = subprocess.run([sys.executable, "-c", CHILD, rt, task, str(args.runs)], cwd=tree,
                                         capture_output=True, text=True, check=True).stdout
                    got[rt].append(json.loads(out))
            for rt, rows in got.items():
                least = ", ".join(f"{r['least']:.1f}" for r in rows)
                print(f"| {tree} | {task} | {rt} | {least} | {min(r['median'] for r in rows):.1f} | "
                      f"{rows[0]['chars']} | {rows[0]['files']} |")


if __name__ == "__main__":
    main()
