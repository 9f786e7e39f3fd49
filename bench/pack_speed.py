"""Warm `rt pack WORD` against `rg -w -i WORD .`: does the pack's cost follow the matches, not the tree?

    python3 bench/pack_speed.py REPO [REPO ...] --word WORD [--word WORD ...] [--runs 5]

For each repository the index is built first (not timed). Then, per word, `rt pack WORD` and
`rg -w -i -l WORD . -g '!.rt'` (rt's own `.rt/` left out, `.` always given) run as fresh processes from
the repository's root, interleaved so machine load hits both alike; each figure is the median of
`--runs` runs: CPU seconds (user + system, children included) and wall seconds, with the number of
files the word is in (rg's count). Last, the peak memory (max RSS) of one `rt pack` per word.
`bench/genrepo.py` makes generated trees of any size.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {
    "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
    "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "rt-bench-pycache")}
"""rt runs from this checkout with its bytecode cached (outside the checkout), as an installed rt would."""


def timed(argv: list[str], cwd: Path) -> tuple[float, float, int, str]:
    """(wall seconds, CPU seconds, max RSS KB of children so far, stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                         errors="replace", check=False).stdout
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), after.ru_maxrss, out


def peak_kb(argv: list[str], cwd: Path) -> int:
    """Max RSS of one run, measured in a child of its own (RUSAGE_CHILDREN keeps the largest ever seen)."""
    code = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
            "stderr=subprocess.DEVNULL); print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    return int(subprocess.run([sys.executable, "-c", code, *argv], cwd=cwd, env=ENV, capture_output=True,
                              text=True, check=True).stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--word", action="append", required=True)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    rt = [sys.executable, "-m", "rt"]
    print("| repository | files | word | files with it | rt pack cpu | rg cpu | cpu ratio | rt pack wall | rg wall | "
          "wall ratio | rt pack peak MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for repo in a.repos:
        repo = repo.resolve()
        subprocess.run(rt + ["index"], cwd=repo, env=ENV, stdout=subprocess.DEVNULL, check=True)
        files = len(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.splitlines())
        for word in a.word:
            cases = {"rt": rt + ["pack", word], "rg": ["rg", "-w", "-i", "-l", word, ".", "-g", "!.rt"]}
            runs: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
            hits = 0
            for _ in range(a.runs):
                for name, argv in cases.items():
                    wall, cpu, _, out = timed(argv, repo)
                    runs[name].append((wall, cpu))
                    if name == "rg":
                        hits = len(out.splitlines())
            med = {k: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v)) for k, v in runs.items()}
            peak = peak_kb(cases["rt"], repo) / 1024
            print(f"| {repo.name} | {files} | {word} | {hits} | {med['rt'][1]:.3f} | {med['rg'][1]:.3f} | "
                  f"{med['rt'][1] / med['rg'][1]:.2f} | {med['rt'][0]:.3f} | {med['rg'][0]:.3f} | "
                  f"{med['rt'][0] / med['rg'][0]:.2f} | {peak:.0f} |", flush=True)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}; {time.strftime('%Y-%m-%d')}")


if __name__ == "__main__":
    main()
