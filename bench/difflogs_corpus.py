"""`rt diff-logs` measured on a corpus of real tool outputs: per tool and form, new-finding recall and
precision, verdict accuracy, INCOMPLETE cases reported PASS, and report bytes over raw bytes.

The corpus is a folder of logs captured from real runs of each tool on real projects with scenario
edits (findings added, fixed, shifted by inserted lines, in a renamed file, identical findings added, a
configuration broken, a timeout, a crash, a missing program), described by its MANIFEST.json: each
after-log names its before-log, its exit code, the patch of the scenario and the expected verdict and
new findings. The logs hold third-party code, so they stay out of this repository: give the folder.

    python3 bench/difflogs_corpus.py /path/to/corpus [--parser auto|named] [--details] [--json]

Each case runs `rt diff-logs BEFORE AFTER --before-exit N --after-exit N [--diff PATCH] --root R --json`
in-process (and once more without --json for the report's bytes). `--parser named` gives the tool's
parser instead of `auto`. The root is the folder the logs' absolute paths start with (what a user gives
as `--root`), found as the prefix in front of the expected files' paths in the log. The figures are also given with
the logs judged by their text alone (no exit codes), which is what a log without its job status allows.
"""
from __future__ import annotations

import argparse
import collections
import contextlib
import io
import json
import os
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rt.cli import main  # noqa: E402
from rt.diagnostics.parsers import PARSERS  # noqa: E402

SHARED_FORMS = {"junit": "junit", "sarif": "sarif", "github": "github", "azure": "github"}


def named(tool: str, form: str) -> str:
    """The parser a user names for a corpus tool and form: `go-test` -> go, `cargo-clippy` -> cargo,
    `tsc5` -> tsc; a JUnit, SARIF or annotation form -> that form's parser."""
    base = tool.split("-")[0]
    return SHARED_FORMS.get(form.split("-")[0]) or (base if base in PARSERS else re.sub(r"\d+$", "", base))


def rt(*args: str, cwd: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    old = os.getcwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        os.chdir(old)
    return code, out.getvalue() or err.getvalue()


def roots(corpus: Path, logs: list[dict]) -> dict[str, str]:
    """The absolute folder each log prints before its repository-relative paths (log -> folder): the
    prefix found in front of the project's expected files in that log, else the project's usual one."""
    files: dict[str, set[str]] = collections.defaultdict(set)
    for e in logs:
        for n in (e.get("expected") or {}).get("new", []):
            if n.get("file"):
                files[e["project"]].add(n["file"])
    per_log: dict[str, str] = {}
    per_project: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for e in logs:
        text = (corpus / e["log"]).read_text("utf-8", "replace")
        found: collections.Counter = collections.Counter()
        for f in files[e["project"]]:
            tail = re.escape(f).replace("/", r"[/\\]")
            for m in re.finditer(r"((?<![\w/])(?:[A-Za-z]:)?[/\\][^:'\"`()\[\]<>,;\n]*?)[/\\]" + tail, text):
                found[m[1]] += 1
        if found:
            per_log[e["log"]] = found.most_common(1)[0][0]
            per_project[e["project"]][per_log[e["log"]]] += 1
    usual = {p: c.most_common(1)[0][0] for p, c in per_project.items()}
    return {e["log"]: per_log.get(e["log"]) or usual.get(e["project"], "") for e in logs}


def _words(code: str) -> str:
    return " ".join(re.split(r"::| > | › |[.\s/]+", code)).strip()


def matches(exp: dict, got: dict) -> bool:
    """A reported new finding is the expected one: same file and line and code (any code, when the form
    names none: cargo's human and short forms name a lint only in its first note); a test by its file and name."""
    if exp.get("kind") in ("failed", "error") and got.get("kind"):
        same_file = not exp.get("file") or not got["file"] or exp["file"] == got["file"]
        title = _words(re.split(r"::| > ", exp["code"])[-1])
        return same_file and (got["code"] == exp["code"] or _words(got["code"]).endswith(title))
    return (got["file"] == exp.get("file", "") and got["line"] == exp.get("line", 0)
            and (not exp.get("code") or not got["code"] or got["code"] == exp["code"]))


def run_case(corpus: Path, work: str, e: dict, before: dict, root: str | None, parser: str, exits: bool) -> dict:
    args = [str(corpus / before["log"]), str(corpus / e["log"]), "--parser", parser]
    if exits:
        args += ["--before-exit", str(before["exit_code"]), "--after-exit", str(e["exit_code"])]
    if e["expected"].get("patch"):
        args += ["--diff", str(corpus / e["expected"]["patch"])]
    if root:
        args += ["--root", root]
    code, text = rt("diff-logs", *args, cwd=work)
    _, data = rt("diff-logs", *args, "--json", cwd=work)
    try:
        got = json.loads(data)
    except ValueError:
        got = {"verdict": f"error: {data.strip()[:200]}", "new": []}
    reported = [dict(n, line=ln) for n in got.get("new", []) for ln in n.get("lines", [n["line"]])]
    expected = e["expected"]["new"]
    left = list(reported)
    hit = 0
    for x in expected:
        m = next((g for g in left if matches(x, g)), None)
        if m is not None:
            left.remove(m)
            hit += 1
    return {"log": e["log"], "verdict": got.get("verdict"), "want": e["expected"]["verdict"], "expected": len(expected),
            "found": hit, "reported": len(reported), "wrong": [f"{g['file']}:{g['line']} {g['code']}" for g in left],
            "missed": len(expected) - hit, "report_bytes": len(text.encode()),
            "raw_bytes": (corpus / e["log"]).stat().st_size, "chosen": got.get("chosen")}


def main_(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--parser", choices=["auto", "named"], default="auto")
    ap.add_argument("--details", action="store_true", help="list every case that missed")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    manifest = json.loads((args.corpus / "MANIFEST.json").read_text())
    logs = manifest["logs"]
    by_log = {e["log"]: e for e in logs}
    cases = [e for e in logs if e.get("expected") and e.get("before") in by_log]
    root_of = roots(args.corpus, logs)
    rows: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
    blind: dict[tuple[str, str], list[dict]] = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as work:
        for e in cases:
            before = by_log[e["before"]]
            form = e["form"]
            parser = "auto" if args.parser == "auto" else named(e["tool"], form)
            key = (e["tool"], form)
            root = root_of.get(e["log"]) or root_of.get(before["log"])
            rows[key].append(run_case(args.corpus, work, e, before, root, parser, True))
            blind[key].append(run_case(args.corpus, work, e, before, root, parser, False))
    table = []
    for key in sorted(rows):
        table.append(summary(key, rows[key], blind[key]))
    table.append(summary(("all", ""), [r for v in rows.values() for r in v], [r for v in blind.values() for r in v]))
    if args.json:
        print(json.dumps({"rows": table, "cases": {f"{k[0]}/{k[1]}": v for k, v in rows.items()}}, indent=1))
        return 0
    print("| tool | form | cases | recall | precision | verdict | INCOMPLETE as PASS | report/raw | without exit codes: verdict, INCOMPLETE as PASS |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t in table:
        print(f"| {t['tool']} | {t['form']} | {t['cases']} | {t['recall']} | {t['precision']} | {t['verdict']} | "
              f"{t['silent']} | {t['ratio']} | {t['blind_verdict']}, {t['blind_silent']} |")
    if args.details:
        for key, rs in sorted(rows.items()):
            for r in rs:
                if r["verdict"] != r["want"] or r["missed"] or r["wrong"]:
                    print(f"- {r['log']}: {r['verdict']} (want {r['want']}); missed {r['missed']} of {r['expected']};"
                          f" wrong {r['wrong'][:3]}; chosen {r['chosen']}")
    return 0


def pct(a: int, b: int) -> str:
    return "n/a" if not b else f"{100 * a / b:.1f} %"


def summary(key: tuple[str, str], rs: list[dict], blind: list[dict]) -> dict:
    expected = sum(r["expected"] for r in rs)
    found = sum(r["found"] for r in rs)
    reported = sum(r["reported"] for r in rs)
    correct = sum(r["found"] for r in rs)
    return {"tool": key[0], "form": key[1], "cases": len(rs), "recall": pct(found, expected),
            "precision": pct(correct, reported) if reported else "n/a",
            "verdict": pct(sum(r["verdict"] == r["want"] for r in rs), len(rs)),
            "silent": sum(r["want"] == "INCOMPLETE" and r["verdict"] == "PASS" for r in rs),
            "ratio": f"{sum(r['report_bytes'] for r in rs) / max(1, sum(r['raw_bytes'] for r in rs)):.3f}",
            "blind_verdict": pct(sum(r["verdict"] == r["want"] for r in blind), len(blind)),
            "blind_silent": sum(r["want"] == "INCOMPLETE" and r["verdict"] == "PASS" for r in blind)}


if __name__ == "__main__":
    sys.exit(main_(sys.argv[1:]))
