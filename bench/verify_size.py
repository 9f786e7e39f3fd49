"""How much smaller the diff summary is than the raw lint logs it summarises.

Copies a repository to a temporary folder (the original is never touched), runs ruff on it, adds a
comment line at the top of a file (so every old finding in it moves down a line) and one undefined name
at its end, runs ruff again, and feeds both logs to `rt diff-logs`. The same edit also goes through a
whole rt task (`rt.toml` sets the same ruff command; `rt baseline` before the edit, `rt verify` after),
whose `verify.md` is measured too. Reports the bytes of each log and summary, and checks each summary
found exactly the one error.

    python3 bench/verify_size.py /path/to/a/python/repo [--select RULES] [--file REL]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SELECT = "E,F,W,B,UP,SIM,RUF,PT,C4,RET,PL"
ABOVE = "# rt bench: a line above every old finding\n"
PROBE = "\n\nrt_bench_probe = rt_bench_undefined_name\n"


def ruff(repo: Path, select: str) -> tuple[int, str]:
    proc = subprocess.run(["ruff", "check", "--output-format=concise", "--no-cache", "--isolated",
                           "--select", select, "."], cwd=repo, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def rt(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rt", *args], cwd=cwd, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env=dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b",
                            GIT_COMMITTER_EMAIL="b@b"))


def rt_toml(select: str, others: list[str]) -> str:
    """Only ruff, run as this script runs it: every other check rt found in the copy is turned off."""
    argv = ["ruff", "check", "--output-format=concise", "--no-cache", "--isolated", "--select", select, "."]
    text = "[checks.ruff]\ncommand = [" + ", ".join(json.dumps(a) for a in argv) + "]\n"
    return text + "".join(f"[checks.{json.dumps(name)}]\nenabled = false\n" for name in sorted(others))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo", type=Path)
    ap.add_argument("--select", default=DEFAULT_SELECT, help=f"ruff rules (default {DEFAULT_SELECT})")
    ap.add_argument("--file", help="repo-relative .py file to insert the error into (default: the largest)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "repo"
        shutil.copytree(args.repo, work, ignore=shutil.ignore_patterns(".git", ".rt", "rt.toml"))
        target = work / args.file if args.file else max(
            (p for p in work.rglob("*.py")), key=lambda p: (p.stat().st_size, str(p)))
        rel = target.relative_to(work).as_posix()
        found = json.loads(rt("checks", "--json", cwd=work).stdout or "{}").get("checks", [])
        (work / "rt.toml").write_text(rt_toml(args.select, [c["name"] for c in found if c["name"] != "ruff"]),
                                      encoding="utf-8")
        git("init", "-q", cwd=work)
        git("add", "-A", cwd=work)
        git("commit", "-qm", "copy", cwd=work)
        for step in (["start", "bench: one error"], ["plan", "--edit", rel], ["baseline"]):
            rt(*step, cwd=work)
        _, before = ruff(work, args.select)
        source = target.read_text(encoding="utf-8")
        target.write_text(ABOVE + source.rstrip("\n") + "\n" + PROBE, encoding="utf-8")
        probe_line = (ABOVE + source.rstrip("\n") + "\n" + PROBE).count("\n")
        _, after = ruff(work, args.select)
        logs = Path(tmp) / "before.log", Path(tmp) / "after.log"
        logs[0].write_text(before, encoding="utf-8")
        logs[1].write_text(after, encoding="utf-8")
        text = rt("diff-logs", "--parser", "ruff", *map(str, logs), cwd=work)
        data = rt("diff-logs", "--parser", "ruff", *map(str, logs), "--json", cwd=work)
        rt("step", "edited", cwd=work)
        verified = rt("verify", cwd=work)
        reports = sorted(work.glob(".rt/tasks/*/verify.md"))
        verify_md = reports[0].read_text(encoding="utf-8") if reports else ""
    new = json.loads(data.stdout)["new"]
    ok = len(new) == 1 and new[0]["file"] == rel and new[0]["line"] == probe_line \
        and "rt_bench_undefined_name" in new[0]["message"]
    raw = len(after.encode())
    summary = len(text.stdout.encode())
    print(f"repository: {args.repo.name}  rules: {args.select}  a line added at the top of {rel}, an error at its end")
    print(f"before log: {len(before.encode())} bytes, {before.count(chr(10))} lines")
    print(f"after log:  {raw} bytes, {after.count(chr(10))} lines")
    print(f"rt diff-logs text: {summary} bytes ({raw / summary:.0f}x smaller than the after log), "
          f"exit {text.returncode}")
    print(f"rt diff-logs --json: {len(data.stdout.encode())} bytes")
    print("summary:")
    print("  " + text.stdout.rstrip().replace("\n", "\n  "))
    verify_ok = "rt_bench_undefined_name" in verify_md and "## new diagnostics (1)" in verify_md
    if verify_md:
        size = len(verify_md.encode())
        print(f"rt verify's verify.md: {size} bytes ({raw / size:.0f}x smaller than the after log), "
              f"exit {verified.returncode}")
    else:
        print(f"rt verify wrote no verify.md (exit {verified.returncode}): {verified.stderr.strip()[-300:]}")
    print("verify.md:")
    print("  " + verify_md.rstrip().replace("\n", "\n  "))
    print(f"found exactly the inserted error: diff-logs {'yes' if ok else 'NO'}, verify {'yes' if verify_ok else 'NO'}")
    return 0 if ok and verify_ok else 1


if __name__ == "__main__":
    sys.exit(main())
