"""Wall time of `rt hook pre-tool-use` as Claude Code runs it: a fresh process per call, JSON on stdin.

Measures the edit gate (allow and deny) and the Bash guard (allow and deny), each RUNS times, with
Python start-up included, in two forms of the hook command:
  default: `python3 -m rt hook pre-tool-use`      (what `rt install` writes)
  -S:      `python3 -S -m rt hook pre-tool-use`   (skips site-packages start-up; rt found via PYTHONPATH)
and, for scale, an empty `python3 -c pass` in both forms. Then the heaviest imports of one gate call
(`-X importtime`), to see what start-up costs. For scale, also the PostToolUse Bash hook, which compares
the whole tree with the task's snapshot (stat cache) after every shell command.

rt's modules are byte-compiled first (`compileall`), as `pip install` does: with PYTHONDONTWRITEBYTECODE
set, a checkout would otherwise be compiled from source on every call.

    python3 bench/hook_latency.py [--runs 200] [--files 2000]
    python3 bench/hook_latency.py --against /path/to/other/checkout   # before/after, paired call by call

With `--against`, only the gate cases in the `-S` form run, alternating call by call between the other
checkout's rt and this one's, so both meet the same load. With `--server`, the gate cases run in the `-S`
form and through the hook client answered by the hook server (`rt install`'s form where bash is), call by
call; the client's CPU counts the server thread's in that call (`bench/post_edit_hook.py`'s `Server`), and
the two answers must be equal.
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

ROOT = Path(__file__).resolve().parent.parent


def rt(repo: Path, *args: str) -> str:
    out = subprocess.run([sys.executable, "-m", "rt", *args], cwd=repo, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    return out.stdout


def payload(repo: Path, tool: str, tool_input: dict) -> str:
    return json.dumps({"session_id": "bench", "transcript_path": "/tmp/x.jsonl", "cwd": str(repo),
                       "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
                       "tool_use_id": "toolu_bench"})


def timed(argv: list[str], repo: Path, stdin: str, runs: int, expect: str | None = None,
          check: bool = True, rt_root: Path = ROOT) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system, the child and its git) milliseconds of each run."""
    env = {**os.environ, "PYTHONPATH": str(rt_root)}
    wall, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=repo, input=stdin, capture_output=True, text=True, env=env, check=False)
        wall.append((time.perf_counter() - start) * 1000)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
        if not check:
            continue
        got = json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] if proc.stdout.strip() else None
        if proc.returncode != 0 or got != expect:
            raise SystemExit(f"unexpected answer from {argv}: exit {proc.returncode}, {proc.stdout!r} {proc.stderr!r}")
    return wall, cpu


def pct(times: list[float], q: float) -> float:
    return statistics.quantiles(times, n=100, method="inclusive")[int(q) - 1]


def row(wall: list[float], cpu: list[float]) -> str:
    return " | ".join(f"{pct(t, q):.1f}" for t in (wall, cpu) for q in (50, 95))


def paired(other: Path, repo: Path, cases: list, argv: list[str], runs: int) -> None:
    """Each gate case, alternating call by call between `other`'s rt and this checkout's."""
    compileall.compile_dir(str(other / "rt"), quiet=1)
    sides = {f"other ({other})": other, "this checkout": ROOT}
    print(f"{runs} calls per checkout per case, alternating; load average before: {os.getloadavg()[0]:.2f}\n")
    print("| case | rt | wall p50 ms | wall p95 ms | CPU p50 ms | CPU p95 ms |")
    print("|---|---|---|---|---|---|")
    for name, stdin, expect in cases:
        got: dict[str, tuple[list[float], list[float]]] = {side: ([], []) for side in sides}
        for i in range(runs):
            for side in (list(sides) if i % 2 else list(sides)[::-1]):
                wall, cpu = timed(argv, repo, stdin, 1, expect, rt_root=sides[side])
                got[side][0].extend(wall)
                got[side][1].extend(cpu)
        for side, (wall, cpu) in got.items():
            print(f"| {name} | {side} | {row(wall, cpu)} |")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


def against_server(repo: Path, cases: list, argv: list[str], runs: int) -> None:
    """Each gate case as a fresh `-S` hook and through the hook client and server, alternating call by call."""
    from post_edit_hook import Server, timed as once
    server = Server(repo, cases[0][1], event="pre-tool-use")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    print(f"{runs} calls per form per case, alternating; load average before: {os.getloadavg()[0]:.2f}\n")
    print("| case | form | wall p50 ms | wall p95 ms | CPU p50 ms | CPU p95 ms |")
    print("|---|---|---|---|---|---|")
    for name, stdin, _ in cases:
        fresh, served = [], []
        for i in range(runs):
            for form in ((0, 1) if i % 2 else (1, 0)):
                if form:
                    served.append(server.timed(stdin))
                else:
                    fresh.append(once(argv, repo, stdin, env))
            if fresh[-1][2] != served[-1][2]:
                raise SystemExit(f"the answers differ: {fresh[-1][2]!r} {served[-1][2]!r}")
        for form, got in (("-S, fresh process", fresh), ("hook client + server", served)):
            print(f"| {name} | {form} | {row([g[1] for g in got], [g[0] for g in got])} |")
    server.stop()
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--files", type=int, default=2000, help="size of the synthetic repository")
    ap.add_argument("--against", type=Path, help="another rt checkout to compare with, call by call")
    ap.add_argument("--server", action="store_true", help="the fresh hook against the hook client and server")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "bench"))
    from genrepo import generate
    compileall.compile_dir(str(ROOT / "rt"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        generate(repo, args.files)
        files = sorted(p.relative_to(repo).as_posix() for p in repo.rglob("*.py"))
        inside, outside = files[0], files[1]
        rt(repo, "start", "bench the gate", "--no-baseline")
        rt(repo, "plan", "--edit", inside)
        cases = [
            ("edit gate, allow", payload(repo, "Edit", {"file_path": str(repo / inside)}), None),
            ("edit gate, deny (out of scope)", payload(repo, "Edit", {"file_path": str(repo / outside)}), "deny"),
            ("Bash guard, allow (`git status && git diff`)", payload(repo, "Bash", {"command": "git status && git diff"}), None),
            ("Bash guard, deny (`bash -c \"git push --force\"`)",
             payload(repo, "Bash", {"command": 'bash -c "git push --force"'}), "deny"),
        ]
        forms = [("default", [sys.executable, "-m", "rt", "hook", "pre-tool-use"]),
                 ("-S", [sys.executable, "-S", "-m", "rt", "hook", "pre-tool-use"])]
        if args.against:
            paired(args.against, repo, cases, forms[1][1], args.runs)
            return
        if args.server:
            against_server(repo, cases, forms[1][1], args.runs)
            return
        print(f"{args.runs} runs each; repository of {args.files} files; Python {sys.version.split()[0]}; "
              f"load average before: {os.getloadavg()[0]:.2f}\n")
        print("| case | command form | wall p50 ms | wall p95 ms | CPU p50 ms | CPU p95 ms |")
        print("|---|---|---|---|---|---|")
        for form, flag in (("default", []), ("-S", ["-S"])):
            wall, cpu = timed([sys.executable, *flag, "-c", "pass"], repo, "", args.runs, check=False)
            print(f"| empty `python3 -c pass` (reference) | {form} | {row(wall, cpu)} |")
        for name, stdin, expect in cases:
            for form, argv in forms:
                wall, cpu = timed(argv, repo, stdin, args.runs, expect)
                print(f"| {name} | {form} | {row(wall, cpu)} |")
        post = json.dumps({"session_id": "bench", "transcript_path": "/tmp/x.jsonl", "cwd": str(repo),
                           "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
                           "tool_response": {"stdout": "", "stderr": ""}, "tool_use_id": "toolu_bench"})
        wall, cpu = timed([sys.executable, "-S", "-m", "rt", "hook", "post-tool-use"], repo, post,
                          max(args.runs // 10, 5), check=False)
        print(f"| PostToolUse Bash: tree vs snapshot, {len(wall)} runs (not a gate) | -S | {row(wall, cpu)} |")
        print(f"\nload average after: {os.getloadavg()[0]:.2f}\n\nheaviest imports of one edit-gate call "
              f"(`-S -X importtime`, cumulative microseconds):")
        argv = [sys.executable, "-S", "-X", "importtime", "-m", "rt", "hook", "pre-tool-use"]
        proc = subprocess.run(argv, cwd=repo, input=cases[0][1], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
        rows = []
        for line in proc.stderr.splitlines():
            if line.startswith("import time:") and "|" in line:
                _, cumulative, name = line[len("import time:"):].split("|")
                if cumulative.strip().isdigit():
                    rows.append((int(cumulative), name.rstrip()))
        for cumulative, name in sorted(rows, reverse=True)[:12]:
            print(f"  {cumulative:>7}  {name}")


if __name__ == "__main__":
    main()
