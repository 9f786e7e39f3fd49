"""Time `rt start` (cold and with nothing changed) against `git status` and `git ls-files` on one tree.

    python3 bench/snapshot_speed.py [--files 20000] [--runs 5] [--repo PATH]

Without --repo it generates the synthetic repository (bench/genrepo.py) in bench/.work/. Prints medians and
ratios; "cold" means no `.rt/` (the OS file cache is warm, as it is for git in the same run).
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from genrepo import generate  # noqa: E402

RT = [sys.executable, "-m", "rt"]
ENV = dict(os.environ, PYTHONPATH=str(HERE.parent))


def timed(argv: list[str], cwd: Path, before=None) -> float:
    if before:
        before()
    t = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=ENV, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def start_args(cwd: Path) -> list[str]:
    """`rt start` without running the project's checks, where this rt has them."""
    help_text = subprocess.run(RT + ["start", "--help"], cwd=cwd, env=ENV, capture_output=True, text=True).stdout
    return ["--no-baseline"] if "--no-baseline" in help_text else []


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--repo", type=Path)
    a = ap.parse_args()
    repo = a.repo
    if repo is None:
        repo = HERE / ".work" / f"gen{a.files}"
        if not repo.is_dir():
            generate(repo, a.files)
    repo = repo.resolve()
    extra = start_args(repo)
    wipe = lambda: shutil.rmtree(repo / ".rt", ignore_errors=True)  # noqa: E731
    time.sleep(1.1)  # let the generated files age past rt's racily-clean window
    cold = [timed(RT + ["start", "bench", "--force", *extra], repo, wipe) for _ in range(a.runs)]
    warm = [timed(RT + ["start", "bench", "--force", *extra], repo) for _ in range(a.runs)]
    delta = [timed(RT + ["delta"], repo) for _ in range(a.runs)]
    status = [timed(["git", "status", "--porcelain"], repo) for _ in range(a.runs)]
    ls = [timed(["git", "ls-files", "-co", "--exclude-standard"], repo) for _ in range(a.runs)]
    files = int(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.count("\n"))
    med = {k: statistics.median(v) for k, v in
           {"rt start (cold)": cold, "rt start (unchanged)": warm, "rt delta (unchanged)": delta,
            "git status": status, "git ls-files": ls}.items()}
    print(f"tree: {files} files, median of {a.runs} runs")
    for k, v in med.items():
        print(f"  {k:<22} {v * 1000:8.0f} ms   x{v / med['git status']:.1f} git status")
    print(f"  re-snapshot unchanged / git status = {med['rt start (unchanged)'] / med['git status']:.1f}")
    print(f"  cold start / git ls-files = {med['rt start (cold)'] / med['git ls-files']:.1f}")


if __name__ == "__main__":
    main()
