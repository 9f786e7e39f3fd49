"""The code a pack shows of one file: whole when short, else its imports, its definitions matching the
task and windows around the lines holding most task words; fitted into what the pack has room for.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rt import budget
from rt.bm25 import tokens
from rt.pack.rank import _IMPORT

WHOLE_FILE = 60
"""A file this short is shown whole; a longer one as its imports and its matching definitions."""
DEF_LINES = 80
"""A matching definition longer than this is shown from its start, cut here."""
IMPORT_LINES = 30
MATCH_WINDOWS = 2
MATCH_CONTEXT = 5
"""Outside the chosen definitions, this many windows of this many lines either side of the lines
holding the most task words (markup templates, long functions, files without definitions)."""


@dataclass
class Fragment:
    path: str
    start: int
    end: int
    total: int
    what: str
    lines: list[str]
    names: list[str] = field(default_factory=list)   # the definitions it shows

    def render(self) -> str:
        span = f"lines {self.start}-{self.end} of {self.total}"
        label = self.what if self.what == "whole file" else f"partial: {span}; {self.what}"
        body = "".join(line if line.endswith("\n") else line + "\n" for line in self.lines)
        return f"### {self.path} ({label})\n```\n{body}```\n"


def _ranges(numbers: list[int], gap: int = 2) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for n in sorted(numbers):
        if out and n - out[-1][1] <= gap:
            out[-1][1] = n
        else:
            out.append([n, n])
    return [(a, b) for a, b in out]


def fragments(path: str, text: str, entry, terms: set[str]) -> list[Fragment]:
    """The parts of one file worth showing for the task: whole when short, else imports and matching definitions."""
    lines = text.splitlines(keepends=True)
    total = len(lines)
    if total <= WHOLE_FILE:
        return [Fragment(path, 1, total, total, "whole file", lines)] if total else []
    imports = [i + 1 for i, line in enumerate(lines) if _IMPORT.match(line)][:IMPORT_LINES]
    out = [Fragment(path, a, b, total, "imports", lines[a - 1:b]) for a, b in _ranges(imports)]
    scored = []
    for d in entry.defs if entry else []:
        name_hits = len(terms & set(tokens(d.name)))
        body_hits = len(terms & set(tokens("".join(lines[d.start - 1:d.end]))))
        if name_hits or body_hits:
            scored.append((-(3 * name_hits + body_hits), d.end - d.start, d.start, d))
    chosen: list = []
    for *_, d in sorted(scored, key=lambda x: x[:3]):
        if any(c.start <= d.start and d.end <= c.end or d.start <= c.start and c.end <= d.end for c in chosen):
            continue   # a method inside a chosen class, or the class around a chosen method
        chosen.append(d)
        if len(chosen) == 3:
            break
    for d in sorted(chosen, key=lambda d: d.start):
        end = min(d.end, d.start + DEF_LINES - 1, total)
        out.append(Fragment(path, d.start, end, total, f"{d.kind} {d.name}", lines[d.start - 1:end], [d.name]))
    shown = {i for d in chosen for i in range(d.start, d.end + 1)}
    windows = _matching_lines(lines, terms, shown)
    for a, b, found in windows:
        out.append(Fragment(path, a, b, total, "lines with " + ", ".join(found), lines[a - 1:b]))
    if not chosen and not windows:
        end = min(total, 40)
        out.append(Fragment(path, 1, end, total, "start of file; nothing in it matches the task's words", lines[:end]))
    return _merge(out)


def _matching_lines(lines: list[str], terms: set[str], skip: set[int]) -> list[tuple[int, int, list[str]]]:
    """Up to MATCH_WINDOWS windows around the lines (outside `skip`) holding the most task words, two at least."""
    best = []
    for i, line in enumerate(lines, 1):
        low = line.lower()
        if i in skip or sum(t in low for t in terms) < min(2, len(terms)):
            continue
        found = sorted(terms & set(tokens(line)))
        if len(found) >= min(2, len(terms)):
            best.append((-len(found), i, found))
    out: list[tuple[int, int, list[str]]] = []
    for _, i, found in sorted(best):
        if any(a <= i <= b for a, b, _ in out):
            continue
        out.append((max(1, i - MATCH_CONTEXT), min(len(lines), i + MATCH_CONTEXT), found))
        if len(out) == MATCH_WINDOWS:
            break
    return sorted(out)


def _merge(frags: list[Fragment]) -> list[Fragment]:
    """Overlapping or touching fragments of one file become one, so no line is shown twice."""
    out: list[Fragment] = []
    for f in sorted(frags, key=lambda f: f.start):
        if out and f.start <= out[-1].end + 1:
            last = out[-1]
            if f.end > last.end:
                last.lines = last.lines + f.lines[last.end + 1 - f.start:]
                last.end = f.end
                last.what = last.what if f.what in last.what else f"{last.what}, {f.what}"
                last.names = last.names + f.names
            continue
        out.append(f)
    return out


def fill(frags: list[Fragment], chars: int, tokens_left: int | None) -> list[Fragment]:
    """Fragments in order while they fit; the first that does not fit whole is cut after a whole line."""
    out, used, spent = [], 0, 0
    for f in frags:
        rendered = f.render()
        cost = budget.estimate(rendered)
        if used + len(rendered) <= chars and (tokens_left is None or spent + cost <= tokens_left):
            out.append(f)
            used += len(rendered)
            spent += cost
            continue
        keep = []
        for line in f.lines:
            trial = Fragment(f.path, f.start, f.start + len(keep), f.total, f.what, keep + [line])
            r2 = trial.render()
            if used + len(r2) > chars or (tokens_left is not None and spent + budget.estimate(r2) > tokens_left):
                break
            keep.append(line)
        if keep:
            out.append(Fragment(f.path, f.start, f.start + len(keep) - 1, f.total, f.what + ", cut to fit", keep, f.names))
        break
    return out
