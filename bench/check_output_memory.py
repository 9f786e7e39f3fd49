"""Peak memory, CPU and wall of `rt start` when a check prints a lot: does a long output cost bounded memory?

Builds a small git repository in a temporary folder whose one check (`rt.toml`, generic parser) prints
MB megabytes of `file:line:col: code message` lines and exits 1, then runs `rt start` (which takes the
baseline) as a real process under a wrapper that reports the peak resident memory of that process
(RUSAGE_CHILDREN of the wrapper: the generator it starts is far smaller). `--rt DIR` runs another
checkout of rt (for instance the main branch's, to compare with the code before a change); `--limit S`
gives up on a run after S seconds of wall time and says so.

    python3 bench/check_output_memory.py [--mb 2 20 200] [--rt DIR] [--limit 600]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

GEN = """import sys
n = int(sys.argv[1]) * 1_000_000
w = i = 0
while w < n:
    line = f"src/m{i % 997}.py:{i % 5000 + 1}:4: E{i % 500} something is wrong here, number {i}\\n"
    sys.stdout.write(line)
    w += len(line)
    i += 1
sys.exit(1)
"""

WRAPPER = """import resource, subprocess, sys, time
t = time.monotonic()
try:
    subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=float(sys.argv[1]))
    done = True
except subprocess.TimeoutExpired:
    done = False
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_maxrss, r.ru_utime + r.ru_stime, time.monotonic() - t, done)
"""


def run_once(rt_dir: Path, mb: int, limit: float) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        (repo / "gen.py").write_text(GEN)
        (repo / "rt.toml").write_text(f'[checks.loud]\nkind = "lint"\nparser = "generic"\n'
                                      f'command = ["{sys.executable}", "gen.py", "{mb}"]\n')
        env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
                   GIT_COMMITTER_EMAIL="b@b")
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "bench"]):
            subprocess.run(["git", *args], cwd=repo, check=True, env=env)
        out = subprocess.run([sys.executable, "-c", WRAPPER, str(limit), sys.executable, "-m", "rt", "start", "bench"],
                             cwd=repo, capture_output=True, text=True, env=dict(env, PYTHONPATH=str(rt_dir)))
        kib, cpu, wall, done = out.stdout.split()
        return {"mb": mb, "peak_mib": int(kib) / 1024, "cpu_s": float(cpu), "wall_s": float(wall),
                "finished": done == "True"}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mb", type=int, nargs="+", default=[2, 20, 200])
    p.add_argument("--rt", type=Path, default=ROOT, help="the rt checkout to run (default: this one)")
    p.add_argument("--limit", type=float, default=600, help="seconds of wall time before a run is given up")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    rows = [run_once(args.rt.resolve(), mb, args.limit) for mb in args.mb]
    if args.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"rt from {args.rt.resolve()}, load {os.getloadavg()[0]:.1f}")
    for r in rows:
        state = "" if r["finished"] else f"  GAVE UP after {args.limit:.0f} s"
        print(f"  {r['mb']:>4} MB of output: peak {r['peak_mib']:6.0f} MiB, cpu {r['cpu_s']:6.1f} s, "
              f"wall {r['wall_s']:6.1f} s{state}")


if __name__ == "__main__":
    main()
