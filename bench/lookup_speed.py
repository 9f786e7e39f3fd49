"""Index and look-up speed against the tools an agent would use instead, in one run on one repository.

    python3 bench/lookup_speed.py REPO --name NAME [--name NAME ...] --text "TEXT" [--runs 5]

Cold: `rt index` from nothing (`.rt/index` removed) against `ctags -R`. Warm: `rt symbol NAME`,
`rt refs NAME` and `rt find TEXT` against `rg -w NAME` / `rg -F TEXT` and `git grep -w NAME`. Every
command runs as a fresh process from the repository's root, as an agent would run it; each figure is
the median of `--runs` runs, the runs of all commands interleaved so machine load hits all alike:
wall seconds, and CPU seconds (user + system, all threads and children), which a busy shared
machine disturbs less. Last, the look-up after an edit (right after it, and a second later), and after
adding a file. Every peer leaves rt's own `.rt/` out (ctags `--exclude=.rt`, rg `-g '!.rt'`) and rg is always given
`.` (with no path and a stdin that is not a terminal it would search stdin). REPO must be a git repository (`bench/genrepo.py` makes one); its files are restored.
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

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {
    "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
    "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "rt-bench-pycache")}
"""rt runs from this checkout with its bytecode cached (outside the checkout), as an installed rt would."""


def timed(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


class T:
    """Median wall and CPU seconds of one command."""

    def __init__(self, runs: list[tuple[float, float]]):
        self.wall = statistics.median(r[0] for r in runs)
        self.cpu = statistics.median(r[1] for r in runs)

    def __str__(self) -> str:
        return f"{self.wall:.3f} ({self.cpu:.3f} cpu)"

    def __truediv__(self, other: T) -> str:
        return f"{self.wall / other.wall:.2f} ({self.cpu / other.cpu:.2f} cpu)"


def tracked(repo: Path) -> list[str]:
    return subprocess.run(["git", "ls-files"], cwd=repo, capture_output=True, text=True, check=True).stdout.splitlines()


def median_times(cases: dict[str, list[str]], cwd: Path, runs: int) -> dict[str, T]:
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
    for _ in range(runs):
        for label, argv in cases.items():
            times[label].append(timed(argv, cwd))
    return {k: T(v) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--name", action="append", required=True, help="an identifier to look up (repeatable)")
    ap.add_argument("--text", required=True, help="a text a user sees, for `rt find`")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cold-runs", type=int, default=3, help="runs of the cold build and of ctags")
    ap.add_argument("--no-site", action="store_true",
                    help="run rt as `python3 -S -m rt` (the form rt's hooks use): no site-packages start-up")
    args = ap.parse_args()
    site = ["-S"] if args.no_site else []
    RT = [sys.executable, *site, "-m", "rt"]  # noqa: N806
    repo = args.repo.resolve()
    files = len(tracked(repo))
    print(f"repository: {repo.name}, {files} files; median of {args.runs} runs; seconds wall (CPU)"
          + ("; rt and python run with -S" if args.no_site else ""))

    cold_rt: list[tuple[float, float]] = []
    cold_ctags: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.cold_runs):   # interleaved: rt from nothing, then ctags
            shutil.rmtree(repo / ".rt" / "index", ignore_errors=True)
            cold_rt.append(timed(RT + ["index"], repo))
            if shutil.which("ctags"):
                cold_ctags.append(timed(["ctags", "-R", "--exclude=.rt", "--exclude=.git", "-f",
                                         str(Path(tmp) / "tags"), "."], repo))
    if cold_ctags:
        print(f"| cold index ({args.cold_runs} runs) | rt index {T(cold_rt)} | ctags -R {T(cold_ctags)} "
              f"| rt/ctags {T(cold_rt) / T(cold_ctags)} |")
    else:
        print(f"| cold index | rt index {T(cold_rt)} | ctags missing | |")
    warm_noop = median_times({"noop": RT + ["index"]}, repo, args.runs)["noop"]
    print(f"| warm, nothing changed | rt index {warm_noop} | | |")
    floor = median_times({"python": [sys.executable, *site, "-c", "pass"], "rt": RT + ["--version"]}, repo, args.runs)
    print(f"| start-up floor | python3 -c pass {floor['python']} | rt --version {floor['rt']} | |")

    for name in args.name:
        cases = {"rt symbol": RT + ["symbol", name], "rt refs": RT + ["refs", name],
                 "rg -w": ["rg", "-w", name, ".", "-g", "!.rt"], "git grep -w": ["git", "grep", "-w", name]}
        t = median_times(cases, repo, args.runs)
        print(f"| {name} | symbol {t['rt symbol']} | refs {t['rt refs']} | rg -w {t['rg -w']} | "
              f"git grep -w {t['git grep -w']} | symbol/rg {t['rt symbol'] / t['rg -w']} | "
              f"refs/rg {t['rt refs'] / t['rg -w']} | refs/git grep {t['rt refs'] / t['git grep -w']} |")
    cases = {"rt find": RT + ["find", args.text], "rg -F -i": ["rg", "-F", "-i", args.text, ".", "-g", "!.rt"],
             "git grep -F -i": ["git", "grep", "-F", "-i", args.text]}
    t = median_times(cases, repo, args.runs)
    print(f"| find {args.text!r} | rt find {t['rt find']} | rg -F -i {t['rg -F -i']} | "
          f"git grep -F -i {t['git grep -F -i']} | find/rg {t['rt find'] / t['rg -F -i']} | "
          f"find/git grep {t['rt find'] / t['git grep -F -i']} |")

    # an edit, as an agent makes one: the next look-up reads that file again, and only it; a new file
    # changes its folder, so the look-up after it scans the tree
    victim = next(p for p in tracked(repo) if p.endswith((".py", ".ts", ".js")))
    path = repo / victim
    original = path.read_bytes()
    comment = b"#" if victim.endswith(".py") else b"//"
    right_after, a_second_later = [], []
    try:
        for i in range(args.runs):
            path.write_bytes(original + b"\n" + comment + b" edit %d\n" % i)
            right_after.append(timed(RT + ["symbol", args.name[0]], repo))
            path.write_bytes(original + b"\n" + comment + b" edit %d again\n" % i)
            time.sleep(1.2)
            a_second_later.append(timed(RT + ["symbol", args.name[0]], repo))
    finally:
        path.write_bytes(original)
    added = repo / (victim + ".rt-bench-new" + Path(victim).suffix)
    try:
        added.write_bytes(original)
        time.sleep(1.2)
        new_file = T([timed(RT + ["symbol", args.name[0]], repo)])
    finally:
        added.unlink()
    print(f"| after an edit | rt symbol right after {T(right_after)} | 1 s after {T(a_second_later)} "
          f"| after adding a file {new_file} |")


if __name__ == "__main__":
    main()
