"""rt's own share of the PostToolUse hook after an Edit, with ruff as the project's only check: the hook
(`python3 -S -m rt hook post-tool-use`, a fresh process with the JSON payload on stdin, as Claude Code
runs it) against `ruff check FILE` alone, paired run by run on the same edited file.

Each run edits one Python file (a new line at its end), then runs the hook and ruff's per-file command in
turn; rt's own share is the hook's time less ruff's in the same run (median of those differences), CPU
(user + system of the process and its children) and wall. The tree is a `bench/genrepo.py` tree with an
`rt.toml` that names ruff as the only check; the task is started and its baseline taken first (not timed).

With `--against DIR` (another rt checkout, such as main's) each run also times that checkout's hook on the
same edit, the two alternating which goes first, and the table gains its rows.

With `--server` each run also times the hook as `rt install` registers it where bash is: the hook client
(`bash rt/claude/hook.sh post-tool-use`) answered by the repository's hook server, started before the runs.
Its CPU is the client's (bash, a child) plus the server's own thread in that run (`/proc/PID/schedstat`,
nanoseconds), which leaves out ruff, the server's child: that sum is rt's own share, with no subtraction.
The server's whole CPU over all runs, ruff included (`/proc/PID/stat`, clock ticks), is printed as a mean.

    python3 bench/post_edit_hook.py [--files 2000] [--runs 30] [--against DIR] [--server]
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
    ap.add_argument("--server", action="store_true", help="also the hook client answered by the hook server")
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
        hook, alone, base, base_alone, served, served_alone = [], [], [], [], [], []
        server = Server(tree, payload) if args.server else None
        for i in range(args.runs):
            turns = [(hook, alone, ENV)] + ([(base, base_alone, other)] if other else []) \
                + ([(served, served_alone, None)] if server else [])
            for runs, ruff_runs, env in (turns if i % 2 == 0 else turns[::-1]):
                path.write_text(original + f"\nEDITED_{i}_{len(runs)} = {i}\n")
                runs.append(server.timed() if env is None else timed(rt + ["hook", "post-tool-use"], tree, payload, env))
                ruff_runs.append(timed(per_file + [rel], tree))
        load = os.getloadavg()[0]
        if server:
            whole = server.stop() / args.runs
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
    if server:
        print(f"| PostToolUse hook after an Edit, hook client + server (client CPU + server thread) | "
              f"{statistics.median(h[0] for h in served):.1f} | {statistics.median(h[1] for h in served):.1f} |")
        print(f"| `ruff check FILE` | {statistics.median(r[0] for r in served_alone):.0f} | "
              f"{statistics.median(r[1] for r in served_alone):.0f} |")
        print(f"| rt's own share, hook client + server (= its CPU above; wall: hook - ruff, per pair) | "
              f"{statistics.median(h[0] for h in served):.1f} | "
              f"{statistics.median(h[1] - r[1] for h, r in zip(served, served_alone)):.1f} |")
        print(f"\nthe server's whole CPU per run, ruff included (mean over the runs, clock ticks): {whole:.1f} ms")
    print(f"\nlast hook output: {hook[-1][2][:300]!r}")


class Server:
    """The hook server of `tree`, started by a first hook through the client, and the client's runs."""

    def __init__(self, tree: Path, payload: str, event: str = "post-tool-use"):
        self.tree, self.payload = tree, payload
        self.env = {k: v for k, v in os.environ.items() if k != "RT_HOOK_SERVER"}
        self.env.update(RT_PY=sys.executable, PYTHONPATH=str(ROOT), CLAUDE_PROJECT_DIR=str(tree))
        self.argv = ["bash", str(ROOT / "rt/claude/hook.sh"), event]
        subprocess.run(self.argv, input=payload, capture_output=True, text=True, cwd=tree, env=self.env, check=True)
        state = tree / ".rt" / "hookserver"
        for _ in range(400):
            if state.exists():
                break
            time.sleep(0.05)
        self.pid = int(state.read_text().split()[2])
        time.sleep(0.5)
        self.start = self.ticks()

    def ticks(self) -> float:
        """The server's CPU so far, its children waited for included, in ms (clock ticks)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(f) for f in fields[11:15]) * 1000 / os.sysconf("SC_CLK_TCK")

    def thread_ns(self) -> int:
        return int(Path(f"/proc/{self.pid}/schedstat").read_text().split()[0])

    def timed(self, payload: str | None = None) -> tuple[float, float, str]:
        """(CPU ms: the client's and the server thread's, wall ms, stdout) of one hook through the client."""
        before = self.thread_ns()
        cpu, wall, out = timed(self.argv, self.tree, payload or self.payload, self.env)
        return cpu + (self.thread_ns() - before) / 1e6, wall, out

    def stop(self) -> float:
        whole = self.ticks() - self.start
        os.kill(self.pid, 15)
        return whole


if __name__ == "__main__":
    main()
