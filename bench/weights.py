"""The ranking's weights swept on real history: which of `rt/pack/rank.py`'s constants, moved alone, would
rank the files real commits changed higher?

The tasks are `bench/localize.py`'s (the same sampling, the same answers). Each task's parent is checked out
and its index brought up to date once; then the task is ranked under every setting: the defaults, and each
constant of PARAMS times each of FACTORS (one constant moved at a time), or the settings given with --set.
A setting's constants are patched into the module for its ranking and restored after it, so every setting
sees the same index, the same history and the same task. Per task and setting it records each answer file's
place (None past the first 50) and whether the pack would give it code (`context._pack_files`: the files
chosen before their fragments are cut to the room, so a bound on "all answer code in pack").

Only the ranking is judged here (no fragments, no edited lines): a setting found better must then go through
`bench/localize.py` on TUNE and HELD-OUT before it is kept. Sweep TUNE only (it is where weights may be tuned).

    python3 bench/weights.py GIT_DIR ... [--quick] --json OUT            # the sweep
    python3 bench/weights.py GIT_DIR ... --set W_NAME=1.5,B=0.6 --json OUT   # given settings against the defaults
    python3 bench/weights.py --report OUT [OUT ...]                      # per setting, per group: recall@5, in pack
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.localize import GROUPS, REPOS, checkout, repo_name, scratch_clone  # noqa: E402
from bench.localize_history import RT, eligible_commits, task_text  # noqa: E402
from rt.context import _pack_files  # noqa: E402
from rt.index import history  # noqa: E402
from rt.pack import rank as R  # noqa: E402

PARAMS = ["B", "LENGTH", "K1", "W_NAME", "W_FOLDER", "W_DEFS", "NAME_RARITY", "TRANSLATION", "LOCALE_ELSE", "SCOPE",
          "NAMED_LOCALE", "PATH_HIT", "TOGETHER", "W.ident", "W.quoted", "W.url", "W.stop", "KIND.test", "KIND.prose",
          "KIND.data", "KIND.locale", "KIND.source-locale", "KIND.vendored"]
FACTORS = (0.5, 0.75, 1.33, 2.0)
PLACES = 50


def get(name: str) -> float:
    table, _, key = name.partition(".")
    return getattr(R, table)[key] if key else getattr(R, name)


def put(name: str, value: float) -> None:
    value = type(get(name))(value)   # a count stays an int
    table, _, key = name.partition(".")
    if key:
        getattr(R, table)[key] = value
    else:
        setattr(R, name, value)


def sweep() -> list[dict[str, float]]:
    return [{}] + [{p: round(get(p) * f, 4)} for p in PARAMS for f in FACTORS if get(p)]


def ranked_under(setting: dict[str, float], ctx, idx, text: str, together) -> tuple[list[str], set[str]]:
    saved = {p: get(p) for p in setting}
    try:
        for p, v in setting.items():
            put(p, v)
        ctx.history = SimpleNamespace(result=lambda: together)   # the task's history, read once
        view = RT.view(ctx, text, [], idx)
        r = view.ranking
        chosen = set(_pack_files(r)[0])
        return [f.path for f in r.files[:PLACES]], chosen
    finally:
        for p, v in saved.items():
            put(p, v)


def evaluate(git_dir: Path, n: int, n_locale: int, work: Path, settings: list[dict]) -> dict:
    name = repo_name(git_dir)
    group, which, tip = REPOS[name]
    clone = scratch_clone(git_dir, work)
    commits = eligible_commits(clone, tip, n, 1000, n_locale)
    rows, old, start = [], os.getcwd(), time.monotonic()
    try:
        for c in sorted(commits, key=lambda c: c["order"]):
            checkout(clone, c["parent"])
            os.chdir(clone)
            ctx = RT.Ctx(False)
            idx = RT.index.load(ctx)
            together = history.load(ctx.repo, ctx.store)
            text = task_text(c["message"])
            per = []
            for s in settings:
                ranked, chosen = ranked_under(s, ctx, idx, text, together)
                per.append([[ranked.index(p) + 1 if p in ranked else None for p in c["answer"]],
                            [p in chosen for p in c["answer"]]])
            rows.append({"commit": c["sha"][:12], "task": text, "answer": c["answer"], "locale": bool(c["locale"]),
                         "extra": c["extra"], "per": per})
            os.chdir(old)
    finally:
        os.chdir(old)
    return {"repo": name, "group": group, "set": which, "rows": rows, "seconds": round(time.monotonic() - start, 1)}


def scores(rows: list[dict], i: int) -> dict[str, float]:
    def recall(places, k):
        return sum(p is not None and p <= k for p in places) / len(places)
    return {"r@5": statistics.mean(recall(r["per"][i][0], 5) for r in rows),
            "r@10": statistics.mean(recall(r["per"][i][0], 10) for r in rows),
            "pack": statistics.mean(all(r["per"][i][1]) for r in rows)}


def report(saved: list[dict]) -> None:
    settings = saved[0]["settings"]
    results = [r for s in saved for r in s["results"]]
    groups = []
    for which in ("tune", "held-out"):
        for g in GROUPS:
            rows = [row for r in results if r["set"] == which for row in r["rows"]
                    if (row["locale"] if g == "locale" else r["group"] == g and not row["extra"])]
            if rows:
                groups.append((f"{which} {g}", rows))
    print("| setting | " + " | ".join(f"{name} ({len(rows)}) r@5 / in pack" for name, rows in groups) + " | mean r@5 | mean in pack |")
    print("|---|" + "---|" * (len(groups) + 2))
    base = [scores(rows, 0) for _, rows in groups]
    for i, s in enumerate(settings):
        now = [scores(rows, i) for _, rows in groups]
        label = ", ".join(f"{k}={v}" for k, v in s.items()) or "defaults"
        cells = [f"{x['r@5']:.3f} / {x['pack']:.3f}" if i == 0 else
                 f"{x['r@5'] - b['r@5']:+.3f} / {x['pack'] - b['pack']:+.3f}" for x, b in zip(now, base)]
        print(f"| {label} | " + " | ".join(cells) + f" | {statistics.mean(x['r@5'] for x in now):.3f} | "
              f"{statistics.mean(x['pack'] for x in now):.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("git_dirs", nargs="*", type=Path)
    ap.add_argument("--quick", action="store_true", help="15 tasks (and 5 more locale tasks) per repository")
    ap.add_argument("--set", action="append", default=[], metavar="P=V,...", help="a setting to try (repeatable)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/rt-weights"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--report", type=Path, nargs="+")
    a = ap.parse_args()
    if a.report:
        return report([json.loads(f.read_text()) for f in a.report])
    settings = [{}] + [{k: float(v) for k, v in (kv.split("=") for kv in s.split(","))} for s in a.set] if a.set else sweep()
    results = []
    for d in a.git_dirs:
        results.append(evaluate(d.resolve(), 15 if a.quick else 30, 5 if a.quick else 10, a.work, settings))
        print(f"{results[-1]['repo']}: {len(results[-1]['rows'])} tasks, {results[-1]['seconds']} s", file=sys.stderr)
        if a.json:
            a.json.write_text(json.dumps({"settings": settings, "results": results}))
    if a.json:
        report([json.loads(a.json.read_text())])


if __name__ == "__main__":
    main()
