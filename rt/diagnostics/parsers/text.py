"""What every parser shares: cleaning a log into lines, paths made repository-relative (Windows ones
too), the `file:line[:col]` pattern, and finding a JSON value among other lines.

A parser is `parse(output, check, root) -> list[Diagnostic] | None`: None when the output holds nothing
it understands, `[]` when it shows a clean run. It raises `ToolFailure` when the output shows the tool
itself failed, `Truncated` when the log ends mid-record, `Interrupted` when the tool stopped early
after reporting what stopped it.
"""
from __future__ import annotations

import json
import os
import posixpath
import re
from collections.abc import Callable, Iterator

from rt.diagnostics.model import ANSI, Diagnostic

CI_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ", re.M)
"""The time a CI service (GitHub Actions, for one) writes before every line of a saved log."""


def lines(output: str) -> list[str]:
    """The log's lines without colour codes, CI time stamps, carriage returns or trailing blanks."""
    text = CI_STAMP.sub("", ANSI.sub("", output).replace("\r\n", "\n").replace("\r", "\n"))
    return [ln.rstrip() for ln in text.split("\n")]


def clean(output: str) -> str:
    return "\n".join(lines(output))


FILE = r"(?P<file>(?:[A-Za-z]:(?=[\\/]))?[^\s:](?:[^:\n]|:(?!\s))*?)"
"""A path as tools print it before `:line`: relative, absolute, or a Windows path with its drive colon; a colon
inside it is the name's own (`x:1.py:3:1: F821`) unless a space follows it (`warning: a.py:3:`)."""

LOCATED = re.compile(rf"^{FILE}:(?P<line>\d+)(?::(?P<col>\d+))?:\s*(?P<msg>\S.*)$")


def rel_path(path: str, root: str | None) -> str:
    """A path from a tool's output as repo-relative POSIX when it lies under `root`, else as printed
    (backslashes made slashes, so a Windows log reads like any other, unless a file under `root` is named so).
    One under `root` is spelled as rt spells it (`./src//a.py`, `src/x/../a.py`: `src/a.py`), so the baseline's
    findings and the edited file's match the tool's whatever way it joined the path."""
    path = path.strip().removeprefix("file://")
    if "\\" in path and not (root and os.path.lexists(os.path.join(root, path))):   # a file's own backslash stays
        path = path.replace("\\", "/")
    if re.match(r"^/[A-Za-z]:/", path):          # file:///C:/src/a.py
        path = path[1:]
    if root:
        base = root.replace("\\", "/").rstrip("/") + "/"
        if path.startswith("/") and posixpath.normpath(path).startswith(base):   # `<root>//a.py`, `<root>/x/../a.py`
            path = posixpath.normpath(path)
        if path.startswith(base) or path.lower().startswith(base.lower()) and re.match(r"^[A-Za-z]:/", base):
            path = path[len(base):]
    while path.startswith("./"):
        path = path[2:]
    if path and not path.startswith("/") and not re.match(r"^[A-Za-z]:/", path):   # relative to the root, where it runs
        tidy = posixpath.normpath(path)
        if tidy not in (".", "..") and not tidy.startswith("../"):   # one climbing out of the repository stays as printed
            path = tidy
    return path


def found(diags: list[Diagnostic], output: str, clean_run: bool = False) -> list[Diagnostic] | None:
    """The parse result: the diagnostics, or `[]` for a blank or recognised-clean output, else None."""
    if diags or clean_run or not output.strip():
        return diags
    return None


def first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def last_line(text: str) -> str:
    return next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")


def first_match(text: str, pattern: str) -> str:
    m = re.search(pattern, text, re.M)
    return m[0].strip() if m else first_line(text)


MAX_JSON_STARTS = 400
"""Line starts tried as the beginning of a JSON value; a log is rarely more than a few lines of noise
around its report, and a cap keeps a huge broken report from being decoded again and again."""


def json_values(output: str, opener: str = "[{") -> Iterator[object]:
    """Each JSON value that starts a line of the output (with `[` or `{`), skipping lines around it
    (an npm banner before, a Node warning after) and the values nested in one already read."""
    decoder = json.JSONDecoder()
    end = 0
    for tries, m in enumerate(re.finditer(r"^[ \t]*([\[{])", output, re.M)):
        if tries >= MAX_JSON_STARTS:
            return
        if m.start(1) < end or m[1] not in opener:
            continue
        try:
            data, end = decoder.raw_decode(output, m.start(1))
        except ValueError:
            continue
        yield data


def json_value(output: str, accept: Callable[[object], bool], opener: str = "[{"):
    """The first JSON value in the output that `accept` takes, or None."""
    return next((v for v in json_values(output, opener) if accept(v)), None)


def json_lines(output: str, accept: Callable[[dict], bool]) -> list[dict]:
    """The JSON objects of a one-object-per-line report that `accept` takes; other lines skipped."""
    out = []
    for ln in output.splitlines():
        ln = ln.strip()
        if not (ln.startswith("{") and ln.endswith("}")):
            continue
        try:
            data = json.loads(ln)
        except ValueError:
            continue
        if isinstance(data, dict) and accept(data):
            out.append(data)
    return out


def read_json(reader: Callable, data, check: str, root: str | None) -> list[Diagnostic] | None:
    """A JSON report read by `reader`; None when its shape is not the one the tool writes."""
    try:
        return reader(data, check, root)
    except (AttributeError, TypeError, ValueError, KeyError, IndexError):
        return None


def num(value) -> int:
    """A line or column from a report: a whole number, else 0."""
    try:
        return max(int(value), 0)
    except (TypeError, ValueError):
        return 0
