"""The ranking's weights swept on real history: which of `rt/pack/rank.py`'s constants, moved alone, would
rank the files real commits changed higher? With --pack, the pack's own constants (`rt/pack/fragments.py`'s
and `rt/context.py`'s): which would show more of the lines real commits edited?

The tasks are `bench/localize.py`'s (the same sampling, the same answers). Each task's parent is checked out
and its index brought up to date once; then the task is ranked under every setting: the defaults, and each
constant of PARAMS times each of FACTORS (one constant moved at a time), or the settings given with --set.
A setting's constants are patched into the module for its ranking and restored after it, so every setting
sees the same index, the same history and the same task. Per task and setting it records each answer file's
place (None past the first 50) and whether the pack would give it code (`context._pack_files`: the files
chosen before their fragments are cut to the room, so a bound on "all answer code in pack").

Without --pack only the ranking is judged (no fragments, no edited lines). With it the task is ranked once and
the pack built under every setting of PACK_PARAMS, judged as `bench/localize.py` judges it: the answer files'
code in the pack, the share of the commit's edited lines its fragments hold. Either way a setting found better
must then go through `bench/localize.py` on TUNE and HELD-OUT before it is kept. Sweep TUNE only (it is where
weights may be tuned).

    python3 bench/weights.py GIT_DIR ... [--quick] [--pack] --json OUT   # the sweep
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

from bench.localize import GROUPS, REPOS, checkout, judge, repo_name, scratch_clone  # noqa: E402
from bench.localize_history import RT, edited_lines, eligible_commits, task_text  # noqa: E402
from rt import context as C  # noqa: E402
from rt.context import _pack_files  # noqa: E402
from rt.index import history  # noqa: E402
from rt.pack import fragments as F  # noqa: E402
from rt.pack import rank as R  # noqa: E402

PARAMS = ["B", "LENGTH", "K1", "W_NAME", "W_FOLDER", "W_DEFS", "NAME_RARITY", "TRANSLATION", "LOCALE_ELSE", "SCOPE",
          "NAMED_LOCALE", "PATH_HIT", "TOGETHER", "W.ident", "W.quoted", "W.url", "W.stop", "KIND.test", "KIND.prose",
          "KIND.data", "KIND.locale", "KIND.source-locale", "KIND.vendored"]
PACK_PARAMS = ["fragments.WHOLE_FILE", "fragments.WHOLE_FIT", "fragments.GAP", "fragments.WHOLE_DEF", "fragments.HEAD_LINES",
               "fragments.DEF_CONTEXT", "fragments.DEF_WINDOWS", "fragments.MATCH_WINDOWS", "fragments.MATCH_CONTEXT",
               "fragments.DEFS", "fragments.DEF_NAME", "context.PACK_FILES", "context.SPARE_FILES", "context.TAIL_CHARS",
               "context.TESTS_SHARE"]
"""`module.NAME` of the pack's module; a rank constant is `NAME` or `TABLE.key`."""
MODULES = {"fragments": F, "context": C}
FACTORS = (0.5, 0.75, 1.33, 2.0)
PLACES = 50


def _where(name: str) -> tuple[object, str, str]:
    table, _, key = name.partition(".")
    return (MODULES[table], key, "") if table in MODULES else (R, table, key)


def get(name: str) -> float:
    owner, attr, key = _where(name)
    return getattr(owner, attr)[key] if key else getattr(owner, attr)


def put(name: str, value: float) -> None:
    value = type(get(name))(value)   # a count stays an int
    owner, attr, key = _where(name)
    if key:
        getattr(owner, attr)[key] = value
    else:
        setattr(owner, attr, value)


def sweep(params: list[str]) -> list[dict[str, float]]:
    """The defaults, then each constant times each factor (a count rounded, a setting equal to the default dropped)."""
    out = [{}]
    for p in params:
        for f in FACTORS:
            v = round(get(p) * f) if isinstance(get(p), int) else round(get(p) * f, 4)
            if v != get(p) and {p: v} not in out:
                out.append({p: v})
    return out


class Setting:
    """The constants of a setting put in place for a `with` block, the defaults back after it."""

    def __init__(self, setting: dict[str, float]):
        self.setting, self.saved = setting, {p: get(p) for p in setting}

    def __enter__(self):
        for p, v in self.setting.items():
            put(p, v)

    def __exit__(self, *_):
        for p, v in self.saved.items():
            put(p, v)


def ranked_under(setting: dict[str, float], ctx, idx, text: str, together) -> tuple[list[str], set[str], object]:
    """The first PLACES files ranked under `setting`, those the pack would give code, and the ranking itself."""
    with Setting(setting):
        ctx.history = SimpleNamespace(result=lambda: together)   # the task's history, read once
        view = RT.view(ctx, text, [], idx)
        r = view.ranking
        chosen = set(_pack_files(r)[0])
        return [f.path for f in r.files[:PLACES]], chosen, r


def packed_under(setting: dict[str, float], ctx, idx, text: str, ranking, answer: list[str], edits: dict,
                 sizes: dict) -> dict:
    """The pack built under `setting` from the defaults' ranking, judged: answer code in it, edited lines held."""
    with Setting(setting):
        view = RT.view(ctx, text, [], idx)
        view._ranking = ranking
        pack = RT.build_pack(view)
        got = judge([f.path for f in ranking.files], pack.fragments, len(pack.text), answer, edits, sizes)
        return {"code": got["all_code"], "lines": got["lines"], "over": got["over"]}


def evaluate(git_dir: Path, n: int, n_locale: int, work: Path, settings: list[dict], pack: bool = False) -> dict:
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
            if pack:   # the pack's constants leave the ranking as it is: ranked once
                ranked, chosen, ranking = ranked_under({}, ctx, idx, text, together)
                edits = edited_lines(clone, c["parent"], c["sha"], c["answer"])
                sizes = {p: len((clone / p).read_text(errors="replace").splitlines()) for p in edits}
            for s in settings:
                if not pack:
                    ranked, chosen, _ = ranked_under(s, ctx, idx, text, together)
                row = [[ranked.index(p) + 1 if p in ranked else None for p in c["answer"]], [p in chosen for p in c["answer"]]]
                if pack:
                    row.append(packed_under(s, ctx, idx, text, ranking, c["answer"], edits, sizes))
                per.append(row)
            rows.append({"commit": c["sha"][:12], "task": text, "answer": c["answer"], "locale": bool(c["locale"]),
                         "extra": c["extra"], "per": per})
            os.chdir(old)
    finally:
        os.chdir(old)
    return {"repo": name, "group": group, "set": which, "rows": rows, "seconds": round(time.monotonic() - start, 1)}


def scores(rows: list[dict], i: int) -> dict[str, float]:
    def recall(places, k):
        return sum(p is not None and p <= k for p in places) / len(places)
    out = {"r@5": statistics.mean(recall(r["per"][i][0], 5) for r in rows),
           "r@10": statistics.mean(recall(r["per"][i][0], 10) for r in rows),
           "pack": statistics.mean(all(r["per"][i][1]) for r in rows)}
    if len(rows[0]["per"][i]) > 2:   # a --pack run: the pack built and judged
        lines = [r["per"][i][2]["lines"] for r in rows if r["per"][i][2]["lines"] is not None]
        out.update({"code": statistics.mean(r["per"][i][2]["code"] for r in rows),
                    "lines": statistics.mean(lines) if lines else 0.0,
                    "over": sum(r["per"][i][2]["over"] for r in rows)})
    return out


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
    base = [scores(rows, 0) for _, rows in groups]
    shown = ("code", "lines") if "lines" in base[0] else ("r@5", "pack")   # a --pack run: its ranking is fixed
    names = {"r@5": "r@5", "pack": "in pack", "code": "all code", "lines": "edited lines"}
    print("| setting | " + " | ".join(f"{name} ({len(rows)}) {names[shown[0]]} / {names[shown[1]]}" for name, rows in groups)
          + "".join(f" | mean {names[k]}" for k in shown) + (" | over budget" if "over" in base[0] else "") + " |")
    print("|---|" + "---|" * (len(groups) + 2 + ("over" in base[0])))
    for i, s in enumerate(settings):
        now = [scores(rows, i) for _, rows in groups]
        label = ", ".join(f"{k}={v}" for k, v in s.items()) or "defaults"
        a, b_ = shown
        cells = [f"{x[a]:.3f} / {x[b_]:.3f}" if i == 0 else
                 f"{x[a] - b[a]:+.3f} / {x[b_] - b[b_]:+.3f}" for x, b in zip(now, base)]
        print(f"| {label} | " + " | ".join(cells) + "".join(f" | {statistics.mean(x[k] for x in now):.3f}" for k in shown)
              + (f" | {sum(x['over'] for x in now)}" if "over" in now[0] else "") + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("git_dirs", nargs="*", type=Path)
    ap.add_argument("--quick", action="store_true", help="15 tasks (and 5 more locale tasks) per repository")
    ap.add_argument("--pack", action="store_true", help="sweep the pack's constants, judging the packs (edited lines)")
    ap.add_argument("--set", action="append", default=[], metavar="P=V,...", help="a setting to try (repeatable)")
    ap.add_argument("--work", type=Path, default=Path("/tmp/rt-weights"))
    ap.add_argument("--json", type=Path)
    ap.add_argument("--report", type=Path, nargs="+")
    a = ap.parse_args()
    if a.report:
        return report([json.loads(f.read_text()) for f in a.report])
    settings = ([{}] + [{k: float(v) for k, v in (kv.split("=") for kv in s.split(","))} for s in a.set] if a.set
                else sweep(PACK_PARAMS if a.pack else PARAMS))
    results = []
    for d in a.git_dirs:
        results.append(evaluate(d.resolve(), 15 if a.quick else 30, 5 if a.quick else 10, a.work, settings, a.pack))
        print(f"{results[-1]['repo']}: {len(results[-1]['rows'])} tasks, {results[-1]['seconds']} s", file=sys.stderr)
        if a.json:
            a.json.write_text(json.dumps({"settings": settings, "results": results}))
    if a.json:
        report([json.loads(a.json.read_text())])


if __name__ == "__main__":
    main()
