"""The new-versus-old diff of diagnostics, one check's run as read by its parser, and the verdict.

The diff groups diagnostics by identity (`Diagnostic.key`: file, code and normalised message; a test by
its id and kind), never by line number, so code inserted above an old error does not make it new; within
a group only the increase counts as new. Given where old lines went (a `LineMap` from a patch, or the
task's own edits), old findings are moved to their new files and lines first, so the new one of several
identical findings is the one the change added; without it, the known limit: when an old and a new
diagnostic read the same, only the increase is visible, never which one is which.
"""
from __future__ import annotations

import os
import re
import signal
from collections import Counter

from rt.core import ExitCode
from rt.diagnostics.linemap import LineMap
from rt.diagnostics.model import ANSI, Diagnostic, Interrupted, ToolFailure, normalise
from rt.diagnostics.parsers import FATAL_EXIT, FORMS, parse


class Diff:
    """What `diff` found: the new diagnostics, how many old ones were fixed and unchanged, and `changed`, the
    tests that failed before and still fail with another message, as (before, now). (Plain classes here, not
    dataclasses or named tuples: the post-edit hook builds them, and `dataclasses` imports `inspect`, `ast`
    and `dis`; a named tuple's class costs ten times a plain one's to make.)"""

    __slots__ = ("new", "fixed", "unchanged", "changed")

    def __init__(self, new: list[Diagnostic], fixed: int, unchanged: int, changed: list[tuple[Diagnostic, Diagnostic]]):
        self.new, self.fixed, self.unchanged, self.changed = new, fixed, unchanged, changed


def diff(before: list[Diagnostic], after: list[Diagnostic], renamed: dict[str, str] | None = None,
         moved: LineMap | None = None) -> Diff:
    """Diagnostics in `after` that `before` does not account for, with their current lines.

    `renamed` maps old paths to new ones (the task's renames) and `moved` says where old lines went
    (renames too), so a moved file's or line's old findings stay old; an old finding on a line the
    change edited goes to where that line is now, so the same finding there is still old. Within a
    group the new ones are those left over by an order-keeping match that moves lines the least
    (measured from where the old lines went), so the one inserted below an old twin is reported, not
    the twin.
    """
    names = renamed or {}
    groups_before: dict[tuple, list[Diagnostic]] = {}
    for d in before:
        path, line = moved.place(d.file, d.line)[:2] if moved is not None else (names.get(d.file, d.file), d.line)
        if path != d.file or line != d.line:
            d = d._replace(file=path, line=line, code=_renamed_id(d, path))
        groups_before.setdefault(d.key(), []).append(d)
    groups_after: dict[tuple, list[Diagnostic]] = {}
    for d in after:
        groups_after.setdefault(d.key(), []).append(d)
    new: list[Diagnostic] = []
    changed: list[tuple[Diagnostic, Diagnostic]] = []
    fixed = unchanged = 0
    for key in groups_before.keys() | groups_after.keys():
        was = groups_before.get(key, [])
        old = sorted(d.line for d in was)
        now = sorted(groups_after.get(key, []), key=_position)
        kept = min(len(old), len(now))
        unchanged += kept
        fixed += len(old) - kept
        if len(now) > len(old):
            new.extend(_unmatched(old, now))
        if was and now and was[0].kind and normalise(was[0].message) != normalise(now[0].message):
            changed.append((was[0], now[0]))
    return Diff(sorted(new, key=_position), fixed, unchanged, sorted(changed, key=lambda p: _position(p[1])))


def _renamed_id(d: Diagnostic, path: str) -> str:
    """A test's id after its file was renamed: ids start with the test file (`a.py::test_x`, `a.test.js >
    adds`), so the renamed file's old failures keep their identity."""
    if d.kind and d.file and path != d.file and d.code.startswith(d.file) and d.code[len(d.file):len(d.file) + 1] in ("", ":", " "):
        return path + d.code[len(d.file):]
    return d.code


def _position(d: Diagnostic) -> tuple:
    return (d.check, d.file, d.line, d.column, d.code, d.message)


_MAX_ALIGN = 250_000
"""Above this many (old x new) pairs a group's new ones are simply the last ones, not aligned."""


def _unmatched(old: list[int], now: list[Diagnostic]) -> list[Diagnostic]:
    """The `len(now) - len(old)` entries of `now` left once every old line is matched, in order, to a
    current one so that the total line movement is smallest (old lines sorted, `now` sorted by line)."""
    n, m = len(old), len(now)
    if n == 0:
        return list(now)
    if n * m > _MAX_ALIGN:
        return now[n:]
    inf = float("inf")
    # cost[i][j]: best cost matching old[:i] within now[:j]
    cost = [[0.0] * (m + 1)] + [[inf] * (m + 1) for _ in range(n)]
    for i in range(1, n + 1):
        row, prev = cost[i], cost[i - 1]
        for j in range(i, m + 1):
            row[j] = min(row[j - 1], prev[j - 1] + abs(now[j - 1].line - old[i - 1]))
    matched: set[int] = set()
    i, j = n, m
    while i > 0:
        if cost[i][j] == cost[i][j - 1] and j > i:
            j -= 1
        else:
            matched.add(j - 1)
            i, j = i - 1, j - 1
    return [d for k, d in enumerate(now) if k not in matched]


# ---------------------------------------------------------------- one check's run, and the verdict

HEAD_LINES = 8
"""How many first lines of a check's output are kept when it could not run."""


class Run:
    """One check's run as seen from its output. `status` is "ok", "findings", "partial" (findings read,
    but the tool stopped at them and checked nothing more: never evidence of passing), "could_not_run"
    or "skipped"; `reason` and `head` say why it did not run or stopped."""

    __slots__ = ("check", "required", "status", "diagnostics", "reason", "head")

    def __init__(self, check: str, required: bool, status: str, diagnostics: list[Diagnostic], reason: str = "",
                 head: str = ""):
        self.check, self.required, self.status, self.diagnostics = check, required, status, diagnostics
        self.reason, self.head = reason, head


def classify(check: str, parser: str, exit_code: int | None, output: str, root: str | None,
             required: bool = True) -> Run:
    """Read one check's output with the named parser and decide whether it ran.

    `exit_code` None means it timed out or could not start. A run counts only when its output was
    understood: a run cut short (timeout, signal), a non-zero exit with nothing parsed, a crash or a
    configuration error is `could_not_run`, never zero diagnostics, whatever it printed.
    """
    def failed(reason: str, told: bool = False) -> Run:
        """`told`: the reason says what the output's line does, so an output of that one line is not shown."""
        shown = head(output, root)
        return Run(check, required, "could_not_run", [], reason, "" if told and "\n" not in shown.strip() else shown)

    if exit_code is None:
        return failed("did not finish: timed out or could not start")
    cut = cut_short(exit_code)
    if cut:
        return failed(cut)
    if exit_code in (126, 127):
        missing = _NOT_FOUND.search(_plain(output, root))   # a shell's word for the program a script calls
        return failed(f"exit {exit_code}: program missing or not executable"
                      + (f": {missing.group(1) or missing.group(2)}" if missing else ""), told=bool(missing))
    try:
        found = parse(parser, output, check, root)
    except Interrupted as e:   # a parser's account may quote the output: a path in it is made relative here
        if not e.diagnostics:
            return failed(strip_root(str(e), root))
        return Run(check, required, "partial", e.diagnostics, strip_root(str(e), root), head(output, root))
    except ToolFailure as e:
        return failed(strip_root(str(e), root))
    if exit_code in FATAL_EXIT.get(parser, ()):
        said = error_line(output, root)
        return failed(f"exit {exit_code}: {parser} reports a failure of its own"
                      + (f": {said}" if said else " (crash, configuration or usage error)"))
    if found is None:
        if exit_code == 0:
            return Run(check, required, "ok", [])
        said = error_line(output, root)
        if said:   # the tool's own account first (a dependency it cannot fetch, a bad configuration)
            return failed(f"exit {exit_code}: {said}", told=True)
        return failed(f"exit {exit_code} and no output the {parser} parser understands (it reads: {FORMS[parser]})")
    if exit_code != 0 and not found:
        return failed(f"exit {exit_code} without any diagnostic")
    return Run(check, required, "findings" if found else "ok", found)


ERROR_LINE = 160

_NOT_FOUND = re.compile(r"^(?:\S*/)?(?:(?:ba|da)?sh: (?:line )?(?:\d+: )?([^\s:]+): (?:command )?not found"
                        r"|zsh: command not found: (\S+))$", re.MULTILINE)
"""A shell's line for a program it could not find: `sh: 1: pnpm: not found`, `bash: line 1: pnpm: command not
found`, `zsh: command not found: pnpm` (npm's scripts run `sh -c`)."""


def error_line(output: str, root: str | None = None) -> str:
    """The first line of an output saying what went wrong in the usual words (`error: ...`, `error[E0433]: ...`,
    `fatal: ...`, `ModuleNotFoundError: ...`, `/usr/bin/python3: No module named pytest`), cut to ERROR_LINE
    characters; else the output's only line (go's "reading go.work: go.work:1: invalid go version ..."); else "".
    A program named by its path is named without it (the path is the machine's)."""
    lines = [line.strip() for line in _plain(output, root).splitlines() if line.strip()]
    for text in lines:
        if text.startswith("E   "):   # pytest's mark of an exception's lines
            text = text[4:].lstrip()
        lead = text.split(":", 1)[0]
        if " " not in lead and text.startswith(lead + ": No module named "):
            text = os.path.basename(lead) + text[len(lead):]
        elif not (":" in text and (lead.lower() in ("error", "fatal", "fatal error") or lead.lower().startswith("error[")
                                   or " " not in lead and lead.endswith(("Error", "Exception")))):
            continue
        return _cut(text)
    return _cut(lines[0]) if len(lines) == 1 else ""


def _cut(text: str) -> str:
    return text if len(text) <= ERROR_LINE else text[:ERROR_LINE - 3] + "..."


def cut_short(exit_code: int) -> str:
    """Why an exit code means the run was cut short ('' when it does not): 124 from `timeout`, 128+N
    from a shell for signal N, a negative code for a signal as Python reports it."""
    if exit_code == 124:
        return "exit 124: timed out (as `timeout` reports it); what it printed is not the whole run"
    number = -exit_code if exit_code < 0 else exit_code - 128 if 128 < exit_code < 128 + 65 else 0
    if not number:
        return ""
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    return f"exit {exit_code}: killed by signal {number} ({name}); what it printed is not the whole run"


def head(output: str, root: str | None = None) -> str:
    """The first lines of an output, without colour codes and with the repository's own absolute
    path taken out, so the text stays the same on every machine."""
    lines = [ln.rstrip() for ln in _plain(output, root).strip("\n").splitlines()]
    return "\n".join(lines[:HEAD_LINES])


def strip_root(text: str, root: str | None) -> str:
    """`text` without the repository's own absolute path, so it stays the same on every machine: a path under it
    made relative, the folder itself (cargo's "package `bat v0.26.1 (/home/me/bat)`") made `.`."""
    if not root:
        return text
    base = root.rstrip("/")
    return re.sub(re.escape(base) + r"(?![\w.-])", ".", text.replace(base + "/", ""))


def _plain(output: str, root: str | None) -> str:
    """An output without colour codes and without the repository's own absolute path."""
    return strip_root(ANSI.sub("", output), root)


def verdict(runs: list[Run], new_count: int, scope_ok: bool = True) -> str:
    """FAIL when anything new appeared or scope broke; INCOMPLETE when a required check did not run
    (or none ran at all); PASS otherwise."""
    if new_count > 0 or not scope_ok:
        return "FAIL"
    if not runs or any(r.required and r.status in ("could_not_run", "skipped", "partial") for r in runs):
        return "INCOMPLETE"
    return "PASS"


VERDICT_EXIT = {"PASS": ExitCode.OK, "FAIL": ExitCode.FINDING, "INCOMPLETE": ExitCode.INCOMPLETE}


# ---------------------------------------------------------------- reporting (shared by diff-logs and verify)

KNOWN_LIMIT = "identical messages are compared by count: only an increase is visible, and its line may be an old one's"


def new_entries(result: Diff, before: list[Diagnostic]) -> list[dict]:
    """New diagnostics grouped by (check, file, code, normalised message), each with its current lines,
    how many are new and whether identical ones were there before (the known limit applies)."""
    old = Counter(d.key() for d in before)
    groups: dict[tuple, list[Diagnostic]] = {}
    for d in result.new:
        groups.setdefault(d.key(), []).append(d)
    out = []
    for key, ds in groups.items():
        first = ds[0]
        out.append({"check": first.check, "file": first.file, "line": first.line, "column": first.column,
                    "lines": [d.line for d in ds], "code": first.code, "severity": first.severity,
                    "kind": first.kind, "message": first.message, "detail": first.detail, "count": len(ds),
                    "same_before": old[key]})
    return sorted(out, key=lambda e: (e["check"], e["file"], e["line"], e["column"], e["code"], e["message"]))


DETAILS_SHOWN = 3
"""Failing tests whose explaining lines (assertion, `E` lines) a report shows; the rest by one line."""


def format_entry(e: dict, detail: bool = False) -> str:
    """One new diagnostic group as a line: `file:line:col code message` (a test: `code (failed) message`),
    then `(xN)` and any twins before; with `detail`, a test's explaining lines under it."""
    where = e["file"] or "(no file)"
    if e["line"]:
        where += f":{e['line']}" + (f":{e['column']}" if e["column"] else "")
    code = f"{e['code']} ({e['kind']})" if e.get("kind") else e["code"]
    text = " ".join(part for part in (where, code, e["message"]) if part)
    if e["count"] > 1:
        text += f"  (x{e['count']} new, lines {', '.join(map(str, e['lines']))})"
    if e["same_before"]:
        text += f"  [{e['same_before']} identical before]"
    if detail:
        text += "".join(f"\n    | {ln}" for ln in explaining(e["message"], e.get("detail", "")))
    return text


def explaining(message: str, detail: str) -> list[str]:
    """A failure's explaining lines as a report shows them, without the one that repeats its message (alone,
    after pytest's `E`, or after a `file:line:` as `go test` prints it)."""
    return [ln for ln in detail.splitlines()
            if ln not in (message, f"E {message}") and not (ln.strip().endswith(f": {message}")
                                                           and ln.strip()[:-len(message) - 2].rpartition(":")[2].isdigit())]


def format_changed(now: Diagnostic) -> str:
    """A test that failed before and still fails, with its new message (not a new failure)."""
    return f"still failing, message changed: {now.code} ({now.kind}): {now.message}"


def format_run(run: Run, label: str = "") -> list[str]:
    """A check that did not run or stopped early, with its reason and first lines of output; nothing for
    one that ran."""
    if run.status not in ("could_not_run", "skipped", "partial"):
        return []
    what = {"skipped": "was skipped", "partial": "stopped early"}.get(run.status, "could not run")
    lines = [f"{run.check}{label} {what}" + ("" if run.required else " (optional)") + f": {run.reason}"]
    lines += [f"  | {ln}" for ln in run.head.splitlines()]
    return lines
