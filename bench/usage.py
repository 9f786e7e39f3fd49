"""Tokens per scenario as `rt usage` reads them from the transcripts the real Claude Code client wrote.

Each scenario runs the real client (`claude -p`, one process per message) in a temporary repository
with rt installed, against the fake Messages API of tests/e2e/, whose answers are priced by the
prompt-cache model of tests/e2e/cache.py from the requests the client really sent (exact-prefix reads
at the client's cache_control marks, 4 characters a token). Then `rt usage --json` reads the
transcripts the hooks recorded. For each scenario: requests and tokens as the transcript holds them,
the hit ratio (cache reads / (input + cache reads + cache writes)), and the same from the API's own
account of what it answered, which also holds what no transcript records (the compaction
summariser's call). A scenario whose transcript and API figures differ by anything else fails.

    python3 bench/usage.py [--json] [--only NAME]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["PATH"] = os.pathsep.join([str(ROOT / ".ci" / "node_modules" / ".bin"), os.environ.get("PATH", "")])

from tests.conftest import Project  # noqa: E402
from tests.e2e.cache import PromptCache  # noqa: E402
from tests.e2e.fakeapi import text, tool  # noqa: E402
from tests.e2e.harness import claude_binary, run_claude  # noqa: E402

APP = "def total(xs):\n    return sum(xs)\n"


def setup(tmp: Path) -> tuple[Project, Path, Path]:
    root = tmp / "repo"
    root.mkdir()
    repo = Project(root.resolve())
    repo.write("pyproject.toml", '[project]\nname = "demo"\n\n[tool.ruff.lint]\nselect = ["F"]\n')
    repo.write("app.py", APP)
    repo.write("util.py", "def helper():\n    return 1\n")
    repo.write(".gitignore", ".claude/\n")
    repo.init_git()
    repo.rt("install")
    folder = tmp / "bin"
    folder.mkdir()
    (folder / "rt").write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m rt "$@"\n')
    os.chmod(folder / "rt", 0o755)
    return repo, tmp / "home", folder


def edit(repo: Project, old: str, new: str) -> dict:
    return tool("Edit", file_path=str(repo.root / "app.py"), old_string=old, new_string=new)


def bash(command: str) -> dict:
    return tool("Bash", command=command, description=command)


def task(repo, home, path, cache):
    """/runtask, then plan, edit, verify and finish in one session."""
    script = [[bash("rt plan --edit app.py --note rename")], [edit(repo, "def total", "def grand_total")],
              [bash("rt verify && rt finish")], [text("renamed; verify PASS")]]
    return [run_claude(repo.root, home, "/runtask rename total to grand_total", script, path=path, usage=cache)]


def fix_round(repo, home, path, cache):
    """The edit leaves an unused import: verify FAILs, one fix, verify again, finish."""
    script = [[bash("rt plan --edit app.py --note rename")],
              [edit(repo, "def total", "import os\n\n\ndef grand_total")], [bash("rt verify")],
              [edit(repo, "import os\n\n\n", "")], [bash("rt verify && rt finish")], [text("renamed; verify PASS")]]
    return [run_claude(repo.root, home, "/runtask rename total to grand_total", script, path=path, usage=cache)]


def subagent(repo, home, path, cache):
    """The main agent hands the task to a subagent, which edits and verifies."""
    repo.rt("start", "rename total to grand_total")
    repo.rt("plan", "--edit", "app.py")
    script = [[tool("Agent", subagent_type="rt-executor", description="rename", prompt="rename total to grand_total",
                    run_in_background=False)],
              [edit(repo, "def total", "def grand_total")], [bash("rt verify")], [text("renamed; verify PASS")],
              [bash("rt finish")], [text("done")]]
    return [run_claude(repo.root, home, "do the task", script, path=path, usage=cache)]


def compact(repo, home, path, cache):
    """Work, `/compact`, then more work: three processes of one session."""
    runs = task_start(repo, home, path, cache)
    runs.append(run_claude(repo.root, home, "/compact", [[text("<summary>the rename is planned</summary>")]],
                           args=("--continue",), path=path, usage=cache))
    script = [[edit(repo, "def total", "def grand_total")], [bash("rt verify && rt finish")], [text("done")]]
    runs.append(run_claude(repo.root, home, "go on", script, args=("--continue",), path=path, usage=cache))
    return runs


def resume(repo, home, path, cache):
    """Work split over three processes resumed one after the other."""
    runs = task_start(repo, home, path, cache)
    runs.append(run_claude(repo.root, home, "edit it", [[edit(repo, "def total", "def grand_total")], [text("edited")]],
                           args=("--continue",), path=path, usage=cache))
    runs.append(run_claude(repo.root, home, "verify and finish", [[bash("rt verify && rt finish")], [text("done")]],
                           args=("--continue",), path=path, usage=cache))
    return runs


def task_start(repo, home, path, cache):
    script = [[bash("rt plan --edit app.py --note rename")], [text("planned")]]
    return [run_claude(repo.root, home, "/runtask rename total to grand_total", script, path=path, usage=cache)]


SCENARIOS = {"task": task, "fix-round": fix_round, "subagent": subagent, "compact": compact, "resume": resume}


def ratio(read: int, prompt: int) -> float | None:
    return round(read / prompt, 4) if prompt else None


def measure(name: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        repo, home, path = setup(Path(tmp))
        cache = PromptCache()
        started, before = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN)
        runs = SCENARIOS[name](repo, home, path, cache)
        wall, after = time.monotonic() - started, resource.getrusage(resource.RUSAGE_CHILDREN)
        bad = [r.stderr[-300:] for r in runs if r.code != 0]
        assert not bad, f"{name}: the client failed: {bad}"
        data = repo.rt_json("usage")
        finished = repo.rt_json("tasks")["finished"]
    tallies = [t["total"] for t in data["tasks"]] + [data["outside"]["total"]]
    seen = {k: sum(t[k] for t in tallies) for k in ("requests", "input", "output", "cache_read", "cache_write")}
    api = {"requests": len(cache.answers),
           "input": sum(a["input_tokens"] for a in cache.answers), "output": sum(a["output_tokens"] for a in cache.answers),
           "cache_read": sum(a["cache_read_input_tokens"] for a in cache.answers),
           "cache_write": sum(a["cache_creation_input_tokens"] for a in cache.answers)}
    unseen = {k: sum((s["unseen"] or {}).get(k, 0) for s in data["sessions"]) for k in ("input", "output", "cache_read", "cache_write")}
    compactions = sum(s["compactions"] for s in data["sessions"])
    for k in ("input", "output", "cache_read", "cache_write"):   # the transcript plus what it cannot show is the API's account
        assert seen[k] + unseen[k] == api[k], f"{name}: {k}: transcript {seen[k]} + unseen {unseen[k]} != API {api[k]}"
    assert seen["requests"] == api["requests"] - compactions, f"{name}: requests {seen['requests']} vs API {api['requests']}"
    [main] = data["tasks"][:1] or [{"total": {}}]
    return {"scenario": name, "processes": len(runs), "tasks_finished": finished, "compactions": compactions,
            "transcript": seen | {"hit_ratio": ratio(seen["cache_read"], seen["input"] + seen["cache_read"] + seen["cache_write"])},
            "task_window": {k: main["total"].get(k) for k in ("requests", "tokens", "hit_ratio")},
            "api": api | {"hit_ratio": ratio(api["cache_read"], api["input"] + api["cache_read"] + api["cache_write"])},
            "unseen": unseen, "wall_s": round(wall, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 1)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--only", choices=sorted(SCENARIOS))
    args = ap.parse_args()
    if claude_binary() is None:
        print("the Claude Code client is not installed (run `bash .ci/run`)", file=sys.stderr)
        return 2
    rows = [measure(n) for n in ([args.only] if args.only else SCENARIOS)]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'scenario':<10} {'proc':>4} {'req':>4} {'input':>6} {'output':>6} {'cache read':>10} {'cache write':>11} "
          f"{'hit':>5}  {'task window: req, hit':<21}  {'API incl. unseen: req, hit':<27} {'cpu s':>5}")
    for r in rows:
        t, a, w = r["transcript"], r["api"], r["task_window"]
        print(f"{r['scenario']:<10} {r['processes']:>4} {t['requests']:>4} {t['input']:>6} {t['output']:>6} "
              f"{t['cache_read']:>10} {t['cache_write']:>11} {t['hit_ratio']:>5.0%}  "
              f"{str(w['requests']) + ', ' + format(w['hit_ratio'] or 0, '.0%'):<21}  "
              f"{str(a['requests']) + ', ' + format(a['hit_ratio'], '.0%'):<27} {r['cpu_s']:>5}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
