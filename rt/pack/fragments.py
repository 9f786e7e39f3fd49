"""The code a pack shows of one file, in the room it is given: whole when short, else its matching
definitions (a long one as its signature and the lines holding the task's words), the lines holding
most task words elsewhere, and its imports; the most telling parts first when room is short.
"""
from __future__ import annotations

import bisect
import itertools
import math
import re

from rt.core import lines as split_lines
from rt.index.terms import keys_of_word

WHOLE_FILE = 60
"""A file this short is shown whole."""
WHOLE_FIT = 150
"""A file this short is shown whole when it fits the room it is given: a few more lines beat the
headings of many fragments."""
GAP = 3
"""Fragments this few lines apart are shown as one, the lines between included."""
WHOLE_DEF = 160
"""A matching definition this short is shown whole (a file's best piece is cut round its best line, its signature
kept, when its room is shorter); a longer one as its signature and matching lines. The lines a commit edits lie
together in a function more often than at its scattered matching lines: swept on real history with
`bench/weights.py --pack`, 160 held the most edited lines, 40 the fewest (bench/RESULTS.md)."""
HEAD_LINES = 4
"""At most this many lines of a long definition's start (its signature) are shown."""
DEF_CONTEXT = 3
DEF_WINDOWS = 4
"""Inside a long definition: this many windows of this many lines either side of the lines holding task words."""
MATCH_WINDOWS = 4
MATCH_CONTEXT = 5
"""Outside the chosen definitions, this many windows of this many lines either side of the lines
holding the most task words (markup templates, long functions, files without definitions)."""
DEFS = 10
"""At most this many matching definitions of one file (swept as WHOLE_DEF was: of 4, 5, 6, 8 and 10, 10 held the
most edited lines) ..."""
FEW_DEFS = 6
"""... and in a small room (the `/runtask` injection's, a small model's step), where more of them crowd out the one
the task's words point at."""
DEF_NAME = 3.0
"""A task word in a definition's name weighs this many times one in its body, choosing the definitions."""
IMPORT_LINES = 20
_IMPORT = re.compile(r"^(import\b|from\s+\S+\s+import\b|export\s.*\bfrom\b|(const|let|var)\s.*\brequire\(|"
                     r"(pub(\(\w+\))?\s+)?use\s+(::)?(\{|\w+\s*(::|;|\s+as\s+\w+\s*;))|#\s*include\b|require\s*\(|@import\b)")
"""An import statement's first line; Rust's `use` only at the top level (inside a function it is not an import)
and followed by a path (`use std::io;`), not a line of text starting "use the" in a long string."""
_IMPORT_FIRST = frozenset("ifelcvpu#r@")
"""The first characters `_IMPORT` can match: a line starting otherwise (indented, most of a long file) is no
import without asking the pattern."""
_WORD = re.compile(r"[A-Za-z0-9_]+")
_HOLDERS = frozenset({"namespace", "module"})
"""Kinds of definition that only hold others: one line of it (PHP's and C#'s `namespace X;`) is no code to show."""


class Fragment:
    """Lines `start`-`end` (1-based, inclusive) of a file of `total` lines, labelled `what`; `names` are
    the definitions it shows."""

    __slots__ = ("path", "start", "end", "total", "what", "lines", "names")

    def __init__(self, path: str, start: int, end: int, total: int, what: str, lines: list[str],
                 names: list[str] | None = None):
        self.path, self.start, self.end, self.total, self.what = path, start, end, total, what
        self.lines, self.names = lines, names or []

    def code(self) -> str:
        return "```\n" + "".join(line if line.endswith("\n") else line + "\n" for line in self.lines) + "```\n"

    def shown(self) -> str:
        """As a pack shows it among a file's parts: the lines it spans and what it is, then its code."""
        return f"lines {self.start}-{self.end}: {self.what}\n" + self.code()


def line_keys(line: str) -> set[str]:
    return {k for w in _WORD.findall(line) for k in keys_of_word(w)}


def words_giving(text: str, keys) -> set[str]:
    """The distinct words of `text` that give one of `keys`: a line holding none of them gives none of the keys."""
    return {w for w in set(_WORD.findall(text)) if not keys.isdisjoint(keys_of_word(w))}


def as_keys(terms) -> dict[str, float]:
    """The ranking keys of the task's words with their weights: `terms` is the ranking's weights
    (`Ranking.weights`, taken as they are) or words, each then weighing 1. Keys must come as a dict: the
    stem is not idempotent (`transpose` -> `transpos` -> `transpo`)."""
    if isinstance(terms, dict):
        return dict(terms)
    return {k: 1.0 for t in terms for w in _WORD.findall(t) for k in keys_of_word(w)}


def _ranges(numbers: list[int], gap: int = 1) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for n in sorted(numbers):
        if out and n - out[-1][1] <= gap:
            out[-1][1] = n
        else:
            out.append([n, n])
    return [(a, b) for a, b in out]


class _Piece:
    __slots__ = ("start", "end", "what", "value", "names")

    def __init__(self, start: int, end: int, what: str, value: float, names: list[str] | None = None):
        self.start, self.end, self.what, self.value, self.names = start, end, what, value, names or []


def fragments(path: str, text: str, entry, terms, room: int | None = None, fit: bool = True,
              whole_def: int | None = None, defs: int | None = None) -> list[Fragment]:
    """The parts of one file worth showing for the task (`terms` as `as_keys` takes them), in line order,
    within `room` characters of rendered code when given (the most telling parts kept); `fit=False`
    shows a file of up to WHOLE_FIT lines in parts too (a test file: the tests that matter); a matching
    definition of up to `whole_def` lines (WHOLE_DEF by default) is shown whole, `defs` of them at most (DEFS)."""
    return Parts(path, text, entry, terms, fit, whole_def, defs).within(room)


class Parts:
    """What of one file is worth showing for the task, found once; `within` chooses in a given room. A pack
    offers a file several rooms (its share, what the others left, what the whole pack left), and finding the
    task's words in a long file costs more than choosing among its pieces."""

    def __init__(self, path: str, text: str, entry, terms, fit: bool = True, whole_def: int | None = None,
                 defs: int | None = None):
        self.path, self.text, self.entry, self.fit = path, text, entry, fit
        self.whole_def = WHOLE_DEF if whole_def is None else whole_def
        self.defs = DEFS if defs is None else defs
        self.keys = as_keys(terms)
        self.lines = split_lines(text, True)
        self.whole = _size(self.lines, 1, len(self.lines))
        self._pieces: list[_Piece] | None = None
        self._hits: list = []

    def within(self, room: int | None = None) -> list[Fragment]:
        """The fragments in `room` characters (None: no limit)."""
        path, lines, keys = self.path, self.lines, self.keys
        total = len(lines)
        if not total:
            return []
        if (total <= WHOLE_FILE and (room is None or self.whole <= room)
                or self.fit and total <= WHOLE_FIT and room is not None and self.whole <= room):
            defs = self.entry.defs if self.entry else []
            named = [d.name for d in defs if line_keys(d.name) & keys.keys()] or [d.name for d in defs if not d.parent]
            return [Fragment(path, 1, total, total, "whole file", lines, list(dict.fromkeys(named)))]
        chosen, used = [], 0
        for p in self.pieces():
            cost = _size(lines, p.start, p.end) + HEADING
            if room is not None and used + cost > room:
                if chosen:
                    continue
                cut = _cut(p, lines, room, self._focus(p))   # the best piece, cut to the room
                if not cut:
                    break
                chosen += cut
                used = room
                continue
            chosen.append(p)
            used += cost
        while True:
            frags = _merge([Fragment(path, p.start, p.end, total, p.what, lines[p.start - 1:p.end], p.names) for p in chosen],
                           lines)
            if room is None or len(chosen) == 1 or sum(len(f.shown()) for f in frags) <= room:
                return frags
            chosen.pop()   # merged labels ran longer than counted: the least telling piece goes

    def _focus(self, p: _Piece) -> int | None:
        """The line of `p` holding the task's words of most weight, the first of equals; None when none does."""
        best = max(range(p.start, p.end + 1), key=lambda i: (weight_of(self._hits[i - 1], self.keys), -i))
        return best if self._hits[best - 1] else None

    def pieces(self) -> list[_Piece]:
        """Every piece worth showing, the most telling first."""
        if self._pieces is None:
            lines, keys = self.lines, self.keys
            hits = self._hits = _hits(self.text, lines, keys)
            pieces = _definition_pieces(self.entry, lines, hits, keys, self.whole_def, self.defs)
            shown = {i for p in pieces for i in range(p.start, p.end + 1)}
            pieces += _window_pieces(lines, hits, keys, shown, alone=not pieces)
            # a lone import line says little (a stylesheet's `@import` at the end of a Vue file, a late `use`)
            pieces += [_Piece(a, b, "imports", 0.5) for a, b in _ranges(_import_lines(lines), gap=GAP) if b > a]
            if not any(p.what != "imports" for p in pieces):
                pieces.append(_Piece(1, min(len(lines), 25), "start of file; nothing in it matches the task's words", 0.1))
            self._pieces = sorted(pieces, key=lambda p: (-p.value, p.start))
        return self._pieces


_NONE: frozenset[str] = frozenset()


def _hits(text: str, lines: list[str], keys: dict[str, float]) -> list:
    """Per line of `text` (`lines`: its lines), the keys of `keys` it gives. A line holding none of them as
    text (lower-cased) gives none: one search in C over the whole text finds the next line that holds one,
    from the end of the last one found (a search per line cost more than the rest of `fragments` on a
    long file). Lower-casing neither makes nor takes a line break, so the lines of the lower-cased text are
    `lines`, one for one."""
    hits: list = [_NONE] * len(lines)
    if not keys:
        return hits
    search = re.compile("|".join(map(re.escape, keys))).search
    low = text.lower()
    ends = list(itertools.accumulate(map(len, split_lines(low, True))))
    if len(ends) != len(lines):   # never, by the rule above; a line at a time, should it not hold
        return [line_keys(line) & keys.keys() if search(line.lower()) else _NONE for line in lines]
    pos = 0
    while (m := search(low, pos)) is not None:
        i = bisect.bisect_right(ends, m.start())
        if i >= len(lines):
            break
        hits[i] = line_keys(lines[i]) & keys.keys()
        pos = ends[i]
    return hits


def _size(lines: list[str], a: int, b: int) -> int:
    return sum(len(line) for line in lines[a - 1:b]) + (b - a + 1)


def _cut(p: _Piece, lines: list[str], room: int, focus: int | None = None) -> list[_Piece]:
    """`p` cut to `room`: its first lines, or, when its line `focus` (the one holding the most task words) would
    be cut off, the lines from DEF_CONTEXT above it (more above when `p` ends first), after the signature when `p`
    is a whole definition and room is left for it (lines of a function without the line naming it leave the
    reader guessing)."""
    start, first, out = p.start, p.start, []
    if focus is not None and _size(lines, p.start, focus) + HEADING > room:
        start = max(p.start, focus - DEF_CONTEXT)
        if p.names and not p.what.startswith("in ") and start > p.start:
            head = min(_signature_end(lines, p.start, start - 1), start - 1)
            cost = _size(lines, p.start, head) + _heading(p.what)   # two headings now: counted as rendered
            if cost + _size(lines, start, start) + _heading(p.what + CUT) <= room:
                out.append(_Piece(p.start, head, p.what, p.value, p.names))
                room -= cost
                first = head + 1
    end, used = start - 1, _heading(p.what + CUT) if out else HEADING
    while end < p.end and used + len(lines[end]) + 1 <= room:
        used += len(lines[end]) + 1
        end += 1
    while end == p.end and start > first and used + len(lines[start - 2]) + 1 <= room:
        start -= 1   # the room the end left, above
        used += len(lines[start - 1]) + 1
    return out + [_Piece(start, end, p.what + CUT, p.value, p.names)] if end >= start else []


CUT = ", cut to fit"
HEADING = 40
"""A piece's heading and fences as counted while pieces are chosen; `Parts.within` checks the rendered size after
(`Fragment.shown`), and a cut keeping its signature counts its two headings as rendered (`_heading`)."""


def _heading(what: str) -> int:
    """Characters a fragment's heading and fences take as rendered (`lines 1200-1240: what`)."""
    return len(what) + 30


def _signature_end(lines: list[str], start: int, end: int) -> int:
    """The last line of the signature of the definition at `start`: the line opening its body, at most
    HEAD_LINES down (and not past `end`)."""
    head = min(end, start + HEAD_LINES - 1)
    for i in range(start, head + 1):
        if lines[i - 1].rstrip().endswith((":", "{", "=>")):
            return i
    return head


def _definition_pieces(entry, lines: list[str], hits: list[set[str]], keys: dict[str, float],
                       whole_def: int, most: int) -> list[_Piece]:
    """The definitions whose name or body holds task words, best first (by the words' weights, a word in
    the name DEF_NAME times): a short one whole, a long one as its signature and windows around its matching lines."""
    scored = []
    for d in entry.defs if entry else []:
        if d.end < d.start or d.start < 1 or d.end == d.start and d.kind in _HOLDERS:
            continue   # a file's `namespace Illuminate\Process;` line matches "process" and says nothing
        name = line_keys(d.name) & keys.keys()
        body = set().union(*hits[d.start - 1:d.end]) if d.end >= d.start else set()
        if name or body:
            scored.append((-(DEF_NAME * weight_of(name, keys) + weight_of(body, keys)), d.end - d.start, d.start, d))
    chosen: list = []
    for *_, d in sorted(scored, key=lambda x: x[:3]):
        if any(c.start <= d.start and d.end <= c.end and c.end - c.start < whole_def or d.start <= c.start and c.end <= d.end
               for c in chosen):
            continue   # a method inside a chosen class shown whole, or the class around a chosen method
        chosen.append(d)
        if len(chosen) == most:
            break
    out: list[_Piece] = []
    for rank, d in enumerate(chosen):
        value = 10.0 - rank
        label = f"{d.kind} {d.name}"
        end = min(d.end, len(lines))
        if end - d.start + 1 <= whole_def:
            out.append(_Piece(d.start, end, label, value, [d.name]))
            continue
        head = _signature_end(lines, d.start, end)
        out.append(_Piece(d.start, head, label, value, [d.name]))
        inside = [(-weight_of(hits[i - 1], keys), i) for i in range(head + 1, end + 1) if hits[i - 1]]
        taken: list[tuple[int, int]] = []
        for _, i in sorted(inside):
            if any(a <= i <= b for a, b in taken):
                continue
            taken.append((max(head + 1, i - DEF_CONTEXT), min(end, i + DEF_CONTEXT)))
            if len(taken) == DEF_WINDOWS:
                break
        out += [_Piece(a, b, f"in {label}", value - 0.5 - 0.1 * k, [d.name]) for k, (a, b) in enumerate(sorted(taken))]
    return out


def _window_pieces(lines: list[str], hits: list[set[str]], keys: dict[str, float], skip: set[int],
                   alone: bool = False) -> list[_Piece]:
    """Windows around the lines (outside `skip`) weighing most by their task words: two words at least,
    or the rarest. Where no line holds that much and no definition holds a task word (`alone`: a locale
    file, a stylesheet, a word a line), the lines holding any, the lines opening a block first
    (`"environment": {`, `.sidebar {`), each with its window below it: what follows is about the word.
    (In a file whose definitions hold task words, such lines took the room of better pieces.)"""
    need = min(2, len(keys))
    rarest = max(keys, key=lambda k: (keys[k], k)) if keys else ""
    found = [(i, h) for i, h in enumerate(hits, 1) if i not in skip and h]
    strong = [(i, h) for i, h in found if len(h) >= need or rarest in h]
    weak = alone and not strong   # then any line holding a task word, a block's opening first
    if weak:
        order = sorted(found, key=lambda x: (not _opens(lines[x[0] - 1]), -weight_of(x[1], keys), x[0]))
    else:
        order = sorted(strong, key=lambda x: (-weight_of(x[1], keys), x[0]))
    out: list[tuple[int, int]] = []
    for i, _ in order:
        if any(a <= i <= b for a, b in out):
            continue
        below = weak and _opens(lines[i - 1])
        out.append((i if below else max(1, i - MATCH_CONTEXT), min(len(lines), i + MATCH_CONTEXT * (2 if below else 1))))
        if len(out) == MATCH_WINDOWS:
            break
    return [_Piece(a, b, "lines with task words", 6.0 - k) for k, (a, b) in enumerate(out)]


def _opens(line: str) -> bool:
    """Whether `line` opens a block (ends with `{`, `[` or `:`)."""
    return line.rstrip().endswith(("{", "[", ":"))


def weight_of(found, keys: dict[str, float]) -> float:
    """The summed weights of the keys `found`, exactly rounded (`math.fsum`): a plain sum follows the set's
    order, which the hash seed sets, and a last-bit difference broke ties between pieces differently from
    run to run (the pack was not byte-stable)."""
    return math.fsum(keys[k] for k in found)


def _import_lines(lines: list[str]) -> list[int]:
    """Line numbers of the import statements at the top level (the pattern wants column 0), a
    statement over several lines whole."""
    out: list[int] = []
    i = 0
    while i < len(lines) and len(out) < IMPORT_LINES:
        if lines[i][:1] in _IMPORT_FIRST and _IMPORT.match(lines[i]):
            first, depth = i, _depth(lines[i])
            while depth > 0 and i + 1 < len(lines):
                i += 1
                depth += _depth(lines[i])
            out += range(first + 1, i + 2)
        i += 1
    return out


def is_import(line: str) -> bool:
    return bool(_IMPORT.match(line))


def _depth(line: str) -> int:
    return line.count("(") + line.count("{") - line.count(")") - line.count("}")


CHANGED_CONTEXT = 3
CHANGED_LINES = 40
"""Where a file was changed last (a vague task's work going on): this many lines either side of each change, at
most this many lines a change."""


def changed_fragments(path: str, text: str, spans: list[tuple[int, int]]) -> list[Fragment]:
    """The lines of `text` around each changed range of `spans` (1-based, inclusive; `history.changed_lines`),
    those near each other as one, in line order."""
    lines = split_lines(text, True)
    wins: list[list[int]] = []
    for a, b in sorted(spans):
        a, b = max(1, a - CHANGED_CONTEXT), min(len(lines), b + CHANGED_CONTEXT, a + CHANGED_LINES - 1)
        if a > b:
            continue
        if wins and a <= wins[-1][1] + 1 + GAP:
            wins[-1][1] = max(wins[-1][1], b)
        else:
            wins.append([a, b])
    return [Fragment(path, a, b, len(lines), "changed here", lines[a - 1:b]) for a, b in wins]


def _merge(frags: list[Fragment], lines: list[str]) -> list[Fragment]:
    """Fragments of one file that overlap or lie within GAP lines become one, so no line is shown twice
    and no heading costs more than the lines it skips."""
    out: list[Fragment] = []
    for f in sorted(frags, key=lambda f: (f.start, -f.end)):
        if out and f.start <= out[-1].end + 1 + GAP:
            last = out[-1]
            if f.end > last.end:
                last.lines = lines[last.start - 1:f.end]
                last.end = f.end
            if f.what not in last.what.split(", ") and f.what[3:] not in last.what.split(", "):
                last.what = f"{last.what}, {f.what}"
            last.names = last.names + [n for n in f.names if n not in last.names]
            continue
        out.append(f)
    return out
