"""rt's own share of the PostToolUse hook after an Edit, with ruff as the project's only check: the hook
(`python3 -S -m rt hook post-tool-use`, a fresh process with the JSON payload on stdin, as Claude Code
runs it) against `ruff check FILE` alone, paired run by run on the same edited file.

Each run edits one Python file (a new line at its end), then runs the hook and ruff's per-file command in
turn; rt's own share is the hook's time less ruff's in the same run (median of those differences), CPU
(user + system of the process and its children) and wall. The tree is a `bench/genrepo.py` tree with an
`rt.toml` that names ruff as the only check; the task is started and its baseline taken first (not timed).

With `--against DIR` (another rt checkout, such as main's) each run also times that checkout's hook on the
same edit, the two alternating which goes first, and the table gains its rows.

    python3 bench/post_edit_hook.py [--files 2000] [--runs 30] [--against DIR]
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
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def timed(argv: list[str], cwd: Path, stdin: str | None = None, env: dict | None = None) -> tuple[float, float, str]:
    """(CPU ms, wall ms, stdout) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, input=stdin, capture_output=True, text=True, env=env or ENV, check=False)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000, wall, proc.stdout


def real_ruff() -> str | None:
    """ruff's own path: a version manager's shim costs more than ruff itself."""
    ruff = shutil.which("ruff")
    if ruff and "/shims/" in ruff:
        ruff = subprocess.run(["pyenv", "which", "ruff"], capture_output=True, text=True, check=False).stdout.strip() or ruff
    return ruff


def edit_tree(tree: Path, files: int, ruff: str, start) -> tuple[list[str], str, str]:
    """A `bench/genrepo.py` tree of `files` files with ruff as its only check, the task started by `start(tree)`:
    (ruff's per-file command without the file, the file edited, the PostToolUse payload of an Edit of it)."""
    per_file = [ruff, "check", "--output-format=concise", "--no-cache", "--force-exclude"]
    subprocess.run([sys.executable, str(ROOT / "bench/genrepo.py"), str(tree), "--files", str(files)],
                   check=True, capture_output=True)
    (tree / "rt.toml").write_text(
        "[checks.ruff]\nkind = \"lint\"\nparser = \"ruff\"\n"
        f"command = {json.dumps(per_file[:-1] + ['.'])}\nper_file = {json.dumps(per_file + ['{file}'])}\n"
        "files = [\"*.py\"]\n")
    subprocess.run(["git", "add", "rt.toml"], cwd=tree, check=True)
    subprocess.run(["git", "commit", "-qm", "rt.toml"], cwd=tree, check=True)
    start(tree)
    rel = next(p for p in subprocess.run(["git", "ls-files", "*.py"], cwd=tree, capture_output=True, text=True,
                                         check=True).stdout.splitlines())
    path = tree / rel
    payload = json.dumps({"session_id": "bench", "transcript_path": "/tmp/x.jsonl", "cwd": str(tree),
                          "hook_event_name": "PostToolUse", "tool_name": "Edit",
                          "tool_input": {"file_path": str(path), "old_string": "x", "new_string": "y"},
                          "tool_response": {"filePath": str(path)}, "tool_use_id": "toolu_bench"})
    return per_file, rel, payload


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--against", type=Path, help="another rt checkout whose hook runs in the same rounds")
    args = ap.parse_args()
    ruff = real_ruff()
    if not ruff:
        sys.exit("ruff is not installed")
    compileall.compile_dir(ROOT / "rt", quiet=1)
    if args.against:
        compileall.compile_dir(args.against / "rt", quiet=1)
    other = {**os.environ, "PYTHONPATH": str(args.against)} if args.against else None
    rt = [sys.executable, "-S", "-m", "rt"]
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "repo"
        per_file, rel, payload = edit_tree(tree, args.files, ruff, lambda t: subprocess.run(
            rt + ["start", "edit one module"], cwd=t, env=ENV, check=True, capture_output=True))
        path = tree / rel
        original = path.read_text()
        hook, alone, base, base_alone = [], [], [], []
        for i in range(args.runs):
            turns = [(hook, alone, ENV), (base, base_alone, other)] if other else [(hook, alone, ENV)]
            for runs, ruff_runs, env in (turns if i % 2 == 0 else turns[::-1]):
                path.write_text(original + f"\nEDITED_{i}_{len(runs)} = {i}\n")
                runs.append(timed(rt + ["hook", "post-tool-use"], tree, payload, env))
                ruff_runs.append(timed(per_file + [rel], tree))
        load = os.getloadavg()[0]
    print(f"tree: {args.files:,} generated files, ruff the only check; {args.runs} paired runs; "
          f"load average {load:.1f}")
    print("| | CPU ms p50 | wall ms p50 |")
    print("|---|---|---|")
    for label, runs, ruff_runs in [("", hook, alone)] + ([(f" ({args.against})", base, base_alone)] if other else []):
        print(f"| PostToolUse hook after an Edit{label} | {statistics.median(h[0] for h in runs):.0f} | "
              f"{statistics.median(h[1] for h in runs):.0f} |")
        print(f"| `ruff check FILE` | {statistics.median(r[0] for r in ruff_runs):.0f} | "
              f"{statistics.median(r[1] for r in ruff_runs):.0f} |")
        print(f"| rt's own share (hook - ruff, per pair){label} | "
              f"{statistics.median(h[0] - r[0] for h, r in zip(runs, ruff_runs)):.0f} | "
              f"{statistics.median(h[1] - r[1] for h, r in zip(runs, ruff_runs)):.0f} |")
    print(f"\nlast hook output: {hook[-1][2][:300]!r}")


if __name__ == "__main__":
    main()
