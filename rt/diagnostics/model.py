"""Diagnostics as data: one record shape for every tool, and what makes two messages the same.

Parsers build these records; the diff compares them. Both import this module, never each other.
"""
from __future__ import annotations

import re
from collections import namedtuple
from functools import lru_cache


class Diagnostic(namedtuple("Diagnostic", "check file line column code severity message kind detail",
                            defaults=("", ""))):
    """One finding. `file` is repo-relative POSIX ('' when none), `code` the rule or code ('' when none).

    For test runners `code` is the test id (unique in the run), `kind` "failed" or "error", `file` the
    test file (or where the failure was read), `message` the first assertion line and `detail` the lines
    that explain the failure (the assertion's source line, `E` lines; capped, never part of identity).
    A named tuple, not a dataclass: the post-edit hook builds these, and `dataclasses` (with `inspect`,
    `ast`, `dis`) would cost it more than its own work.
    """

    __slots__ = ()

    def key(self) -> tuple[str, str, str, str]:
        """Identity across runs: a test by its id and kind (its text may change while it still fails),
        any other finding by its file, code and message without volatile parts."""
        if self.kind and self.code:
            return (self.check, "", self.code, self.kind)
        return (self.check, self.file, self.code, normalise(self.message))


# Order matters: timestamps before times before durations; temp paths before `file:line` references.
_VOLATILE: list[tuple[str, int, str]] = [
    (r"(?:[A-Za-z]:)?[\\/](?:private[\\/])?(?:tmp|var[\\/]folders|var[\\/]tmp|Temp)[\\/][^\s'\"`()\[\]<>,;]*"
     r"|pytest-of-[^\s'\"`()\[\]<>,;]*", 0, "<tmp>"),
    (r"\b0x[0-9a-fA-F]{4,}\b", 0, "0x?"),
    (r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b", 0, "<uuid>"),
    (r"\b1\d{12}\b", 0, "<time>"),     # milliseconds since 1970, as Date.now() prints them
    (r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?", 0, "<time>"),
    (r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b", 0, "<time>"),
    (r"\b\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|secs?|seconds?|min|minutes?)\b", 0, "<dur>"),
    (r"\b(lines?|ln|row) \d+(?:\s?[-–]\s?\d+)?", re.I, r"\1 N"),
    (r"'((?:Async)?(?:TryExcept|TryFinally|Try|If|For|While|With|Match)) \d+'", 0, r"'\1 N'"),  # mccabe
    # C901, R0912, ruff's PLR0913 (`Too many arguments in function definition (6 > 5)`), eslint's max-depth
    (r"\b(too complex|too many \w+(?: \w+){0,3}|nested too deeply) \(\d+(?:\s*[>/]\s*\d+)?\)", re.I, r"\1 (N)"),
    (r"\b(has a complexity of) \d+", re.I, r"\1 N"),                  # eslint's complexity
    (r"(\.[A-Za-z0-9]{1,5})(?::\d+){1,2}\b|(\.[A-Za-z0-9]{1,5})\((\d+),(\d+)\)", 0, r"\1\2:N"),
    (r"(?<!\S)_(?: _){2,}(?!\S)", 0, " "),  # pytest's frame separators `_ _ _`
    (r"\s+", 0, " "),
]


@lru_cache(maxsize=1)
def _volatile() -> list[tuple[re.Pattern, str]]:
    """The patterns above, compiled at the first message compared: a post-edit hook on a file without
    findings compiles none of them."""
    return [(re.compile(pattern, flags), repl) for pattern, flags, repl in _VOLATILE]


def normalise(message: str) -> str:
    """The message with volatile parts replaced: temp paths, addresses, UUIDs, timestamps, durations,
    line numbers, frame separators.

    A final full stop goes too (some tools print it in one output format and not in another), and so
    does a final `...` (where a summary line was cut to the terminal's width)."""
    for rx, repl in _volatile():
        message = rx.sub(repl, message)
    return message.strip().removesuffix("...").removesuffix(".")



class ToolFailure(Exception):
    """Raised by a parser when the output shows the tool itself failed (crash, configuration, usage)."""


class Truncated(ToolFailure):
    """Raised by a parser when the log ends mid-record or before the tool's closing lines: the run was
    cut short, so what it never reached must not look fixed."""


class Interrupted(ToolFailure):
    """Raised by a parser when the tool reported what stopped it (a collection error, a blocking syntax
    error) and checked nothing more: the findings it read count, but finding nothing new is no pass."""

    def __init__(self, reason: str, diagnostics: list[Diagnostic]):
        super().__init__(reason)
        self.diagnostics = diagnostics


DETAIL_LINES = 8
DETAIL_WIDTH = 160
"""A test's explaining lines are capped: at most this many, each cut to this width."""


def cap_detail(lines: list[str]) -> str:
    """The explaining lines of a failure, capped in number and width (value per byte, byte-stable)."""
    kept = [ln if len(ln) <= DETAIL_WIDTH else ln[:DETAIL_WIDTH - 3] + "..." for ln in lines if ln.strip()]
    if len(kept) > DETAIL_LINES:
        kept = kept[:DETAIL_LINES - 1] + [f"... ({len(kept) - DETAIL_LINES + 1} more lines)"]
    return "\n".join(kept)


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>]")
"""Terminal colour, link and character-set codes, which some tools print even into a pipe."""
