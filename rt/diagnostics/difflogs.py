"""`rt diff-logs`: the new-diagnostics diff and verdict applied to two saved outputs, say two CI logs,
so anyone can use the diff without rt running the checks.
"""
from __future__ import annotations

import argparse
import os

from rt.core import Result, UsageError, decode
from rt.diagnostics.diff import (KNOWN_LIMIT, VERDICT_EXIT, Run, classify, diff, format_entry, format_run, head,
                                 new_entries, verdict)
from rt.diagnostics.model import ToolFailure
from rt.diagnostics.parsers import PARSERS

MAX_LOG_BYTES = 64_000_000
"""Saved logs may be far larger than source files; past this they are refused rather than read."""


def args_diff_logs(p: argparse.ArgumentParser) -> None:
    p.add_argument("before", metavar="BEFORE", help="saved output of the check before the change")
    p.add_argument("after", metavar="AFTER", help="saved output of the same check after the change")
    p.add_argument("--parser", required=True, choices=sorted(PARSERS), help="which tool printed the logs")
    p.add_argument("--before-exit", type=int, metavar="N",
                   help="exit code of the run that printed BEFORE (default: judged from the output alone)")
    p.add_argument("--after-exit", type=int, metavar="N", help="exit code of the run that printed AFTER")
    p.add_argument("--root", metavar="DIR",
                   help="absolute folder the logs' paths start with, to show them relative (default: the repository)")


def read_log(path: str, which: str) -> str:
    """A log's text; refuses a missing, unreadable, binary or huge file with a one-line reason."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOG_BYTES + 1)
    except OSError as e:
        raise UsageError(f"cannot read the {which} log {path}: {e.strerror or e}; "
                         "give the path of a saved text log") from None
    if len(data) > MAX_LOG_BYTES:
        raise UsageError(f"the {which} log {path} is over {MAX_LOG_BYTES // 1_000_000} MB; "
                         "cut it to the check's output")
    if b"\x00" in data[:8192]:
        raise UsageError(f"the {which} log {path} is binary, not a text log; save the check's printed output instead")
    return decode(data)


def implied_exit(parser: str, output: str, root: str) -> int | None:
    """The exit code a log implies: 0 when it reads clean, 1 for findings or a tool that failed
    (classify tells which), None when the parser understands none of it."""
    try:
        parsed = PARSERS[parser](output, parser, root)
    except ToolFailure:
        return 1
    return None if parsed is None else int(bool(parsed))


def judge(parser: str, output: str, exit_code: int | None, root: str) -> Run:
    """One log as a check run; without its exit code, a log the parser cannot read counts as not run."""
    if exit_code is None:
        exit_code = implied_exit(parser, output, root)
        if exit_code is None:
            return Run(parser, True, "could_not_run", [], f"the {parser} parser understands none of this log",
                       head(output, root))
    return classify(parser, parser, exit_code, output, root)


def cmd_diff_logs(ctx, args) -> Result:
    root = os.path.abspath(args.root) if args.root else str(ctx.repo.root)
    logs = {which: read_log(path, which) for which, path in (("before", args.before), ("after", args.after))}
    runs = [judge(args.parser, logs["before"], args.before_exit, root),
            judge(args.parser, logs["after"], args.after_exit, root)]
    both_ran = all(r.status in ("ok", "findings") for r in runs)
    result = diff(runs[0].diagnostics, runs[1].diagnostics) if both_ran else None
    entries = new_entries(result, runs[0].diagnostics) if result else []
    new_count = len(result.new) if result else 0
    outcome = verdict(runs, new_count)
    if result:
        title = (f"{outcome}: {new_count} new, {result.fixed} fixed, {result.unchanged} unchanged "
                 f"({args.parser}: {len(runs[0].diagnostics)} before, {len(runs[1].diagnostics)} after)")
    else:
        title = f"{outcome}: no diff, a log could not be read as {args.parser} output"
    lines = [title] + [format_entry(e) for e in entries]
    for which, r in zip(("before", "after"), runs):
        lines += format_run(r, f" ({which} log)")
    if any(e["same_before"] for e in entries):
        lines.append(f"note: {KNOWN_LIMIT}")
    data = {
        "verdict": outcome,
        "parser": args.parser,
        "new": [{k: e[k] for k in ("file", "line", "column", "lines", "code", "severity", "message", "count",
                                   "same_before")} for e in entries],
        "fixed": result.fixed if result else None,
        "unchanged": result.unchanged if result else None,
        "logs": {which: {"status": r.status, "diagnostics": len(r.diagnostics), "reason": r.reason, "head": r.head}
                 for which, r in zip(("before", "after"), runs)},
    }
    return Result("\n".join(lines), data, VERDICT_EXIT[outcome])
