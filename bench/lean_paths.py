"""Start-up bound paths where the user waits, for one or more rt checkouts paired in one run: the
PostToolUse hook after an Edit (ruff the only check), the PreToolUse hook (an Edit in scope, a Bash
`git status`) against Python importing what every hook needs, an unchanged `rt delta` and re-snapshot
against `git status --porcelain`, warm `rt symbol` / `rt refs` against `rg -w NAME .`, and warm `rt find TEXT`
against `rg -F -i TEXT .`.

    python3 bench/lean_paths.py --rt before=/path/to/old/checkout --rt after=. \\
        [--rt-flags before=-S] [--tree gen20k=PATH] [--tree outline=PATH:useStores,DocumentHelper] \\
        [--find "outline=Share link copied"] [--hook-files 2000] [--runs 15]

Every rt runs with this interpreter as `python -S [-P] -m rt` (the hooks' form; `--rt-flags LABEL=FLAGS`
sets a checkout's own, default `-S -P`), its bytecode compiled first. Each round runs every command once,
in turn (the checkouts and the peer interleaved), so machine load hits all alike; figures are medians of
CPU (user + system of the process and its children) and wall milliseconds, ratios are to the peer's
median. Peers leave `.rt/` out. The hook runs in a `bench/genrepo.py` tree of `--hook-files` files made
in a temporary folder, on a file edited anew before each run; rt's own share is the hook's time less
ruff's on the same file in the same round. The task's scope holds that file, so the PreToolUse hook lets
its Edit through (and `git status`); its peer is `python -S -P -c "import json, pathlib, re"`, the floor
of any hook written in Python with the standard library. A tree given with `--tree` is copied once for
each checkout (`cp -a` into a temporary folder, `.rt/` left out, git's index refreshed), so what one
checkout records never decides another's path; each copy gets `rt start --no-baseline` and `rt index`
once (not timed) from its checkout, and the peers run in the first checkout's copy.
"""
from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from post_edit_hook import edit_tree, real_ruff

ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH")}


def timed(argv: list[str], cwd: Path, env: dict | None = None, stdin: str | None = None) -> tuple[float, float]:
    """(CPU ms, wall ms) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True, env=env or ENV, check=False)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000, wall


class Rt:
    """One checkout of rt, run as the hooks run it."""

    def __init__(self, label: str, root: Path, flags: list[str]):
        self.label, self.root, self.flags = label, root, flags
        self.env = ENV | {"PYTHONPATH": str(root)}

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, *self.flags, "-m", "rt", *args]

    def run(self, cwd: Path, *args: str, stdin: str | None = None) -> tuple[float, float]:
        return timed(self.argv(*args), cwd, self.env, stdin)

    def quiet(self, cwd: Path, *args: str) -> None:
        subprocess.run(self.argv(*args), cwd=cwd, env=self.env, check=True, capture_output=True)


def med(runs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(c for c, _ in runs), statistics.median(w for _, w in runs)


def table(title: str, rows: dict[str, list[tuple[float, float]]], peer: str) -> None:
    base = med(rows[peer])
    print(f"\n{title}\n\n| command | CPU ms | wall ms | / {peer} CPU | / {peer} wall |\n|---|---|---|---|---|")
    for name, runs in rows.items():
        cpu, wall = med(runs)
        print(f"| {name} | {cpu:.1f} | {wall:.1f} | {cpu / base[0]:.2f} | {wall / base[1]:.2f} |")


def hook_bench(rts: list[Rt], files: int, runs: int) -> None:
    ruff = real_ruff()
    if not ruff:
        print("\nPostToolUse hook: skipped, ruff is not installed")
        return
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "repo"
        per_file, rel, payload = edit_tree(tree, files, ruff, lambda t: rts[0].quiet(t, "start", "edit one module"))
        rts[0].quiet(tree, "plan", "--edit", rel)
        pre = json.loads(payload) | {"hook_event_name": "PreToolUse"}
        pre.pop("tool_response")
        gate = {"Edit in scope": json.dumps(pre),
                "Bash `git status`": json.dumps(pre | {"tool_name": "Bash", "tool_input": {"command": "git status"}})}
        path = tree / rel
        original = path.read_text()
        got: dict[str, list[tuple[float, float]]] = {"`ruff check FILE`": []}
        got |= {f"hook, rt {rt.label}": [] for rt in rts}
        floor = '`python -S -P -c "import json, pathlib, re"`'
        pre_got: dict[str, list[tuple[float, float]]] = {floor: []}
        pre_got |= {f"{what}, rt {rt.label}": [] for what in gate for rt in rts}
        for i in range(runs):
            for rt in rts:
                path.write_text(original + f"\nEDITED_{i} = {i}\n")
                got[f"hook, rt {rt.label}"].append(rt.run(tree, "hook", "post-tool-use", stdin=payload))
            got["`ruff check FILE`"].append(timed(per_file + [rel], tree))
            pre_got[floor].append(timed([sys.executable, "-S", "-P", "-c", "import json, pathlib, re"], tree))
            for what, data in gate.items():
                for rt in rts:
                    pre_got[f"{what}, rt {rt.label}"].append(rt.run(tree, "hook", "pre-tool-use", stdin=data))
    table(f"PostToolUse hook after an Edit, ruff the only check ({files:,}-file generated tree, {runs} rounds)",
          got, "`ruff check FILE`")
    ruff_runs = got["`ruff check FILE`"]
    print("\n| rt | its own share, CPU ms (hook - ruff, per round, median) | wall ms |\n|---|---|---|")
    for rt in rts:
        pairs = list(zip(got[f"hook, rt {rt.label}"], ruff_runs))
        print(f"| {rt.label} | {statistics.median(h[0] - r[0] for h, r in pairs):.1f} | "
              f"{statistics.median(h[1] - r[1] for h, r in pairs):.1f} |")
    table(f"PreToolUse hook, the same tree and task ({runs} rounds)", pre_got, floor)


def own_copies(rts: list[Rt], tree: Path, work: Path) -> dict[str, Path]:
    """A copy of the tree for each checkout (`cp -a`, `.rt/` left out, git's index refreshed), so one
    checkout's records (a task started by one, a record only another writes) never decide the other's path."""
    copies = {}
    for rt in rts:
        copy = work / rt.label
        subprocess.run(["cp", "-a", str(tree), str(copy)], check=True)
        subprocess.run(["rm", "-rf", str(copy / ".rt")], check=True)
        subprocess.run(["git", "status", "--porcelain"], cwd=copy, capture_output=True, check=True)
        copies[rt.label] = copy
    return copies


def tree_bench(rts: list[Rt], label: str, tree: Path, names: list[str], texts: list[str], runs: int) -> None:
    files = subprocess.run(["git", "ls-files"], cwd=tree, capture_output=True, text=True,
                           check=True).stdout.count("\n")
    with tempfile.TemporaryDirectory(prefix="lean-") as work:
        _tree_bench(rts, label, files, own_copies(rts, tree, Path(work)), names, texts, runs)


def _tree_bench(rts: list[Rt], label: str, files: int, copies: dict[str, Path], names: list[str], texts: list[str],
                runs: int) -> None:
    tree = copies[rts[0].label]   # the peers run here; every copy holds the same files
    for rt in rts:
        rt.quiet(copies[rt.label], "start", "bench", "--force", "--no-baseline")
        rt.quiet(copies[rt.label], "index")
    time.sleep(1.1)   # past the racy-timestamp window: an unchanged tree reads nothing
    for rt in rts:    # each checkout's first look-up and delta keep their quick-check state
        rt.quiet(copies[rt.label], "delta")
        for name in names:
            rt.quiet(copies[rt.label], "symbol", name)
        for text in texts:
            rt.quiet(copies[rt.label], "find", text)
    got: dict[str, list[tuple[float, float]]] = {"`git status --porcelain`": []}
    got |= {f"`rt delta`, rt {rt.label}": [] for rt in rts}
    got |= {f"`rt start --force` (re-snapshot), rt {rt.label}": [] for rt in rts}
    looks: dict[str, dict[str, list[tuple[float, float]]]] = {
        name: {f"`rg -w {name} .`": []} | {f"`rt {cmd} {name}`, rt {rt.label}": [] for cmd in ("symbol", "refs")
                                          for rt in rts} for name in names}
    finds = {text: {f"`rg -F -i {text!r} .`": []} | {f"`rt find {text!r}`, rt {rt.label}": [] for rt in rts}
             for text in texts}
    for _ in range(runs):
        got["`git status --porcelain`"].append(timed(["git", "status", "--porcelain"], tree))
        for rt in rts:
            got[f"`rt delta`, rt {rt.label}"].append(rt.run(copies[rt.label], "delta"))
            got[f"`rt start --force` (re-snapshot), rt {rt.label}"].append(
                rt.run(copies[rt.label], "start", "bench", "--force", "--no-baseline"))
        for name in names:
            looks[name][f"`rg -w {name} .`"].append(timed(["rg", "-w", name, ".", "-g", "!.rt"], tree))
            for rt in rts:
                for cmd in ("symbol", "refs"):
                    looks[name][f"`rt {cmd} {name}`, rt {rt.label}"].append(rt.run(copies[rt.label], cmd, name))
        for text in texts:
            finds[text][f"`rg -F -i {text!r} .`"].append(timed(["rg", "-F", "-i", text, ".", "-g", "!.rt"], tree))
            for rt in rts:
                finds[text][f"`rt find {text!r}`, rt {rt.label}"].append(rt.run(copies[rt.label], "find", text))
    table(f"Unchanged tree, {label} ({files:,} files, {runs} rounds)", got, "`git status --porcelain`")
    for name in names:
        table(f"Warm look-up of {name}, {label}", looks[name], f"`rg -w {name} .`")
    for text in texts:
        table(f"Warm find of {text!r}, {label}", finds[text], f"`rg -F -i {text!r} .`")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rt", action="append", required=True, metavar="LABEL=CHECKOUT")
    ap.add_argument("--rt-flags", action="append", default=[], metavar="LABEL=FLAGS")
    ap.add_argument("--tree", action="append", default=[], metavar="LABEL=PATH[:NAME,NAME]")
    ap.add_argument("--find", action="append", default=[], metavar="LABEL=TEXT", help="an `rt find` in that tree")
    ap.add_argument("--hook-files", type=int, default=2000, help="0: no hook figures")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    flags = dict(f.split("=", 1) for f in args.rt_flags)
    rts = []
    for spec in args.rt:
        label, root = spec.split("=", 1)
        root = Path(root).resolve()
        compileall.compile_dir(root / "rt", quiet=1)
        rts.append(Rt(label, root, flags.get(label, "-S -P").split()))
    print(f"python {sys.version.split()[0]} ({sys.executable}); " + "; ".join(
        f"rt {rt.label}: {rt.root} as `python {' '.join(rt.flags)} -m rt`" for rt in rts))
    floor = {"`python -S -c pass`": [], "`python -S -P -c pass`": []}
    for _ in range(args.runs):
        floor["`python -S -c pass`"].append(timed([sys.executable, "-S", "-c", "pass"], HERE))
        floor["`python -S -P -c pass`"].append(timed([sys.executable, "-S", "-P", "-c", "pass"], HERE))
    table("Interpreter start-up floor", floor, "`python -S -c pass`")
    if args.hook_files:
        hook_bench(rts, args.hook_files, args.runs)
    for spec in args.tree:
        label, _, rest = spec.partition("=")
        path, _, names = rest.partition(":")
        texts = [text for tree, _, text in (f.partition("=") for f in args.find) if tree == label]
        tree_bench(rts, label, Path(path).resolve(), [n for n in names.split(",") if n], texts, args.runs)
    print(f"\nload average at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
