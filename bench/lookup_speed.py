"""Index and look-up speed against the tools an agent would use instead, in one run on one repository.

    python3 bench/lookup_speed.py REPO --name NAME [--name NAME ...] --text "TEXT" [--runs 5]

Cold: `rt index` from nothing (`.rt/index` removed) against `ctags -R`. Warm: `rt symbol NAME`,
`rt refs NAME` and `rt find TEXT` against `rg -w NAME` / `rg -F TEXT` and `git grep -w NAME`. Every
command runs as a fresh process from the repository's root, as an agent would run it; each figure is
the median wall time of `--runs` runs, the runs of all commands interleaved so machine load hits all
alike. REPO must be a git repository (`bench/genrepo.py` makes one).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RT = [sys.executable, "-m", "rt"]
ENV = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))


def timed(argv: list[str], cwd: Path) -> tuple[float, int]:
    t = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t, proc.returncode


def median_times(cases: dict[str, list[str]], cwd: Path, runs: int) -> dict[str, float]:
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(runs):
        for label, argv in cases.items():
            times[label].append(timed(argv, cwd)[0])
    return {k: statistics.median(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--name", action="append", required=True, help="an identifier to look up (repeatable)")
    ap.add_argument("--text", required=True, help="a text a user sees, for `rt find`")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    repo = args.repo.resolve()
    files = len(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.splitlines())
    print(f"repository: {repo.name}, {files} files; median of {args.runs} runs, wall seconds")

    shutil.rmtree(repo / ".rt" / "index", ignore_errors=True)
    cold_rt, _ = timed(RT + ["index"], repo)
    warm_noop = median_times({"rt index (nothing changed)": RT + ["index"]}, repo, args.runs)
    if shutil.which("ctags"):
        with tempfile.TemporaryDirectory() as tmp:
            cold_ctags, _ = timed(["ctags", "-R", "-f", str(Path(tmp) / "tags"), "."], repo)
        print(f"| cold index | rt index {cold_rt:.2f} | ctags -R {cold_ctags:.2f} | rt/ctags {cold_rt / cold_ctags:.1f}x |")
    else:
        print(f"| cold index | rt index {cold_rt:.2f} | ctags missing | |")
    print(f"| warm no-op | rt index {warm_noop['rt index (nothing changed)']:.2f} | | |")

    for name in args.name:
        cases = {"rt symbol": RT + ["symbol", name], "rt refs": RT + ["refs", name],
                 "rg -w": ["rg", "-w", name], "git grep -w": ["git", "grep", "-w", name]}
        t = median_times(cases, repo, args.runs)
        print(f"| {name} | symbol {t['rt symbol']:.3f} | refs {t['rt refs']:.3f} | rg -w {t['rg -w']:.3f} | "
              f"git grep -w {t['git grep -w']:.3f} | refs/rg {t['rt refs'] / t['rg -w']:.2f} | "
              f"symbol/rg {t['rt symbol'] / t['rg -w']:.2f} | refs/git grep {t['rt refs'] / t['git grep -w']:.2f} |")
    cases = {"rt find": RT + ["find", args.text], "rg -F -i": ["rg", "-F", "-i", args.text],
             "git grep -F -i": ["git", "grep", "-F", "-i", args.text]}
    t = median_times(cases, repo, args.runs)
    print(f"| find {args.text!r} | rt find {t['rt find']:.3f} | rg -F -i {t['rg -F -i']:.3f} | "
          f"git grep -F -i {t['git grep -F -i']:.3f} | find/rg {t['rt find'] / t['rg -F -i']:.2f} | "
          f"find/git grep {t['rt find'] / t['git grep -F -i']:.2f} |")

    # one edited file: the next look-up re-parses only it
    victim = next(p for p in subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.split()
                  if p.endswith((".py", ".ts", ".js")))
    path = repo / victim
    original = path.read_bytes()
    try:
        path.write_bytes(original + b"\n// edited\n" if not victim.endswith(".py") else original + b"\n# edited\n")
        upd, _ = timed(RT + ["symbol", args.name[0]], repo)
    finally:
        path.write_bytes(original)
    print(f"| after editing one file | rt symbol (updates the index) {upd:.2f} | | |")


if __name__ == "__main__":
    main()
