"""Where a cold `rt index` spends its CPU, against `ctags -R` and against what any Python index must do.

    python3 bench/index_floor.py TREE [--runs N]

Per round, interleaved: `ctags -R` (`.rt/` and `.git/` left out), then in this process the floor of a Python
index (reading and decoding every tracked file, `ast.parse` of the Python ones, each file's set of words), then
`rt index` built serially here (`.rt/index/` removed first) with its two phases timed: parsing the files and
writing the shards. CPU seconds (user + system) of this process or of the child; medians over the rounds.
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def cpu() -> float:
    return time.process_time()


def ctags(tree: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["ctags", "-R", "--exclude=.rt", "--exclude=.git", "-f", os.devnull, "."], cwd=tree, check=True,
                   capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def floor(tree: Path, paths: list[str]) -> dict[str, float]:
    """The least a Python index does: read every file, parse the Python ones, find each file's words."""
    start = cpu()
    texts = {}
    for p in paths:
        try:
            with open(tree / p, "rb") as f:
                texts[p] = f.read().decode("utf-8", "replace")
        except OSError:
            continue
    read = cpu()
    for p, text in texts.items():
        if p.endswith(".py"):
            try:
                ast.parse(text)
            except (SyntaxError, ValueError):
                pass
    parsed = cpu()
    word = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    for text in texts.values():
        set(word.findall(text))
    return {"read and decode": read - start, "ast.parse (.py)": parsed - read, "word sets": cpu() - parsed}


def rt_index(tree: Path) -> dict[str, float]:
    """`rt index` built serially in this process, its parse and write phases timed."""
    from rt.cli import main
    from rt.index import index
    shutil.rmtree(tree / ".rt" / "index", ignore_errors=True)
    spent = {"parse": 0.0, "write": 0.0}

    def timed(name, f):
        def run(*a, **k):
            t = cpu()
            try:
                return f(*a, **k)
            finally:
                spent[name] += cpu() - t
        return run
    parse_all, write, workers = index.parse_all, index._write, index.WORKERS
    index.parse_all, index._write, index.WORKERS = timed("parse", parse_all), timed("write", write), 1
    old = os.getcwd()
    os.chdir(tree)
    start = cpu()
    try:
        with open(os.devnull, "w") as null:
            stdout, sys.stdout = sys.stdout, null
            try:
                main(["index"])
            finally:
                sys.stdout = stdout
    finally:
        os.chdir(old)
        index.parse_all, index._write, index.WORKERS = parse_all, write, workers
    spent["whole"] = cpu() - start
    return spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    tree = args.tree.resolve()
    paths = subprocess.run(["git", "ls-files", "-z"], cwd=tree, capture_output=True, text=True,
                           check=True).stdout.split("\0")[:-1]
    rows: dict[str, list[float]] = {}
    for _ in range(args.runs):
        rows.setdefault("ctags -R", []).append(ctags(tree))
        for name, value in floor(tree, paths).items():
            rows.setdefault(f"floor: {name}", []).append(value)
        for name, value in rt_index(tree).items():
            rows.setdefault(f"rt index (serial): {name}", []).append(value)
    print(f"tree: {len(paths):,} files; {args.runs} rounds; load average {os.getloadavg()[0]:.1f}")
    print("| what | CPU s median | x ctags |")
    print("|---|---|---|")
    base = statistics.median(rows["ctags -R"])
    for name, values in rows.items():
        m = statistics.median(values)
        print(f"| {name} | {m:.2f} | {m / base:.2f} |")


if __name__ == "__main__":
    main()
