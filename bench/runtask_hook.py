"""CPU and wall time of the `/runtask` prompt hook as Claude Code runs it: a fresh `python3 -S -m rt hook
user-prompt-submit` with the JSON payload on stdin, in a `bench/genrepo.py` tree.

- cold: no `.rt/` (snapshot, index build, baseline, ranking, manifest, pack, injection);
- warm: the index kept from the run before, the task's records removed (what a second `/runtask` in the
  same repository costs).

Runs alternate cold and warm, and the checkouts' order from round to round; with --only, cold or warm runs
only, one after another. CPU is user + system time of the hook and its children (git, the checks).
A cold hook may leave the full index to build after it, in a process of its own (`partial.start_build`):
the run waits for that build to finish before the next one, says how long after the hook the index was
ready, and a row of its own gives what that build costs (`rt index` with `.rt/index/` removed), since its
CPU is no child's of the hook that the hook waited for. With `--against DIR` (another rt checkout, such as
the main branch's) each run times that checkout's hook too, in the same round; with `--against-tree DIR` (a
clone of the tree at the same commit) in a tree of its own, so two checkouts of different index versions each
keep their own warm index.
rt is byte-compiled first, as `pip install` does (this environment sets PYTHONDONTWRITEBYTECODE).
With `--server` (warm runs only) each round also times the hook as `rt install` registers it where bash is:
the hook client answered by the repository's hook server (`rt/claude/hookserver.py`), started before the
runs. Its CPU is the client's plus the server's in that run, its children (git) included (`/proc/PID/stat`,
clock ticks); its injection must be as long as the fresh hook's (`tests/test_hookserver.py` compares them whole).

    python3 bench/runtask_hook.py [--files 20000] [--runs 3] [--tree DIR] [--against DIR [--against-tree DIR]]
                                  [--task TEXT] [--only cold|warm] [--server]
"""
from __future__ import annotations

import argparse
import compileall
import fcntl
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TASK = "fix the invoice total in the cart report export"


def clear(tree: Path, cold: bool) -> None:
    store = tree / ".rt"
    if cold:
        shutil.rmtree(store, ignore_errors=True)
        return
    shutil.rmtree(store / "tasks", ignore_errors=True)
    (store / "state.json").unlink(missing_ok=True)


def index_ready(tree: Path, since: float, limit: float = 600.0) -> float:
    """Seconds from `since` until the index in `tree` is built and its lock free (a background build done)."""
    meta = tree / ".rt" / "index" / "meta.json"
    while not meta.is_file():
        if time.perf_counter() - since > limit:
            sys.exit("no index was built after the cold hook")
        time.sleep(0.05)
    fd = os.open(tree / ".rt" / "index" / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    finally:
        os.close(fd)
    return time.perf_counter() - since


def build_cost(tree: Path, root: Path) -> tuple[float, float, int]:
    """(CPU s, wall s, 0) of `rt index` with `.rt/index/` removed: what the background build does."""
    shutil.rmtree(tree / ".rt" / "index", ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-S", "-m", "rt", "index"], cwd=tree, capture_output=True, check=True,
                   env={**os.environ, "PYTHONPATH": str(root), **ENV.get(str(root), {})})
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall, 0


def once(tree: Path, cold: bool, root: Path = ROOT, task: str = TASK) -> tuple[float, float, int]:
    """(CPU s, wall s, characters injected) of one hook run of the rt in `root`; after a cold run, the wait
    for a background build too."""
    clear(tree, cold)
    payload = json.dumps({"session_id": "bench", "cwd": str(tree), "hook_event_name": "UserPromptSubmit",
                          "prompt": f"/runtask {task}"})
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-S", "-m", "rt", "hook", "user-prompt-submit"], input=payload, cwd=tree,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root), **ENV.get(str(root), {})},
                          check=True)
    end = time.perf_counter()
    wall = end - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    text = json.loads(proc.stdout)["hookSpecificOutput"]["additionalContext"]
    if text.startswith("rt could not run"):   # a failed hook is no figure
        sys.exit(f"the hook failed: {text}")
    if cold:
        READY.setdefault(str(root), []).append(index_ready(tree, end))
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime, wall, len(text)


def served(server, tree: Path, task: str) -> tuple[float, float, int, str]:
    """(CPU s, wall s, characters injected, the injection) of one warm hook through the client and server."""
    from post_edit_hook import timed
    clear(tree, False)
    payload = json.dumps({"session_id": "bench", "cwd": str(tree), "hook_event_name": "UserPromptSubmit",
                          "prompt": f"/runtask {task}"})
    before = server.ticks()
    cpu, wall, out = timed(server.argv, tree, payload, server.env)
    cpu += server.ticks() - before
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    return cpu / 1000, wall / 1000, len(text), text


def _built(tree: Path) -> int:
    """When the index's last full build was written (its meta file's mtime, ns)."""
    return (tree / ".rt" / "index" / "meta.json").stat().st_mtime_ns


ENV: dict[str, dict[str, str]] = {}
"""Per rt checkout, the environment its runs add (`--against-env`)."""

READY: dict[str, list[float]] = {}
"""Per rt checkout, the seconds from each cold hook's end until the full index was ready."""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--tree", type=Path, help="an existing bench/genrepo.py tree (else one is made)")
    ap.add_argument("--against", type=Path, help="another rt checkout to time in the same rounds")
    ap.add_argument("--against-tree", type=Path, help="a clone of --tree for the --against checkout to run in")
    ap.add_argument("--against-env", action="append", default=[], metavar="NAME=VALUE",
                    help="set for the --against checkout's runs (RT_CTAGS=0: the same rt without ctags)")
    ap.add_argument("--task", default=TASK, help="the task text (a real repository's commit subject, say)")
    ap.add_argument("--only", choices=("cold", "warm"),
                    help="only cold runs (no `rt index` row), or only warm ones, one after another (a second /runtask "
                         "in a repository whose index is current; the checkouts must build the same index version)")
    ap.add_argument("--server", action="store_true", help="warm runs through the hook client and server too")
    args = ap.parse_args()
    if args.server and (args.only != "warm" or args.against):
        sys.exit("--server goes with --only warm and without --against")
    roots = [ROOT] + ([args.against.resolve()] if args.against else [])
    if args.against_env:
        ENV[str(roots[-1])] = dict(kv.split("=", 1) for kv in args.against_env)
    for root in roots:
        compileall.compile_dir(root / "rt", quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        tree = args.tree or Path(tmp) / "repo"
        if not args.tree:
            subprocess.run([sys.executable, str(ROOT / "bench/genrepo.py"), str(tree), "--files", str(args.files)],
                           check=True, capture_output=True)
        files = len(subprocess.run(["git", "ls-files"], cwd=tree, capture_output=True, text=True).stdout.splitlines())
        got: dict[str, list[tuple[float, float, int]]] = {}
        loads = []
        tree_of = {root: tree for root in roots}
        if args.against_tree:
            tree_of[roots[-1]] = args.against_tree.resolve()
        if args.only == "warm":
            for root in roots:   # the index built, or brought up to date, before any figure
                once(tree_of[root], False, root, args.task)
        server = None
        if args.server:
            sys.path.insert(0, str(ROOT / "bench"))
            from post_edit_hook import Server
            clear(tree, False)
            server = Server(tree, json.dumps({"session_id": "bench", "cwd": str(tree), "prompt": "hello",
                                              "hook_event_name": "UserPromptSubmit"}), event="user-prompt-submit")
        for i in range(args.runs):
            if server:
                if i % 2:
                    through = served(server, tree, args.task)
                    fresh = once(tree, False, ROOT, args.task)
                else:
                    fresh = once(tree, False, ROOT, args.task)
                    through = served(server, tree, args.task)
                if through[2] != fresh[2]:
                    sys.exit("the server's injection differs from the fresh hook's")
                got.setdefault("warm", []).append(fresh)
                got.setdefault("warm, hook client + server", []).append(through[:3])
                loads.append(os.getloadavg()[0])
                continue
            for root in roots if i % 2 == 0 else roots[::-1]:
                name = "" if len(roots) == 1 else f" ({root})"
                if args.only != "warm":
                    got.setdefault(f"cold{name}", []).append(once(tree_of[root], True, root, args.task))
                if args.only != "cold":
                    built = _built(tree_of[root])
                    got.setdefault(f"warm{name}", []).append(once(tree_of[root], False, root, args.task))
                    if args.only and _built(tree_of[root]) != built:
                        sys.exit(f"{root} built the index again: not a warm run (another index version?)")
            if not args.only:
                got.setdefault(f"`rt index`, cold{'' if len(roots) == 1 else f' ({ROOT})'}", []).append(build_cost(tree, ROOT))
            loads.append(os.getloadavg()[0])
        if server:
            server.stop()
    which = f" ({args.only} only)" if args.only else ""
    print(f"tree: {files:,} files; {args.runs} runs each, alternating{which}; load average {min(loads):.1f}-{max(loads):.1f}")
    print("| run | CPU s median (min-max) | wall s median | characters injected | index ready after the cold hook, s |")
    print("|---|---|---|---|---|")
    for name, rows in got.items():
        cpu = [r[0] for r in rows]
        root = name.rpartition("(")[2].rstrip(")") if "(" in name else str(ROOT)
        ready = f"{statistics.median(READY[root]):.2f}" if name.startswith("cold") else ""
        print(f"| {name} | {statistics.median(cpu):.2f} ({min(cpu):.2f}-{max(cpu):.2f}) | "
              f"{statistics.median(r[1] for r in rows):.2f} | {rows[-1][2]:,} | {ready} |")


if __name__ == "__main__":
    main()
