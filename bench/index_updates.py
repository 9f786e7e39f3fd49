"""Does an index kept up to date answer as a fresh build? On real history: build the index at a commit, check
out a later one, update the index as a look-up does, and compare every file's importers and imports with a
fresh build's of the same tree.

    python3 bench/index_updates.py CLONE [--tip REV] [--updates 12] [--span 6] [--rt ROOT]

CLONE is a git clone this may check out and clean (never a working copy of yours). The commits are the newest
first-parent ones up to REV (default HEAD) that add, delete or rename a TypeScript or JavaScript file, each
updated from `--span` commits before it; spans changing over 100 files are skipped (the update is a full build then). rt runs from
ROOT (default: this checkout).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DUMP = """import json, sys
from rt.cli import Ctx
from rt.index.index import load
idx = load(Ctx(False))
json.dump({p: [idx.importers(p), idx.imports_of(p)] for p in idx.paths}, sys.stdout)
"""
"""Every path's importers and imports, from the index of the tree in the working folder."""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clone", type=Path)
    ap.add_argument("--tip", default="HEAD")
    ap.add_argument("--updates", type=int, default=12)
    ap.add_argument("--span", type=int, default=6)
    ap.add_argument("--rt", type=Path, default=HERE.parent)
    a = ap.parse_args()
    env = {**os.environ, "PYTHONPATH": str(a.rt.resolve())}

    def run(*args: str) -> str:
        return subprocess.run(args, cwd=a.clone, env=env, capture_output=True, text=True, check=True).stdout

    rt = (sys.executable, "-S", "-m", "rt")
    log = run("git", "log", "--first-parent", "--format=%H", "--diff-filter=ADR", "-n", str(a.updates * 3),
              a.tip, "--", "*.ts", "*.tsx", "*.js")
    done = differ = 0
    for sha in log.split():
        if done == a.updates:
            break
        base = f"{sha}~{a.span}"
        if len(run("git", "diff", "--name-only", base, sha).split()) > 100:
            continue
        for commit, build in ((base, ("index", "--rebuild")), (sha, ("index",))):
            run("git", "checkout", "-qf", commit)
            run("git", "clean", "-qfdx", "-e", ".rt")
            run(*rt, *build)
        kept = json.loads(run(sys.executable, "-S", "-c", DUMP))
        run(*rt, "index", "--rebuild")
        fresh = json.loads(run(sys.executable, "-S", "-c", DUMP))
        wrong = sorted(p for p in fresh.keys() | kept.keys() if kept.get(p) != fresh.get(p))
        done += 1
        differ += bool(wrong)
        print(f"{sha[:10]}: {len(wrong)} files answer otherwise than a fresh build {wrong[:3]}", flush=True)
    print(f"{differ} of {done} updates differ from a fresh build")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
