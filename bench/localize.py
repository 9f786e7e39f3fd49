"""Localisation quality on real history: does `rt pack` find the files a real commit changed?

For each sampled commit of a repository, the commit's message is the task and the non-test source
files it modified (that existed in its parent) are the answer. The parent is checked out in a scratch
clone and ranked two ways: by rt's ranking (`rt pack`'s ranked list and the files given code in the
pack) and by plain BM25 over whole file contents, over the same files, with the same tokenizer.
Reported: recall@1, @5, @10, and the share of commits whose changed files all land in the pack (for
BM25, in its top files as many as rt's pack holds).

    python3 bench/localize.py GIT_DIR [GIT_DIR ...] [--commits 120] [--work /tmp/rt-localize] [--json OUT]

Commits are sampled evenly from the newest `--window` eligible ones: not merges, at least one changed
source file present in the parent, at most 5 source files changed. Nothing is tuned per repository.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.localize_history import eligible_commits, task_text  # noqa: E402
from rt.bm25 import BM25, tokens  # noqa: E402
from rt.cli import Ctx  # noqa: E402
from rt.context import _view, build_pack  # noqa: E402
from rt.core import read_text  # noqa: E402

KS = (1, 5, 10)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          errors="replace").stdout


def scratch_clone(git_dir: Path, work: Path) -> Path:
    dest = work / git_dir.parent.name
    if not (dest / ".git").is_dir():
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(git_dir), str(dest)], check=True)
    return dest


def bm25_ranking(ctx, index, query: str) -> list[str]:
    """Plain BM25 over the whole contents of the same files rt ranks."""
    paths = [e.path for e in index.files.values() if e.lines]
    docs = [tokens(read_text(ctx.repo, p) or "") for p in paths]
    return [paths[i] for i, _ in BM25(docs).rank(tokens(query))]


def recall(ranked: list[str], answer: set[str], k: int) -> float:
    return len(answer & set(ranked[:k])) / len(answer)


def evaluate(git_dir: Path, n: int, window: int, work: Path) -> dict:
    clone = scratch_clone(git_dir, work)
    shutil.rmtree(clone / ".rt", ignore_errors=True)   # a fresh index, whatever rt version left one
    commits = eligible_commits(clone, n, window)
    rows = []
    start = time.monotonic()
    old = os.getcwd()
    try:
        for c in sorted(commits, key=lambda c: c["order"]):   # oldest first: the index updates in small steps
            git(clone, "checkout", "-q", "-f", c["parent"])
            git(clone, "clean", "-q", "-fd")
            os.chdir(clone)
            ctx = Ctx(False)
            view = _view(ctx, task_text(c["message"]), [])
            ranked = [f.path for f in view.ranking.files]
            pack = build_pack(view).files
            base = bm25_ranking(ctx, view.index, task_text(c["message"]))
            answer = set(c["answer"])
            rows.append({
                "commit": c["sha"][:12], "answer": sorted(answer), "pack": pack, "rt_top": ranked[:10],
                "bm25_top": base[:10], "vague": view.ranking.vague,
                "rt": {**{f"r@{k}": recall(ranked, answer, k) for k in KS}, "in_pack": answer <= set(pack)},
                "bm25": {**{f"r@{k}": recall(base, answer, k) for k in KS},
                         "in_pack": answer <= set(base[:len(pack)])},
            })
            os.chdir(old)
    finally:
        os.chdir(old)
    return {"repo": git_dir.parent.name, "commits": len(rows), "seconds": round(time.monotonic() - start, 1),
            "rt": summary(rows, "rt"), "bm25": summary(rows, "bm25"),
            "vague": sum(r["vague"] for r in rows), "mean_pack_files": round(sum(len(r["pack"]) for r in rows) / max(1, len(rows)), 2),
            "rows": rows}


def summary(rows: list[dict], who: str) -> dict:
    n = max(1, len(rows))
    out = {f"r@{k}": round(sum(r[who][f"r@{k}"] for r in rows) / n, 3) for k in KS}
    out["all_in_pack"] = round(sum(r[who]["in_pack"] for r in rows) / n, 3)
    return out


def table(results: list[dict]) -> str:
    lines = ["| repository | commits | ranker | recall@1 | recall@5 | recall@10 | all changed files in pack |",
             "|---|---|---|---|---|---|---|"]
    for res in results:
        for who in ("rt", "bm25"):
            s = res[who]
            name = "rt pack" if who == "rt" else "BM25 (whole files)"
            lines.append(f"| {res['repo']} | {res['commits']} | {name} | {s['r@1']:.3f} | {s['r@5']:.3f} | "
                         f"{s['r@10']:.3f} | {s['all_in_pack']:.3f} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dirs", nargs="+", type=Path, help="git directories of the repositories (read only)")
    ap.add_argument("--commits", type=int, default=120)
    ap.add_argument("--window", type=int, default=1000, help="sample from this many newest eligible commits")
    ap.add_argument("--work", type=Path, default=Path("/tmp/rt-localize"))
    ap.add_argument("--json", type=Path, help="write every commit's result here")
    a = ap.parse_args()
    results = [evaluate(g.resolve(), a.commits, a.window, a.work) for g in a.git_dirs]
    print(table(results))
    for res in results:
        print(f"{res['repo']}: {res['seconds']} s, {res['vague']} commits judged vague, "
              f"{res['mean_pack_files']} files per pack on average")
    if a.json:
        a.json.write_text(json.dumps(results, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
