"""Time `rt start` (cold and with nothing changed) and `rt delta` against `git status` and `git ls-files`
on one tree: wall and CPU, the commands interleaved run by run.

    python3 bench/snapshot_speed.py [--files 20000] [--runs 5] [--repo PATH]

Without --repo it generates the synthetic repository (bench/genrepo.py) in bench/.work/. Prints medians and
ratios; "cold" means no `.rt/` (the OS file cache is warm, as it is for git in the same run).
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from genrepo import generate  # noqa: E402

RT = [sys.executable, "-m", "rt"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {
    "PYTHONPATH": str(HERE.parent), "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "rt-bench-pycache")}
"""rt runs from this checkout with its bytecode cached (outside the checkout), as an installed rt would."""


def timed(argv: list[str], cwd: Path, before=None) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the process and its children) of one run."""
    if before:
        before()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=ENV, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime


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
    cases = {"rt start (cold)": (RT + ["start", "bench", "--force", *extra], wipe),
             "git ls-files": (["git", "ls-files", "-co", "--exclude-standard"], None),
             "rt start (unchanged)": (RT + ["start", "bench", "--force", *extra], None),
             "rt delta (unchanged)": (RT + ["delta"], None),
             "git status": (["git", "status", "--porcelain"], None)}
    got: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
    for _ in range(a.runs):   # interleaved, so machine load hits every command alike
        for k, (argv, before) in cases.items():
            got[k].append(timed(argv, repo, before))
    files = int(subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True).stdout.count("\n"))
    med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in got.items()}
    print(f"tree: {files} files, median of {a.runs} interleaved runs; load average {os.getloadavg()[0]:.1f}")
    print("| command | wall ms | CPU ms | / git status wall | / git status CPU |")
    print("|---|---|---|---|---|")
    gs = med["git status"]
    for k, (w, c) in med.items():
        print(f"| {k} | {w * 1000:.0f} | {c * 1000:.0f} | {w / gs[0]:.2f} | {c / gs[1]:.2f} |")
    print(f"cold start / git ls-files: {med['rt start (cold)'][0] / med['git ls-files'][0]:.1f} wall, "
          f"{med['rt start (cold)'][1] / med['git ls-files'][1]:.1f} CPU")


if __name__ == "__main__":
    main()
