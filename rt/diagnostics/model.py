"""Diagnostics as data: one record shape for every tool, and what makes two messages the same.

Parsers build these records; the diff compares them. Both import this module, never each other.
"""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Diagnostic:
    """One finding. `file` is repo-relative POSIX ('' when none), `code` the rule or code ('' when none).

    For test runners `file` is the test file, `code` the test id and `message` the first assertion line.
    """
    check: str
    file: str
    line: int
    column: int
    code: str
    severity: str
    message: str

    def key(self) -> tuple[str, str, str, str]:
        return (self.check, self.file, self.code, normalise(self.message))


# Order matters: timestamps before times before durations; temp paths before `file:line` references.
_VOLATILE: list[tuple[re.Pattern, str]] = [
    (re.compile(r"(?:[A-Za-z]:)?[\\/](?:private[\\/])?(?:tmp|var[\\/]folders|var[\\/]tmp|Temp)[\\/][^\s'\"`()\[\]<>,;]*"
                r"|pytest-of-[^\s'\"`()\[\]<>,;]*"), "<tmp>"),
    (re.compile(r"\b0x[0-9a-fA-F]{4,}\b"), "0x?"),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<uuid>"),
    (re.compile(r"\b1\d{12}\b"), "<time>"),     # milliseconds since 1970, as Date.now() prints them
    (re.compile(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"), "<time>"),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<time>"),
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|us|µs|ns|s|secs?|seconds?|min|minutes?)\b"), "<dur>"),
    (re.compile(r"\b(lines?|ln|row) \d+(?:\s?[-–]\s?\d+)?", re.I), r"\1 N"),
    (re.compile(r"(\.[A-Za-z0-9]{1,5})(?::\d+){1,2}\b|(\.[A-Za-z0-9]{1,5})\((\d+),(\d+)\)"), r"\1\2:N"),
    (re.compile(r"\s+"), " "),
]


def normalise(message: str) -> str:
    """The message with volatile parts replaced: temp paths, addresses, UUIDs, timestamps, durations,
    line numbers.

    A final full stop goes too: some tools print it in one output format and not in another."""
    for rx, repl in _VOLATILE:
        message = rx.sub(repl, message)
    return message.strip().removesuffix(".")



class ToolFailure(Exception):
    """Raised by a parser when the output shows the tool itself failed (crash, configuration, usage)."""


ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")
"""Terminal colour and link codes, which some tools print even into a pipe."""
