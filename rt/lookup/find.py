"""`rt find "<text>"`: where something a user sees lives. By path, by the text of a translation resolved to
its key and on to the code using the key, and by string literals and text in files. Each hit says why.

Candidate files come from the index's word map, so only files holding every word of the text are read, each
once; the lines holding the text's first word are found in a file's bytes (`_read`), and only those are decoded.
"""
from __future__ import annotations

import json
import posixpath
import re
from bisect import bisect_right
from collections import namedtuple
from functools import cached_property

from rt.index import i18n
from rt.core import OTHER_BREAKS, ExitCode, Result, UsageError, counted, decode, is_test, line_ends, shown
from rt.core import lines as split_lines
from rt.index.index import derived, load
from rt.index.langs import PROSE, language, words

MAX_HITS = 40
SNIPPET = 160


class Hit(namedtuple("Hit", "group path line why snippet")):
    """One place the text was found. `group`: 0 translation, 1 code using its key, 2 text or literal,
    3 path. (A named tuple, not a dataclass: `dataclasses` would double this command's imports.)"""

    __slots__ = ()

    def row(self) -> str:
        where = f"{shown(self.path)}:{self.line}" if self.line else shown(self.path)
        return f"{where}  {self.why}" + (f"  {self.snippet}" if self.snippet else "")


def _norm(s: str) -> str:
    return " ".join(s.split()).lower()


_ODD_LOWER = {"\u0130": "i", "\u212a": "k"}
"""The characters whose lower case holds an ASCII letter (İ lowers to "i" and a combining dot, the only lower
case longer than its character; the Kelvin sign to "k"; a test checks every code point): where a text has
none of them, or the word has not that letter, an ASCII word is in the text's lower case where it is in its
bytes' lower case."""


class _Source:
    """A candidate file's bytes and what `rt find` derives from them whatever the query: its text, the lower
    case of its bytes, its parsed entries when it is a locale file. A long-lived process keeps it between
    look-ups (`index.derived`); its parts are made when first asked."""

    def __init__(self, path: str, raw: bytes | None):
        self.path, self.raw = path, raw
        self.text = "" if raw is None else decode(raw)
        self.hits = 0   # the look-ups that found it kept (`index.Derived`)

    @property
    def weight(self) -> int:
        """The bytes it may come to hold, over: with every part made, outline's 30 locale files (4.3 MB) held
        under ten times their size (the bytes twice, the text, lines, a locale file's entries and their lines)."""
        return 12 * len(self.raw or b"") + 1000

    @cached_property
    def low(self) -> bytes:
        return self.raw.lower()

    @cached_property
    def by_bytes(self) -> tuple[bool, str, str]:
        """Whether lines may be found in the bytes at all (no line break besides "\n"), the letters a query's
        first word must not hold (those of the `_ODD_LOWER` characters the text has), and the codec."""
        text = self.text
        return (not any(c in text for c in OTHER_BREAKS), "".join(l for c, l in _ODD_LOWER.items() if c in text),
                "latin-1" if len(text) == len(self.raw) else "utf-8")   # ASCII alike in both; else longer bytes are UTF-8

    @cached_property
    def plain_json(self) -> bool:
        """Whether `_no_value_holds` may read the file at all: no İ (whose lower case is longer), no `\\u` escape."""
        return "\u0130" not in self.text and not _escapes_unicode(self.text)

    @cached_property
    def keys_blanked(self) -> bytes:
        """The lower-cased bytes with the text of each key `_no_value_holds` passes over unread (`_KEY_TEXT`) made
        NULs (in no word): the lines and offsets stay the file's."""
        return _KEY_TEXT.sub(lambda m: m.group(1) + b"\0" * (m.end() - m.end(1)), self.low)

    @cached_property
    def locale(self) -> i18n.Locale:
        return i18n.Locale(self.path, self.text)

    @cached_property
    def lines(self) -> tuple[list[str], list[int]]:
        """Its lines as `core.lines` splits them, and `line_ends`."""
        return split_lines(self.text), line_ends(self.text)

    @cached_property
    def key_uses(self) -> list[tuple[str, int]]:
        return i18n.key_uses(self.text, self.path)


def _read(src: _Source, first: str) -> tuple[str, list[tuple[int, str]] | None]:
    """A candidate file's text, and (number, line) of each of its lines holding `first` (the query's first
    word) in its lower case, found in the file's bytes: lower-casing 150 KB of non-ASCII text as `str`
    costs 1 ms, its bytes a tenth of that. None instead of the lines where bytes cannot tell: `first` not
    ASCII, a line break besides "\n", or a character of `_ODD_LOWER` whose letter `first` holds."""
    if src.raw is None:
        return "", []
    if not first.isascii():
        return src.text, None
    plain, odd, codec = src.by_bytes
    if not plain or any(letter in first for letter in odd):
        return src.text, None
    return src.text, _first_lines(src.raw, src.low, first.encode(), codec)


def _first_lines(data, low, first, codec: str = "") -> list[tuple[int, str]]:
    """(number, line) of each "\n"-line of `data` (a text, or bytes decoded by `codec`) whose lower case
    `low` (positions as in `data`) holds `first`; lines numbered by counting the newlines before them."""
    nl = b"\n" if codec else "\n"
    out = []
    number, counted = 1, 0   # the number of the line starting at offset `counted`
    at = low.find(first)
    while at != -1:
        start = data.rfind(nl, 0, at) + 1
        end = data.find(nl, at)
        end = len(data) if end == -1 else end
        number += data.count(nl, counted, start)
        counted = start
        out.append((number, data[start:end].decode(codec) if codec else data[start:end]))
        at = low.find(first, end)
    return out


def _lines_with(text: str, q: str, lines: list[tuple[int, str]] | None = None) -> list[tuple[int, str]]:
    """(number, line) of the lines whose normalised text holds `q` (normalised). One search over the
    lower-cased text finds the lines with the query's first word (or `lines`, found by `_read`); only
    those are normalised (lines split as `str.splitlines` splits them)."""
    first = q.split(" ", 1)[0]
    if lines is not None:
        return [(i, line) for i, line in lines if q in _norm(line)]
    low = text.lower()
    if len(low) != len(text):   # İ, whose lower case is longer, shifts positions: line by line
        return [(i, line) for i, line in enumerate(split_lines(text), 1) if q in _norm(line)]
    if any(c in text for c in OTHER_BREAKS):
        return [(i + 1, line) for i, line in _lines_holding(text, low, first) if q in _norm(line)]
    return [(i, line) for i, line in _first_lines(text, low, first) if q in _norm(line)]


def _lines_holding(text: str, hay: str, needle: str):
    """(0-based number, line) of each line of `text`, split as `core.lines` splits it, where `hay` (`text`
    or its lower case of the same length) holds `needle`; each line once, lines split only when one does."""
    at = hay.find(needle)
    if at == -1:
        return
    lines, ends = split_lines(text), line_ends(text)
    while at != -1:
        i = bisect_right(ends, at)
        yield i, lines[i]
        at = hay.find(needle, ends[i])


_JSON_STRING = re.compile(r'("[^"\\\n]*(?:\\.[^"\\\n]*)*")\s*(:?)')
"""A JSON string on one line, and the colon after it when it is a key (runs of plain characters taken whole:
three times faster than one character or escape at a time)."""


def _no_value_holds(text: str, first: str, holds, lines: list[tuple[int, str]] | None = None) -> bool:
    """Whether no translation in a JSON locale file can hold the query, read from its raw text: every place
    `first` (the query's first word, lower case, letters and digits) occurs is inside a key, or inside a
    value that `holds` rejects. Then the file need not be parsed: in a project whose keys are the English
    texts, every locale file holds the query's words in its keys. (Strings never span lines in JSON; a
    `\\u` escape could spell the word, so a file with one is parsed.) `lines`: the lines holding `first`,
    when `_read` found them."""
    if not first.isalnum() or "\u0130" in text or _escapes_unicode(text):   # İ: the text's lower case is longer
        return False
    if lines is None:
        lines = _first_lines(text, text.lower(), first)
    for _, line in lines:
        low = line.lower()
        start = line.find('"')
        end = line.find('"', start + 1)
        if start < low.find(first) and end != -1 and line[end + 1:end + 2] == ":" and "\\" not in line[start:end] \
                and low.find(first, end) == -1:
            continue   # `"key": ...` holding the word in its key alone (most lines where keys are texts): no pattern
        strings = list(_JSON_STRING.finditer(line))
        at = low.find(first)
        while at != -1:
            inside = next((m for m in strings if m.start(1) < at and at + len(first) < m.end(1)), None)
            if inside is None:   # outside any string: the parser tells
                return False
            if not inside.group(2):   # a value
                value = inside.group(1)[1:-1]
                if "\\" in value or not value.isprintable():   # escapes, or control characters JSON refuses
                    try:
                        value = json.loads(inside.group(1))
                    except ValueError:
                        return False
                if not isinstance(value, str) or holds(value):
                    return False
            at = low.find(first, inside.end(1))
    return True


_KEY_TEXT = re.compile(rb'(?m)^([^"\n]*")[^"\\\n]*(?=":)')
"""On a line, the text of a key that `_no_value_holds` passes over unread when the query's word is only there:
from the line's first quote to the next, with a colon right after that and no backslash between."""


def _value_lines(src: _Source, first: str) -> list[tuple[int, str]] | None:
    """The lines of a JSON locale file that `_no_value_holds` reads: those holding `first` (the query's first word)
    outside the text of keys it passes over unread (`_KEY_TEXT`), found in the file's bytes with those keys blanked
    (it passes over the other lines holding `first`, so it answers from these alone as from all). None where this
    cannot tell: then `_read` gives it every line holding `first`. Only for a file looked up before in a long-lived
    process (`hits`): blanking the keys costs more than one look-up's reading."""
    if not src.hits or src.raw is None or not (first.isascii() and first.isalnum()):
        return None
    plain, odd, codec = src.by_bytes
    if not plain or any(letter in first for letter in odd) or not src.plain_json:
        return None
    return _first_lines(src.raw, src.keys_blanked, first.encode(), codec)


def _escapes_unicode(text: str) -> bool:
    """Whether `text` holds a `\\u`, looked for from each backslash: over a large non-ASCII text a search for
    the two characters costs four times as much."""
    at = text.find("\\")
    while at != -1:
        if text.startswith("u", at + 1):
            return True
        at = text.find("\\", at + 1)
    return False


def _snippet(line: str) -> str:
    s = line.strip()
    return s if len(s) <= SNIPPET else s[:SNIPPET] + " [...]"


def args_find(p) -> None:
    p.add_argument("text", help="text a user sees (a label, a message), part of a path, or a string in the code")


_XML_SPELLED = frozenset("&<>\"'")
"""Characters XML may write as an entity: a query holding one may be in a unit whose bytes do not hold it."""
_CURLY = str.maketrans("\u2018\u2019\u201c\u201d", "''\"\"")
_STRAIGHT = str.maketrans("'\"", "\u2019\u201d")


def cmd_find(ctx, args) -> Result:
    query = args.text.strip()
    if not query:
        raise UsageError("give the text to find, for example: rt find \"Proceed to checkout\"")
    idx = load(ctx)
    found = _find(ctx, idx, query)
    if found.data["found"]:
        return found
    # a text copied from an issue or a chat has curly quotes where the code has straight ones, or the reverse
    for other in dict.fromkeys((query.translate(_CURLY), query.translate(_STRAIGHT))):
        if other != query:
            again = _find(ctx, idx, other)
            if again.data["found"]:
                again.text = f"{query!r} is found as {other!r}, its quotes written the other way:\n{again.text}"
                again.data["as"] = other
                return again
    return found


def _find(ctx, idx, query: str) -> Result:
    """`rt find`'s answer for `query` as written."""
    q = _norm(query)
    paths = idx.paths   # one search over all paths first: most texts match none
    hits: list[Hit] = [Hit(3, p, 0, "path matches", "") for p in paths if q in p.lower()] \
        if q in "\n".join(paths).lower() else []
    qwords = words(query)
    candidates = set(idx.with_word(qwords[0])) if qwords else set()
    for w in qwords[1:]:
        candidates &= set(idx.with_word(w))
    locales = sorted(p for p in candidates if i18n.is_locale(p))
    if not candidates:   # text without spaces between words (CJK) hides inside longer words: read the locale files
        locales = [p for p in idx.paths if i18n.is_locale(p)]
    # the source (English) file first: its line is where the text is changed, and what the code's keys point to
    sources = [p for p in locales if i18n.is_source_locale(p) and not i18n.regional_copy(p, paths)]
    locales = sources + [p for p in locales if p not in sources]
    in_source: set[tuple[str, str]] = set()   # (key, text) the source files hold: other files' same pair is a copy
    copies: list[str] = []   # files holding the text untranslated under a source key: counted in one row
    keys: dict[str, tuple[str, int, str]] = {}
    first = q.split(" ", 1)[0]   # in every text holding the query: a quick test before the whole one

    def holds(value: str) -> bool:
        return first in value.lower() and q in _norm(value)

    key_only: list[str] = []   # locale files holding the text in keys alone: listed by --json, counted in one row
    read: dict[str, tuple[str, list | None]] = {}   # each file read once, for both passes

    def lines_of(path: str, src: _Source) -> tuple[str, list | None]:
        if path not in read:
            read[path] = _read(src, first)
        return read[path]

    for path in locales:
        src = derived(ctx, path, _Source)
        json_file = path.endswith((".json", ".arb"))
        some = _value_lines(src, first) if json_file else None
        if json_file and _no_value_holds(src.text, first, holds, lines_of(path, src)[1] if some is None else some):
            # the query in a line's bytes is in its normalised text: `_lines_with` would find that line
            if (some is not None and q.isascii() and q.encode() in src.low) or _lines_with(src.text, q,
                                                                                            lines_of(path, src)[1]):
                key_only.append(path)
            continue
        # Qt's messages are the code's strings as written: those holding the whole query are the ones to read (a
        # file of qBittorrent's holds "add" in a thousand), unless an entity or a quote could spell part of it
        word = q if src.locale.qt and q.isascii() and not _XML_SPELLED & set(q) else first
        found = src.locale.entries(holds, word)
        if not found and src.locale.parsed:   # no text of its entries holds it: a key does (a `.po`'s `msgid`, a
            # Qt message's `<source>`, its entities read: `Open &amp;file`)
            if _lines_with(src.text, q, lines_of(path, src)[1]) or \
                    src.locale.qt and any(holds(k) for k, _, _ in src.locale.entries(lambda v: True, word)):
                key_only.append(path)
            continue
        for key, value, line in found:
            if path in sources:
                in_source.add((key, value))
            elif (key, value) in in_source:
                if path not in copies:
                    copies.append(path)
                continue
            hits.append(Hit(0, path, line, f"translation {key}", f"= {_snippet(value)!r}"))
            keys.setdefault(key, (path, line, value))
    used: set[tuple[str, int]] = set()
    for key in sorted(keys):
        hits += _key_uses(ctx, idx, key, keys[key], used)
    translated = {h.path for h in hits if h.group == 0} | set(key_only) | set(copies)
    for path in sorted(candidates - translated):   # an invalid locale file is still searched as text
        text, lines = read.get(path) or _read(derived(ctx, path, _Source), first)
        for i, line in _lines_with(text, q, lines):
            if (path, i) not in used:
                hits.append(Hit(2, path, i, "text" if prose(path) else _literal_or_text(line, q), _snippet(line)))
    leading = set(sources)
    hits.sort(key=lambda h: (h.group, _after(h.path), h.path not in leading, h.group == 2 and prose(h.path), h.path,
                             h.line))
    if not hits:
        return Result(f"{query!r}: found nowhere (no path, translation, string or text in the "
                      f"{idx.meta['files']} indexed files)", {"text": query, "found": False, "hits": []}, ExitCode.FINDING)
    rows = [h.row() for h in hits[:MAX_HITS]]
    at = sum(h.group == 0 for h in hits[:MAX_HITS])
    if copies:   # other languages' files not translated yet: the source file's line is the one to change
        rows.insert(at, _counted(copies, "untranslated, under the same key"))
        at += 1
    if key_only:   # the same key in every other language: where a changed English key must change too
        rows.insert(at, _counted(key_only, "only as a key"))
    if len(hits) > MAX_HITS:
        rows.append(f"... and {len(hits) - MAX_HITS} more hits (`rt find ... --json` lists them all)")
    return Result("\n".join(rows), {"text": query, "found": True, "key_only": sorted(key_only), "copies": sorted(copies), "hits": [
        {"path": h.path, "line": h.line, "why": h.why, "snippet": h.snippet} for h in hits]})


def _counted(paths: list[str], how: str) -> str:
    """The row counting the locale files that hold the text `how`, instead of a row each."""
    n = len(paths)
    folder = posixpath.commonpath(paths) if n > 1 else posixpath.dirname(paths[0])
    where = f" under {shown(folder)}/" if folder else ""
    return (f"{counted(n, 'more locale file')}{where} {'holds' if n == 1 else 'hold'} it {how} "
            f"(`rt find ... --json` lists them)")


def _key_uses(ctx, idx, key: str, where: tuple[str, int, str], used: set[tuple[str, int]]) -> list[Hit]:
    """Lines of code using a translation key: the full key, its plural base, or its last part under a namespace
    (`useTranslations('cart')` then `t('checkout')`)."""
    base = i18n.base_key(key)
    files = sorted(set(idx.key_users(key)) | set(idx.key_users(base)))
    out = []
    for path in files:   # where the code passes the key to a translate call: a string merely equal to it is no use
        src = derived(ctx, path, _Source)
        uses = [at for k, at in src.key_uses if k in (key, base)]
        lines, ends = src.lines if uses else ((), ())
        for i in sorted({bisect_right(ends, at) for at in uses}):
            used.add((path, i + 1))
            out.append(Hit(1, path, i + 1, f"uses key {key} (translation at {where[0]}:{where[1]})", _snippet(lines[i])))
    if "." in base:   # a dotted key passed around as a string (`label: "labels.copyAsPng"`) before reaching t()
        quoted = re.compile(rf"""['"`]{re.escape(base)}['"`]""")
        parts = words(base)
        holders = set(idx.with_word(parts[0])) if parts else set()
        for w in parts[1:]:
            holders &= set(idx.with_word(w))
        for path in sorted(p for p in holders - set(files) if not i18n.is_locale(p)):
            text = derived(ctx, path, _Source).text
            for i, line in _lines_holding(text, text, base):   # a line naming the key holds it: only those are tried
                if quoted.search(line):
                    used.add((path, i + 1))
                    out.append(Hit(1, path, i + 1, f"names key {key} (translation at {where[0]}:{where[1]})",
                                   _snippet(line)))
    return out


def _after(path: str) -> bool:
    """Tests and their snapshots repeat what the product shows; they come after the product's own files."""
    return is_test(path) or "__snapshots__/" in path


def prose(path: str) -> bool:
    """Markdown and plain text: documentation, which holds no string literal and comes after the code saying
    the same text."""
    return language(path) in PROSE


_APOSTROPHE = re.compile(r"\b([^\W\d_]+)'(?=[^\W\d_])")
"""A quote between two letters (`it's`, `doesn't`): an apostrophe, which opens no string, unless the letters
before it are a string's prefix (`f'`, `rb'`)."""
_PREFIXES = frozenset({"r", "b", "u", "f", "rb", "br", "fr", "rf"})


def _apostrophes_out(text: str) -> str:
    return _APOSTROPHE.sub(lambda m: m.group(0) if m.group(1) in _PREFIXES else m.group(1), text)


def _literal_or_text(line: str, q: str) -> str:
    low = " ".join(line.split()).lower()
    at = low.find(q)
    before = _apostrophes_out(low[:at])
    for quote in ("'", '"', "`"):
        if before.count(quote) % 2 == 1:
            return "string literal"
    return "text"
