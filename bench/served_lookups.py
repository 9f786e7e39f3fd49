"""Warm look-ups from the command line answered by the repository's hook server, against the same look-ups
run in a fresh process and against rg, paired run by run in one tree (rg always given `.` and `.rt/` left out).

The server is started first through the hook client (`rt/claude/hook.sh`, as a Claude Code session's first hook
starts it). Each run times `python3 -S -m rt ARGS` with the server up and with RT_HOOK_SERVER=0 (which makes
`rt/__main__.py` run the command itself), then the rg peer, the order turning each round; the two rt outputs
must be equal. CPU is user + system of the process and its children, plus for the served run the server's CPU
in that run with its children (git's freshness check among them) from `/proc/PID/stat` (clock ticks: the
figures are means over the runs, not medians).

    python3 bench/served_lookups.py TREE [--runs 15] [--name NAME ...] [--text TEXT ...] [--word WORD ...] [--delta]
        [--venv DIR] [--floor]

With --floor, the same interpreter doing nothing (`python3 -c pass` as the console script starts it, `-S` for
`python3 -S -m rt`) is timed too, in the same alternation: the least any command line in Python costs, beside the
peer it is held to.

With --venv, rt is the `rt` console script of that virtual environment (`python -m venv DIR && DIR/bin/pip
install -U pip && DIR/bin/pip install .`), run as a user runs it: with `site`, without `-m`'s runpy (8 ms
of a look-up's start here), and its server is that environment's (its interpreter, its rt).

(--delta needs a task started in TREE: `rt start "TASK" --no-baseline`.)
"""
from __future__ import annotations

import argparse
import compileall
import contextlib
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class ServerCPU:
    """The tree's hook server of this interpreter and rt (`python`, `rt_path`), started for the bench when none
    is up; one of another install is stopped first (it would step aside for every look-up timed)."""

    def __init__(self, tree: Path, python: str, rt_path: str):
        state = tree / ".rt" / "hookserver"
        if state.exists():
            proc = Path(f"/proc/{state.read_text().split()[2]}")
            try:
                ours = proc.joinpath("cmdline").read_bytes().split(b"\0")[0].decode() == python and \
                    f"PYTHONPATH={rt_path}".encode() in proc.joinpath("environ").read_bytes().split(b"\0")
            except OSError:   # a server that is gone
                ours = False
            if not ours:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(int(proc.name), signal.SIGTERM)
                for _ in range(100):
                    if not proc.exists():
                        break
                    time.sleep(0.02)
                state.unlink(missing_ok=True)   # a server ending removes it itself
        if not state.exists():
            env = {k: v for k, v in os.environ.items() if k != "RT_HOOK_SERVER"}
            env.update(RT_PY=python, PYTHONPATH=rt_path, CLAUDE_PROJECT_DIR=str(tree))
            stop = json.dumps({"session_id": "bench", "cwd": str(tree), "hook_event_name": "Stop", "stop_hook_active": True})
            subprocess.run(["bash", str(Path(rt_path) / "rt/claude/hook.sh"), "stop"], input=stop, cwd=tree, env=env,
                           capture_output=True, text=True, check=True)
            for _ in range(400):
                if state.exists():
                    break
                time.sleep(0.05)
        self.pid = int(state.read_text().split()[2])

    def ms(self) -> float:
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15]) * 1000 / os.sysconf("SC_CLK_TCK")


def run(argv: list[str], tree: Path, env: dict, server: ServerCPU | None = None) -> tuple[float, float, bytes, float]:
    """(CPU ms, wall ms, stdout, the server's share of the CPU ms) of one run."""
    before, start, held = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter(), server.ms() if server else 0
    out = subprocess.run(argv, cwd=tree, env=env, capture_output=True, check=False).stdout
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    spent = server.ms() - held if server else 0.0
    return cpu + spent, wall, out, spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree", type=Path)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--name", action="append", default=[], help="for rt refs and rt symbol, against rg -w NAME")
    ap.add_argument("--text", action="append", default=[], help="for rt find, against rg -F -i TEXT")
    ap.add_argument("--word", action="append", default=[], help="for rt pack, against rg -w -i -l WORD")
    ap.add_argument("--delta", action="store_true", help="rt delta (of the task started in TREE) against git status --porcelain")
    ap.add_argument("--venv", type=Path, help="time this virtual environment's `rt` console script and server")
    ap.add_argument("--floor", action="store_true", help="time the interpreter doing nothing too")
    args = ap.parse_args()
    tree = args.tree.resolve()
    env = {k: v for k, v in os.environ.items() if k not in ("RT_HOOK_SERVER", "PYTHONPATH")}
    if args.venv:
        python = str(args.venv.absolute() / "bin" / "python3")
        rt_path = subprocess.run([python, "-P", "-c", "import os, rt; print(os.path.dirname(os.path.dirname(rt.__file__)))"],
                                 capture_output=True, text=True, check=True, env=env).stdout.strip()
        rt = [str(args.venv.absolute() / "bin" / "rt")]
    else:
        python, rt_path, rt = sys.executable, str(ROOT), [sys.executable, "-S", "-m", "rt"]
        compileall.compile_dir(ROOT / "rt", quiet=1)
        env["PYTHONPATH"] = str(ROOT)
    idle = [python, "-c", "pass"] if args.venv else [python, "-S", "-c", "pass"]
    server = ServerCPU(tree, python, rt_path)
    fresh = {**env, "RT_HOOK_SERVER": "0"}
    cases = [(["refs", n], ["rg", "-w", n, ".", "-g", "!.rt"]) for n in args.name] \
        + [(["symbol", n], ["rg", "-w", n, ".", "-g", "!.rt"]) for n in args.name] \
        + [(["find", t], ["rg", "-F", "-i", t, ".", "-g", "!.rt"]) for t in args.text] \
        + [(["pack", w], ["rg", "-w", "-i", "-l", w, ".", "-g", "!.rt"]) for w in args.word] \
        + [(["delta"], ["git", "status", "--porcelain"])] * args.delta
    print(f"tree: {tree.name}; rt: `{' '.join(rt)}`; {args.runs} runs per form, alternating; load average "
          f"{os.getloadavg()[0]:.1f}")
    floor = " | interpreter alone CPU ms (wall) | alone / rg CPU" * args.floor
    print("| look-up | served CPU ms (wall) | of which the server's | fresh process CPU ms (wall) | rg CPU ms (wall) "
          f"| served / rg CPU | fresh / rg CPU{floor} |")
    print("|---|---|---|---|---|---|---|" + "---|---|" * args.floor)
    forms = ("served", "fresh", "rg") + ("alone",) * args.floor
    for look, peer in cases:
        got: dict[str, list] = {form: [] for form in forms}
        for i in range(args.runs):
            for form in (forms if i % 2 else forms[::-1]):
                if form == "rg":
                    got[form].append(run(peer, tree, env))
                elif form == "alone":
                    got[form].append(run(idle, tree, env))
                else:
                    got[form].append(run(rt + look, tree, env if form == "served" else fresh,
                                         server if form == "served" else None))
            if got["served"][-1][2] != got["fresh"][-1][2]:
                sys.exit(f"rt {' '.join(look)}: the served output differs from the fresh process's")
        cpu = {f: statistics.mean(r[0] for r in rows) for f, rows in got.items()}
        wall = {f: statistics.mean(r[1] for r in rows) for f, rows in got.items()}
        own = statistics.mean(r[3] for r in got["served"])
        print(f"| `rt {' '.join(look)}` | {cpu['served']:.1f} ({wall['served']:.1f}) | {own:.1f} | {cpu['fresh']:.1f} ({wall['fresh']:.1f}) "
              f"| {cpu['rg']:.1f} ({wall['rg']:.1f}) | {cpu['served'] / cpu['rg']:.2f} | {cpu['fresh'] / cpu['rg']:.2f} |"
              + (f" {cpu['alone']:.1f} ({wall['alone']:.1f}) | {cpu['alone'] / cpu['rg']:.2f} |" if args.floor else ""))


if __name__ == "__main__":
    main()
