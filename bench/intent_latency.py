"""What intent mode adds to the hooks' cost: the same hook calls in two copies of one repository, intent
mode off in one and on in the other, interleaved call by call (off, on, off, on ...) so machine load
hits both alike. Each call is a fresh `python3 -S -m rt hook ...` process with its JSON on stdin, as
Claude Code runs it, rt byte-compiled first. With `--base DIR` the "off" copy runs the rt of another
checkout (say main, before intent mode existed): then the ratio is the whole cost of the feature.

    python3 bench/intent_latency.py [--runs 100] [--files 2000] [--base DIR]
"""
from __future__ import annotations

import argparse
import compileall
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


def rt(repo: Path, *args: str, stdin: str | None = None) -> str:
    out = subprocess.run([sys.executable, "-m", "rt", *args], cwd=repo, capture_output=True, text=True,
                         input=stdin, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    return out.stdout


def payload(repo: Path, event: str, session: str, **fields) -> str:
    return json.dumps({"session_id": session, "prompt_id": "p1", "transcript_path": "/tmp/x.jsonl",
                       "cwd": str(repo), "hook_event_name": event, **fields})


def once(arg: str, repo: Path, stdin: str, root: Path) -> tuple[float, float, str]:
    """Wall and CPU (user + system) milliseconds of one hook process of the rt in `root`, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-S", "-m", "rt", "hook", arg], cwd=repo, input=stdin,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(root)}, check=False)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"rt hook {arg} failed: {proc.stderr}")
    return wall, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--files", type=int, default=2000, help="size of the synthetic repository")
    ap.add_argument("--base", type=Path, default=ROOT, help="the rt checkout the off copy runs (default: this one)")
    args = ap.parse_args()
    base = args.base.resolve()
    compileall.compile_dir(str(base / "rt"), quiet=1)
    sys.path.insert(0, str(ROOT / "bench"))
    from genrepo import generate
    compileall.compile_dir(str(ROOT / "rt"), quiet=1)
    with tempfile.TemporaryDirectory() as tmp:
        off = Path(tmp) / "off"
        generate(off, args.files)
        inside = sorted(p.relative_to(off).as_posix() for p in off.rglob("*.py"))[0]
        rt(off, "start", "bench the gate", "--no-baseline")
        rt(off, "plan", "--edit", inside)
        on = Path(tmp) / "on"
        shutil.copytree(off, on, symlinks=True)
        rt(on, "intent", "on")
        rt(on, "hook", "user-prompt-submit", stdin=payload(on, "UserPromptSubmit", "go", prompt="/go bench it"))
        rt(on, "hook", "user-prompt-submit", stdin=payload(on, "UserPromptSubmit", "talk", prompt="just asking"))
        cases = [  # (name, hook, session, fields, what the "on" copy must answer)
            ("PreToolUse Edit in scope (/go turn when on)", "pre-tool-use", "go",
             {"tool_name": "Edit", "tool_input": {"file_path": inside}}, None),
            ("PreToolUse Edit in scope (conversation turn when on)", "pre-tool-use", "talk",
             {"tool_name": "Edit", "tool_input": {"file_path": inside}}, "deny"),
            ("PreToolUse Bash `git status`", "pre-tool-use", "go",
             {"tool_name": "Bash", "tool_input": {"command": "git status"}}, None),
            ("PreToolUse Bash `git commit -m x` (denied: no /commit)", "pre-tool-use", "go",
             {"tool_name": "Bash", "tool_input": {"command": "git commit -m x"}}, "deny"),
            ("UserPromptSubmit, a plain prompt", "user-prompt-submit", "talk", {"prompt": "just asking"}, ""),
        ]
        print(f"off: rt from {'this checkout' if base == ROOT else base}; on: this checkout")
        print(f"{args.runs} paired runs per case; repository of {args.files} files; Python "
              f"{sys.version.split()[0]}; load average before: {os.getloadavg()[0]:.2f}\n")
        print("| case | CPU p50 ms off | CPU p50 ms on | CPU p95 off | CPU p95 on | wall p50 off | wall p50 on "
              "| median paired CPU on/off |")
        print("|---|---|---|---|---|---|---|---|")
        for name, arg, session, fields, want in cases:
            event = "UserPromptSubmit" if arg == "user-prompt-submit" else "PreToolUse"
            res = {"off": ([], []), "on": ([], [])}
            for _ in range(args.runs):
                for label, repo, root in (("off", off, base), ("on", on, ROOT)):
                    if arg == "pre-tool-use" and fields["tool_name"] == "Edit":
                        fields = dict(fields, tool_input={"file_path": str(repo / inside)})
                    wall, cpu, out = once(arg, repo, payload(repo, event, session, **fields), root)
                    if label == "on" and want is not None and want != "":
                        got = json.loads(out)["hookSpecificOutput"]["permissionDecision"]
                        if got != want:
                            raise SystemExit(f"{name}: the on copy answered {got}, wanted {want}")
                    res[label][0].append(wall)
                    res[label][1].append(cpu)
            q = {k: statistics.quantiles(v[1], n=100, method="inclusive") for k, v in res.items()}
            ratio = statistics.median(b / a for a, b in zip(res["off"][1], res["on"][1]) if a > 0)
            print(f"| {name} | {q['off'][49]:.1f} | {q['on'][49]:.1f} | {q['off'][94]:.1f} | {q['on'][94]:.1f} | "
                  f"{statistics.median(res['off'][0]):.1f} | {statistics.median(res['on'][0]):.1f} | {ratio:.2f} |")
        print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
