"""`rt find` on web apps with many locale files: does its answer lead with the source (English) file, and do the
key's uses point there? This checkout against another rt (a base), on the same texts, in one run.

    python3 bench/find_locales.py TREE [TREE ...] --against BASE [--texts 12] [--runs 3]

For each TREE (a git repository with its `.rt/index` built or not: the first run builds it) the texts are the
source locale file's own: every k-th string value of two to six words, `--texts` of them, from the largest source
locale file, JSON or gettext (`i18n.is_source_locale`, not a regional copy). Each text is looked up with both rts as fresh processes
(`RT_HOOK_SERVER=0`), alternating, `--runs` times. Per tree: the median size of the answer (characters, lines);
in how many answers the first row is a line of the source file; how many answers show a key's use (rows are cut
at 40), and in how many of those every such row says "translation at" the source file; CPU medians (user + system)
of each rt.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from rt.index import i18n  # noqa: E402


def texts(tree: Path, n: int) -> tuple[str, list[str]]:
    """The largest source locale file of `tree` and `n` of its texts, evenly spaced."""
    paths = subprocess.run(["git", "ls-files"], cwd=tree, capture_output=True, text=True, check=True).stdout.split("\n")
    sources = [p for p in paths if p.endswith((".json", ".po")) and i18n.is_source_locale(p)
               and not i18n.regional_copy(p, paths)]
    source = max(sources, key=lambda p: (tree / p).stat().st_size)
    values = [v for _, v, _ in i18n.entries(source, (tree / source).read_text(errors="replace"))
              if isinstance(v, str) and 2 <= len(v.split()) <= 6 and v.isprintable() and "{" not in v and "<" not in v]
    step = max(1, len(values) // n)
    return source, values[::step][:n]


def run(rt: Path, tree: Path, text: str) -> tuple[str, float]:
    env = dict(os.environ, PYTHONPATH=str(rt), RT_HOOK_SERVER="0")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-m", "rt", "find", text], cwd=tree, env=env, capture_output=True,
                         text=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return out, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def judge(out: str, source: str) -> dict:
    rows = out.splitlines()
    uses = [r for r in rows if " uses key " in r or " names key " in r]
    return {"chars": len(out), "rows": len(rows), "first": bool(rows) and rows[0].startswith(source + ":"),
            "uses": bool(uses), "at_source": bool(uses) and all(f"(translation at {source}:" in r for r in uses)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", type=Path, nargs="+")
    ap.add_argument("--against", type=Path, required=True, help="the base rt's checkout")
    ap.add_argument("--texts", type=int, default=12)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args()
    rts = {"base": a.against.resolve(), "this": HERE}
    report = []
    print("| tree | texts | rt | median chars (rows) | source file's row first | answers showing a key's use: all "
          "naming the source file | CPU ms median |\n|---|---|---|---|---|---|---|")
    for tree in a.trees:
        source, chosen = texts(tree, a.texts)
        run(HERE, tree, chosen[0])   # the index, built or brought up to date once
        got = {who: {"judged": [], "cpu": []} for who in rts}
        for i in range(a.runs):
            for text in chosen:
                for who in (rts if i % 2 == 0 else reversed(list(rts))):
                    out, cpu = run(rts[who], tree, text)
                    got[who]["cpu"].append(cpu)
                    if i == 0:
                        got[who]["judged"].append(judge(out, source))
        for who in rts:
            j = got[who]["judged"]
            with_uses = [x for x in j if x["uses"]]
            row = {"tree": tree.name, "source": source, "rt": who, "texts": len(j),
                   "chars": statistics.median(x["chars"] for x in j), "rows": statistics.median(x["rows"] for x in j),
                   "first": sum(x["first"] for x in j), "uses": len(with_uses),
                   "at_source": sum(x["at_source"] for x in with_uses),
                   "cpu_ms": 1000 * statistics.median(got[who]["cpu"])}
            report.append(row)
            print(f"| {tree.name} | {row['texts']} | {who} | {row['chars']:.0f} ({row['rows']:.0f}) | {row['first']} | "
                  f"{row['at_source']} of {row['uses']} | {row['cpu_ms']:.0f} |")
    if a.json:
        a.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
