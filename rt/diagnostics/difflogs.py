"""`rt diff-logs`: the new-diagnostics diff and verdict applied to two saved outputs, say two CI logs,
so anyone can use the diff without rt running the checks.

`--parser auto` tells the tool and form from each log and says which it chose; `--diff PATCH` or
`--git A..B` says where the old files and lines went, so findings that moved with a renamed file or
under inserted lines stay old.
"""
from __future__ import annotations

import argparse
import os
import re

from rt.core import Result, UsageError, decode, git
from rt.diagnostics.diff import (DETAILS_SHOWN, KNOWN_LIMIT, VERDICT_EXIT, Run, classify, diff, format_changed,
                                 format_entry, format_run, head, new_entries, verdict)
from rt.diagnostics.linemap import LineMap, from_patch
from rt.diagnostics.model import ToolFailure
from rt.diagnostics.parsers import FATAL_EXIT, FORMS, PARSERS, parse, sniff

MAX_LOG_BYTES = 64_000_000
"""Saved logs may be far larger than source files; past this they are refused rather than read."""


def args_diff_logs(p: argparse.ArgumentParser) -> None:
    p.add_argument("before", metavar="BEFORE", help="saved output of the check before the change")
    p.add_argument("after", metavar="AFTER", help="saved output of the same check after the change")
    p.add_argument("--parser", default="auto", choices=["auto", *sorted(PARSERS)],
                   help="which tool printed the logs (default auto: told from the logs, and said)")
    p.add_argument("--before-exit", type=int, metavar="N",
                   help="exit code of the run that printed BEFORE (default: judged from the output alone)")
    p.add_argument("--after-exit", type=int, metavar="N", help="exit code of the run that printed AFTER")
    p.add_argument("--root", metavar="DIR",
                   help="absolute folder the logs' paths start with, to show them relative (default: the repository)")
    moved = p.add_mutually_exclusive_group()
    moved.add_argument("--diff", metavar="PATCH", help="the change as a patch file (as git writes it, with -M): "
                                                       "findings in renamed files and under inserted lines stay old")
    moved.add_argument("--git", metavar="A..B", help="the change between two git revisions, instead of a patch file")


def read_log(path: str, which: str) -> str:
    """A log's text (each line UTF-8, else Latin-1); refuses a missing, unreadable, binary or huge file with a
    one-line reason."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOG_BYTES + 1)
    except OSError as e:
        raise UsageError(f"cannot read the {which} {path}: {e.strerror or e}; "
                         "give the path of a saved text file") from None
    if len(data) > MAX_LOG_BYTES:
        raise UsageError(f"the {which} {path} is over {MAX_LOG_BYTES // 1_000_000} MB; "
                         "cut it to the check's output")
    if b"\x00" in data[:8192]:
        raise UsageError(f"the {which} {path} is binary, not a text log; save the check's printed output instead")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:   # line by line: one stray byte must not turn every other line's `é` into `Ã©`
        return "".join(map(decode, data.splitlines(keepends=True)))


def implied_exit(parser: str, output: str, root: str) -> int | None:
    """The exit code a log implies: 0 when it reads clean, else the tool's first code for findings (1,
    or 2 for pylint, whose 1 means a fatal error), with which classify tells findings from a tool that
    failed; None when the parser understands none of it."""
    findings = next(n for n in range(1, 64) if n not in FATAL_EXIT.get(parser, ()))
    try:
        parsed = parse(parser, output, parser, root)
    except ToolFailure:
        return findings
    return None if parsed is None else findings if parsed else 0


def judge(parser: str, output: str, exit_code: int | None, root: str, check: str) -> Run:
    """One log as a check run; without its exit code, a log the parser cannot read counts as not run."""
    if exit_code is None and not output.strip():   # cut at nothing, or a run that never started: no clean run
        return Run(check, True, "could_not_run", [], "the log is empty (a tool that prints nothing when clean: give "
                                                     "its exit code, --before-exit / --after-exit)", "")
    if exit_code is None:
        exit_code = implied_exit(parser, output, root)
        if exit_code is None:
            return Run(check, True, "could_not_run", [],
                       f"not a form the {parser} parser reads (it reads: {FORMS[parser]})", head(output, root))
    return classify(check, parser, exit_code, output, root)


def choose(logs: dict[str, str]) -> tuple[dict[str, str], str]:
    """The parser of each log under `--parser auto`, and the line that says what was chosen. A log
    that tells nothing (empty, or the tool's usual clean line only) takes the other log's parser."""
    seen = {which: sniff(text) for which, text in logs.items()}
    known = [s for s in seen.values() if s]
    if not known:
        return {}, "parser auto: could not tell which tool printed these logs (name it with --parser)"
    chosen = {which: (s or known[0])[0] for which, s in seen.items()}
    said = [f"{which} log: {s[0]} ({s[1]})" if s else f"{which} log: {known[0][0]} (as the other log)"
            for which, s in seen.items()]
    if len({s for s in chosen.values()}) == 1 and len({s for s in seen.values() if s}) == 1:
        return chosen, f"parser auto: {known[0][0]} ({known[0][1]})"
    return chosen, "parser auto: " + "; ".join(said)


def line_map(ctx, args, root: str) -> LineMap | None:
    """Where old files and lines went, from `--diff PATCH` or `--git A..B`; None without either."""
    if args.diff:
        return from_patch(read_log(args.diff, "patch"))
    if not args.git:
        return None
    revs = re.fullmatch(r"([^.\s][^\s]*?)\.\.\.?([^.\s]\S*)", args.git)
    if not revs or any(r.startswith("-") for r in revs.groups()):
        raise UsageError(f"--git takes two revisions as A..B, not {args.git!r}")
    out = git(ctx.repo.root, "diff", "-M", "--no-color", "--no-ext-diff", revs[1], revs[2], "--")
    if out is None:
        raise UsageError(f"git could not diff {args.git} here (not a git repository, or an unknown revision)")
    return from_patch(decode(out))


def cmd_diff_logs(ctx, args) -> Result:
    root = args.root if args.root and re.match(r"^[A-Za-z]:[\\/]", args.root) else \
        os.path.abspath(args.root) if args.root else str(ctx.repo.root)
    logs = {which: read_log(path, f"{which} log") for which, path in (("before", args.before), ("after", args.after))}
    moved = line_map(ctx, args, root)
    said = ""
    if args.parser == "auto":
        parsers, said = choose(logs)
        if not parsers:
            runs = [Run("auto", True, "could_not_run", [], said.removeprefix("parser auto: "), head(logs[w], root))
                    for w in ("before", "after")]
            return _report(args, runs, None, said, "auto")
    else:
        parsers = {"before": args.parser, "after": args.parser}
    label = parsers["after"] if parsers["before"] == parsers["after"] else "auto"
    runs = [judge(parsers["before"], logs["before"], args.before_exit, root, label),
            judge(parsers["after"], logs["after"], args.after_exit, root, label)]
    return _report(args, runs, moved, said, label)


def _report(args, runs: list[Run], moved: LineMap | None, said: str, label: str) -> Result:
    both_ran = all(r.status in ("ok", "findings", "partial") for r in runs)
    result = diff(runs[0].diagnostics, runs[1].diagnostics, moved=moved) if both_ran else None
    entries = new_entries(result, runs[0].diagnostics) if result else []
    new_count = len(result.new) if result else 0
    outcome = verdict(runs, new_count)
    if result:
        title = (f"{outcome}: {new_count} new, {result.fixed} fixed, {result.unchanged} unchanged "
                 f"({label}: {len(runs[0].diagnostics)} before, {len(runs[1].diagnostics)} after)")
    else:
        title = f"{outcome}: no diff, a log could not be read as {label} output"
    lines = [title] + ([said] if said else [])
    lines += [format_entry(e, detail=i < DETAILS_SHOWN) for i, e in enumerate(entries)]
    lines += [format_changed(now) for _, now in (result.changed if result else [])]
    for which, r in zip(("before", "after"), runs):
        lines += format_run(r, f" ({which} log)")
    if any(e["same_before"] for e in entries) and moved is None:
        lines.append(f"note: {KNOWN_LIMIT}")
    data = {
        "verdict": outcome,
        "parser": label if args.parser == "auto" else args.parser,
        "chosen": said.removeprefix("parser auto: ") or None,
        "new": [{k: e[k] for k in ("file", "line", "column", "lines", "code", "severity", "kind", "message", "detail",
                                   "count", "same_before")} for e in entries],
        "changed": [{"code": now.code, "kind": now.kind, "before": old.message, "message": now.message}
                    for old, now in (result.changed if result else [])],
        "fixed": result.fixed if result else None,
        "unchanged": result.unchanged if result else None,
        "logs": {which: {"status": r.status, "diagnostics": len(r.diagnostics), "reason": r.reason, "head": r.head}
                 for which, r in zip(("before", "after"), runs)},
    }
    return Result("\n".join(lines), data, VERDICT_EXIT[outcome])
