"""What the handoff keeps: its size, and whether every error rt recorded is in it verbatim.

Two scripted tasks in temporary repositories, with the real ruff and pytest:
- `long`: tests/handoff_support.py's task: three failed verify runs and a check run, errors that come
  and go (ruff F401, F821 twice on one line, F841, a failing test, scope differences), two patterns,
  a decision, a claim and steps;
- `stress`: twelve verify rounds over eight modules, each leaving five new ruff errors and fixing the
  last round's, forty long step notes, three decisions and four patterns: far over the cap, to show
  what the drop order keeps.

For each: the handoff's characters (cap 6,000) and its size uncut (`--json`'s uncut_chars); the
share of recorded failures (distinct file, line and message from every run record) found verbatim in
it, of those the last verify still saw, and of the decisions and patterns; what the SessionStart hook gave before this
change (the status) for comparison; the CPU time of `rt handoff`. And the PreCompact text's size.

    python3 bench/handoff.py [--json]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rt.session.handoff import HANDOFF_CHARS, PRECOMPACT  # noqa: E402
from tests.conftest import Project  # noqa: E402
from tests.handoff_support import DECISION, PATTERNS, long_task  # noqa: E402


def stress_task(project: Project) -> tuple[list[str], list[str]]:
    """Twelve rounds of new and fixed ruff errors across eight modules; the decisions and patterns noted."""
    project.write("pyproject.toml", '[project]\nname = "big"\n\n[tool.ruff.lint]\nselect = ["F"]\n')
    modules = [f"pkg/mod{i}.py" for i in range(8)]
    project.write("pkg/__init__.py", "")
    for rel in modules:
        project.write(rel, f'"""Module {rel}."""\n\n\ndef run(x):\n    return x\n')
    project.init_git()
    project.rt("start", "rework the pkg modules to share one runner, step by step, keeping every module importable")
    project.rt("plan", "--edit", *modules, "--note", "one runner per module, rewritten round by round")
    decisions = [f"decision {i}: the runner of round {i} keeps its old signature for callers outside pkg" for i in range(3)]
    patterns = [f"pattern {i}: pkg modules never import each other directly; they meet through pkg.runner ({i})"
                for i in range(4)]
    for d in decisions:
        project.rt("note", "--decision", d)
    for p in patterns:
        project.rt("note", "--pattern", p)
    for n in range(12):
        names = [f"name_{n}_{k}" for k in range(5)]
        for i, rel in enumerate(modules):
            body = f'"""Module {rel}."""\n'
            if i in (n % 8, (n + 3) % 8):   # this round's two modules get its new problems
                body += "".join(f"import {m}\n" for m in ("os", "sys", "json")[: 1 + n % 3])
                body += f"\n\ndef run(x):\n    return x + {' + '.join(names[:2])}\n"
            else:
                body += "\n\ndef run(x):\n    return x\n"
            project.write(rel, body)
        project.rt("verify", ret=1)
        for s in range(3 if n < 10 else 4):
            project.rt("step", f"round {n}, step {s}: moved the runner of the touched modules one step closer to "
                               f"pkg.runner, with the callers' signatures kept and the module docstrings updated to match")
    return decisions, patterns


def measure(name: str, build) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        project = Project(root.resolve())
        kept = build(project)
        decisions, patterns = kept if kept else ([DECISION], list(PATTERNS))
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([sys.executable, "-m", "rt", "handoff"], cwd=root, capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)), check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        text = proc.stdout.rstrip("\n")
        data = project.rt_json("handoff")
        status = project.rt("status")
        runs = [json.loads(p.read_text()) for p in sorted(next((root / ".rt/tasks").glob("*/runs")).glob("*.json"))]
    failures = {(f["file"], f["line"], f["message"]) for r in runs for f in r["failures"]}
    last_verify = next(r for r in reversed(runs) if r["kind"] == "verify")
    open_ = {(f["file"], f["line"], f["message"]) for f in last_verify["failures"]}

    def found(items, where):
        return sum(f"{file}:{line}" in where and message in where for file, line, message in items)

    return {
        "scenario": name, "runs": len(runs), "failures": len(failures), "open": len(open_),
        "chars": len(text), "cap": HANDOFF_CHARS, "uncut_chars": data["uncut_chars"], "dropped_items": data["dropped"],
        "failures_verbatim": found(failures, text), "open_verbatim": found(open_, text),
        "notes_verbatim": sum(n in text for n in decisions + patterns), "notes": len(decisions + patterns),
        "status_chars": len(status), "status_failures_verbatim": found(failures, status),
        "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 3),
    }


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "n/a"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = [measure("long", long_task), measure("stress", stress_task)]
    if args.json:
        print(json.dumps({"rows": rows, "precompact_chars": len(PRECOMPACT)}, indent=2))
        return 0
    print(f"{'scenario':<8} {'runs':>4} {'chars':>6} {'uncut':>6} {'left out':>8}  {'failures verbatim':<18} "
          f"{'open verbatim':<14} {'notes':<11} {'status before: chars, failures':<31} {'cpu s':>5}")
    for r in rows:
        print(f"{r['scenario']:<8} {r['runs']:>4} {r['chars']:>6} {r['uncut_chars']:>6} {r['dropped_items']:>8}  "
              f"{pct(r['failures_verbatim'], r['failures']):<18} {pct(r['open_verbatim'], r['open']):<14} "
              f"{pct(r['notes_verbatim'], r['notes']):<11} "
              f"{str(r['status_chars']) + ', ' + pct(r['status_failures_verbatim'], r['failures']):<31} {r['cpu_s']:>5}")
    print(f"PreCompact text: {len(PRECOMPACT)} characters (sent twice: to the summariser and again after the compaction)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
