"""Checks on a real repository: baseline time, `rt check` latency, and whether `rt verify` reports exactly
the problems planted in a copy of it.

The repository is cloned into a temporary folder (never touched itself). In the copy, rt starts a task
(baseline), then the largest Python modules each get a function with an unused import (ruff F401) and the
wrong return type (mypy return-value), and the first test module gets a failing test (pytest). Each
planted problem is expected only from the checks the repository has. Printed: per-check baseline time,
`rt check FILE` time per edited file, the planted problems `rt verify` found (recall) and the
other "new" diagnostics it reported (to read: a consequence of the plant, or a false alarm), then the
verdict once the plants are replaced by a harmless comment (nothing new should remain), as Markdown.

    python3 bench/checks_bench.py REPO [--files 3] [--rt-toml TEXT]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENV = dict(os.environ, PYTHONPATH=str(ROOT), GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b",
           GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b")


def rt(repo: Path, *args: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "rt", *args], cwd=repo, capture_output=True, text=True, env=ENV)
    return proc, time.monotonic() - started


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=ENV, check=True).stdout


def plant(repo: Path, rel: str, n: int) -> None:
    """A function at the end of the module with an unused local import and the wrong return type."""
    with open(repo / rel, "a", encoding="utf-8") as f:
        f.write(f"\n\ndef _rt_bench_wrong_{n}() -> int:\n    import os\n    return 'not an int'\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("repo")
    ap.add_argument("--files", type=int, default=3, help="how many modules get planted problems")
    ap.add_argument("--rt-toml", default="", help="text of an rt.toml to commit in the copy first")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "copy"
        subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(Path(args.repo).resolve()), str(repo)], check=True)
        if args.rt_toml:
            (repo / "rt.toml").write_text(args.rt_toml.replace("\\n", "\n"), encoding="utf-8")
            git(repo, "add", "rt.toml")
            git(repo, "commit", "-qm", "rt.toml")
        checks = {c["name"]: c for c in json.loads(rt(repo, "checks", "--json")[0].stdout)["checks"]}
        print(f"repository: {Path(args.repo).name} ({len(git(repo, 'ls-files').splitlines())} files), "
              f"checks: {', '.join(checks) or 'none'}\n")
        proc, took = rt(repo, "start", "bench: plant problems")
        print("| baseline check | result | seconds |\n|---|---|---|")
        for ln in proc.stderr.splitlines():
            m = re.match(r"rt: \[\d+/\d+\] (\S+): (.*) \((\d+\.\d)s\)$", ln)
            if m:
                print(f"| {m[1]} | {m[2]} | {m[3]} |")
        print(f"| all (`rt start`, snapshot included) | | {took:.1f} |\n")
        files = [p for p in git(repo, "ls-files", "*.py").splitlines()
                 if not re.search(r"(^|/)(tests?|docs)/|(^|/)test_|conftest", p)]
        files = sorted(files, key=lambda p: (-(repo / p).stat().st_size, p))[:args.files]
        tests = sorted(p for p in git(repo, "ls-files", "*.py").splitlines() if re.search(r"(^|/)test_[^/]*\.py$", p))
        originals = {rel: (repo / rel).read_text(encoding="utf-8") for rel in files + tests[:1]}
        expected = []
        for n, rel in enumerate(files):
            plant(repo, rel, n)
            if any(c["parser"] == "ruff" for c in checks.values()):
                expected.append(("ruff", rel, "F401", ""))
            if any(c["parser"] == "mypy" for c in checks.values()):
                expected.append(("mypy", rel, "return-value", ""))
        edited = list(files)
        if tests and any(c["parser"] == "pytest" for c in checks.values()):
            with open(repo / tests[0], "a", encoding="utf-8") as f:
                f.write("\n\ndef test_rt_bench_fails():\n    assert 1 == 2\n")
            expected.append(("pytest", tests[0], "test_rt_bench_fails", ""))
            edited.append(tests[0])
        rt(repo, "plan", "--edit", *edited)
        print("| `rt check FILE` | new reported | seconds |\n|---|---|---|")
        for rel in files:
            proc, took = rt(repo, "check", rel, "--json")
            new = json.loads(proc.stdout)["files"][0]["new"] if proc.stdout.strip().startswith("{") else []
            print(f"| {rel} | {len(new)} | {took:.1f} |")
        proc, took = rt(repo, "verify", "--json")
        data = json.loads(proc.stdout)
        new = data.get("new", [])

        def matches(e, d) -> bool:
            return (checks.get(d["check"], {}).get("parser") == e[0] and d["file"] == e[1] and e[2] in d["code"]
                    and e[3] in d["message"])

        found = [e for e in expected if any(matches(e, d) for d in new)]
        extra = [d for d in new if not any(matches(e, d) for e in expected)]
        print(f"\n`rt verify`: {data.get('verdict')} in {took:.1f}s; planted problems found: {len(found)} of "
              f"{len(expected)}; other new diagnostics: {len(extra)}")
        for c in data.get("checks", []):
            print(f"- {c['name']}: {c['status']}" + (f" ({c['reason']})" if c["reason"] else ""))
        for d in extra[:10]:
            print(f"  extra: {d['file']}:{d['line']} {d['check']} {d['code']} {d['message'][:100]}")
        for e in expected:
            if e not in found:
                print(f"  missed: {e}")
        for rel in edited:  # the fix: the original text plus a harmless comment, so each file still differs
            (repo / rel).write_text(originals[rel] + "\n# rt bench: harmless edit\n", encoding="utf-8")
        proc, took = rt(repo, "verify", "--json")
        data = json.loads(proc.stdout)
        print(f"\nafter the fix, `rt verify`: {data.get('verdict')} in {took:.1f}s; new diagnostics: "
              f"{len(data.get('new', []))} (should be 0)")


if __name__ == "__main__":
    main()
