"""Where the PostToolUse hook's CPU goes after an Edit (ruff the only check): Python started with the hook's
imports added step by step, each `python -S -P -c "<imports>"`, interleaved in every round with the hook
itself and `ruff check FILE` on the same edited file. Min and median CPU ms (user + system of the process
and its children); a step's figure less the one above it is what that step costs.

    python3 bench/hook_steps.py [--rt CHECKOUT] [--files 2000] [--runs 31]

The tree is a `bench/genrepo.py` tree with ruff as its only check (`post_edit_hook.edit_tree`), the task
planned on the edited file; rt runs as the hooks run it, `python -S -P -m rt` with CHECKOUT on PYTHONPATH,
its bytecode compiled first.
"""
from __future__ import annotations

import argparse
import compileall
import os
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from lean_paths import ENV, timed
from post_edit_hook import edit_tree, real_ruff

HOOK_MODULES = ("rt.claude.hooks, rt.state, rt.cli, rt.checks, rt.task.verify, rt.session.runs, rt.snapshot, "
                "rt.diagnostics.parsers.python")
"""What the post-edit hook imports of rt, ruff's parser included (loaded through `importlib`)."""

STEPS = (
    ("the interpreter", "pass"),
    ("+ json, pathlib, re", "import json, pathlib, re"),
    ("+ rt's modules on the hook's path", f"import json, pathlib, re; import {HOOK_MODULES}"),
    ("+ subprocess", f"import json, pathlib, re; import {HOOK_MODULES}; import subprocess"),
    ("+ hashlib", f"import json, pathlib, re; import {HOOK_MODULES}; import subprocess, hashlib"),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rt", default=str(HERE.parent), metavar="CHECKOUT")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=31)
    args = ap.parse_args()
    ruff = real_ruff()
    if not ruff:
        sys.exit("ruff is not installed")
    root = Path(args.rt).resolve()
    compileall.compile_dir(root / "rt", quiet=1)
    env = ENV | {"PYTHONPATH": str(root)}
    rt = [sys.executable, "-S", "-P", "-m", "rt"]
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "repo"
        per_file, rel, payload = edit_tree(tree, args.files, ruff,
                                           lambda t: timed(rt + ["start", "edit one module"], t, env))
        timed(rt + ["plan", "--edit", rel], tree, env)
        path = tree / rel
        original = path.read_text()
        got: dict[str, list[float]] = {name: [] for name, _ in STEPS} | {"the hook": [], "`ruff check FILE`": []}
        for i in range(args.runs):
            for name, code in STEPS:
                got[name].append(timed([sys.executable, "-S", "-P", "-c", code], tree, env)[0])
            path.write_text(original + f"\nEDITED_{i} = {i}\n")
            got["the hook"].append(timed(rt + ["hook", "post-tool-use"], tree, env, payload)[0])
            got["`ruff check FILE`"].append(timed(per_file + [rel], tree)[0])
    print(f"rt: {root}; {args.files:,}-file tree, {args.runs} rounds\n\n| step | CPU ms min | median |\n|---|---|---|")
    for name, runs in got.items():
        print(f"| {name} | {min(runs):.1f} | {statistics.median(runs):.1f} |")
    print(f"\nload average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
