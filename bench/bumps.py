"""Dependency bumps (or other commits a subject pattern picks) from real history: where does rt rank the file changed?

    python3 bench/bumps.py GIT_DIR ... --against BASE [--n 10] [--work DIR] [--grep REGEX --max-files K] [--file PATH]

For each repository, the last N commits (no merges) whose subject `rank._BUMP` reads as a dependency
bump ("Bump X from A to B", "update module X to vN", ...), or --grep matches (with at most --max-files files changed),
and that change a file other than a lock file are checked
out at their parent in a clone under --work (as `bench/localize.py` checks a commit out), and ranked by this checkout's rt and by BASE (another rt checkout, e.g.
`git worktree add --detach /tmp/base main~3`), each as `rt pack --json SUBJECT` in its own process. Printed: per
commit the place of the first changed file in each ranking (with --file, of that file, in the commits changing it),
then per repository the share of commits whose changed file is first and in the first five.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))
from bench.localize import checkout, scratch_clone  # noqa: E402
from rt.pack.rank import _BUMP  # noqa: E402

LOCK = re.compile(r"(lock|\.sum)(\.json|\.yaml)?$|\.lock$")


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True).stdout


def place(clone: Path, rt: Path, subject: str, files: list[str]) -> int | None:
    out = subprocess.run([sys.executable, "-m", "rt", "pack", "--json", subject], cwd=clone, capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=str(rt)))
    ranked = [f["path"] for f in json.loads(out.stdout)["ranked"]]
    return min((ranked.index(f) + 1 for f in files if f in ranked), default=None)


def repository(git_dir: Path, base: Path, n: int, work: Path, picks=_BUMP, most: int = 1 << 30,
               only: str | None = None) -> list[dict]:
    clone = scratch_clone(git_dir, work)
    tip = git(git_dir, "rev-parse", "HEAD").strip()   # the repository's, not the clone's: a run checks commits out
    log = git(clone, "log", tip, "--no-merges", "--format=%x01%H%x02%s", "--name-only", "-n", "3000")
    rows = []
    for block in log.split("\x01")[1:]:
        head, _, names = block.partition("\n")
        sha, _, subject = head.partition("\x02")
        files = [f for f in names.split("\n") if f and not LOCK.search(f)]
        if not picks.search(subject) or not files or len(files) > most or only and only not in files:
            continue
        files = [only] if only else files
        checkout(clone, sha + "^")   # without the files whose blobs the snapshot lacks (`bench/localize.py`)
        row = {"commit": sha[:8], "subject": subject, "files": files,
               "base": place(clone, base, subject, files), "this": place(clone, HERE, subject, files)}
        print(f"{row['commit']} base {row['base']} this {row['this']}  {subject[:80]}  | {files[:2]}", flush=True)
        rows.append(row)
        if len(rows) == n:
            break
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("git_dirs", nargs="+", type=Path)
    ap.add_argument("--against", type=Path, required=True, help="another rt checkout")
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--work", type=Path, default=Path("/tmp/rt-bumps"))
    ap.add_argument("--grep", type=re.compile, default=_BUMP, help="the subjects to take, instead of the bumps")
    ap.add_argument("--max-files", type=int, default=1 << 30, help="commits changing more files are left out")
    ap.add_argument("--file", help="only commits changing this file, and its place (not the best-placed file's)")
    a = ap.parse_args()
    a.work.mkdir(parents=True, exist_ok=True)
    for d in a.git_dirs:
        rows = repository(d.resolve(), a.against.resolve(), a.n, a.work, a.grep, a.max_files, a.file)
        share = {k: (sum(r[k] == 1 for r in rows) / len(rows), sum(bool(r[k] and r[k] <= 5) for r in rows) / len(rows))
                 for k in ("base", "this")} if rows else {}
        print(f"{d.parent.name}: {len(rows)} commits; first: base {share['base'][0]:.2f} this {share['this'][0]:.2f}; "
              f"first five: base {share['base'][1]:.2f} this {share['this'][1]:.2f}" if rows else f"{d.parent.name}: none")


if __name__ == "__main__":
    main()
