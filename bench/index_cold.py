"""Cold `rt index --rebuild` of this checkout against another rt (a base), with `ctags -R` as the peer, in one run.

    python3 bench/index_cold.py TREE --against BASE [--runs 3]

BASE is another rt checkout (`git archive main | tar -x -C /tmp/base`). TREE is copied twice under a temporary
folder, once per rt, without its `.rt/`; every round removes each copy's `.rt/` and builds it again, the order of
the two rts alternating from round to round, then runs `ctags -R --exclude=.rt` in the copy. After each round the
two copies' `.rt/index/` files (but `quick`, the copy's stat data) are compared byte for byte: a change that only makes the build cheaper must leave
them the same. Figures: CPU seconds (user + system of the process and its pool's children), wall in brackets;
median and range over the rounds; the load average before and after.
"""
from __future__ import annotations

import argparse
import filecmp
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def timed(argv: list[str], cwd: Path, pythonpath: str | None = None) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run, its children included."""
    env = dict(os.environ, PYTHONPATH=pythonpath) if pythonpath else dict(os.environ)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def differing(a: Path, b: Path) -> list[str]:
    """The files of two index folders that differ or are in one only; `quick` left out: it holds the stat data
    (inodes, times) of the copy it was built in."""
    names = sorted((set(os.listdir(a)) | set(os.listdir(b))) - {"quick"})
    return [n for n in names if not (a / n).is_file() or not (b / n).is_file()
            or not filecmp.cmp(a / n, b / n, shallow=False)]


def summary(runs: list[tuple[float, float]]) -> str:
    cpu = [r[0] for r in runs]
    return (f"{statistics.median(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f}) "
            f"[{statistics.median(r[1] for r in runs):.2f} wall]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--against", type=Path, required=True, help="the base rt's checkout")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    rts = {"base": str(a.against.resolve()), "this": str(HERE)}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="rt-index-cold-") as tmp:
        copies = {}
        for name in rts:
            copies[name] = Path(tmp) / name
            shutil.copytree(a.tree, copies[name], symlinks=True, ignore=shutil.ignore_patterns(".rt"))
        times: dict[str, list] = {"base": [], "this": [], "ctags": []}
        same = True
        for r in range(a.runs):
            for name in (("base", "this") if r % 2 == 0 else ("this", "base")):
                shutil.rmtree(copies[name] / ".rt", ignore_errors=True)
                times[name].append(timed([sys.executable, "-S", "-m", "rt", "index", "--rebuild"], copies[name],
                                         rts[name]))
            times["ctags"].append(timed(["ctags", "-R", "--exclude=.rt", "-f", str(Path(tmp) / "tags"), "."],
                                        copies["this"]))
            diff = differing(copies["base"] / ".rt" / "index", copies["this"] / ".rt" / "index")
            same = same and not diff
            print(f"round {r + 1}: " + "  ".join(f"{k} {v[-1][0]:.2f}" for k, v in times.items())
                  + ("  index identical" if not diff else f"  index DIFFERS: {' '.join(diff[:5])}"), flush=True)
    med = {k: statistics.median(x[0] for x in v) for k, v in times.items()}
    print(f"{a.tree.name}: base {summary(times['base'])}, this {summary(times['this'])}, "
          f"ctags {summary(times['ctags'])}; this/base {med['this'] / med['base']:.2f}, "
          f"base/ctags {med['base'] / med['ctags']:.1f}x, this/ctags {med['this'] / med['ctags']:.1f}x; "
          f"load {load:.1f} -> {os.getloadavg()[0]:.1f}; index {'identical' if same else 'DIFFERS'}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
