"""The ranking's words: how file text, paths and definition names become the keys of the index's
ranking postings, and how the task's words find the same keys.

A word piece is lower-cased and lightly stemmed (`errors` -> `error`, `toggling` -> `toggl`), so a task
saying "blocked" finds a file saying "block"; an identifier of several pieces (`toggleSidebar`,
`toggle_sidebar`) is also kept whole and never stemmed (`togglesidebar`), so a name written in the
task finds that name first. Postings carry counts: how often in the text, whether in the file's name
or only its folders, how many definitions' names hold it.
"""
from __future__ import annotations

import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z0-9_]+")
_PART = re.compile(r"[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
"""A piece of an identifier or word: an acronym's plural first (`URLs`, `getIDs`: `urls`, not `ur` and `ls`), then
camelCase's and acronyms' pieces (`HTTPServer`: `http`, `server`), digits."""
_VOWEL = re.compile(r"[aeiouy]")

KINDS = ("terms", "pterms", "nterms")
"""Posting kinds: text words with their counts, path words (in the file's name or only a folder's),
definition-name words with the number of definitions holding them."""


def stem(w: str) -> str:
    """A light English stem of one lower-case word piece: plural and -ed/-ing endings, a final e."""
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    for suffix in ("ing", "ed"):
        if w.endswith(suffix) and not w.endswith("eed"):
            rest = w[:-len(suffix)]
            if len(rest) >= 3 and _VOWEL.search(rest):
                w = rest
            break
    if w.endswith("e") and len(w) > 3:
        w = w[:-1]
    return w


def word_keys(word: str) -> tuple[list[tuple[str, str]], str | None]:
    """(piece as written lower-case, its key) for each piece of one word worth a key, and the whole
    identifier's key when the word has several pieces."""
    parts = [p.lower() for p in _PART.findall(word)]
    pieces = [(p, _STEMS.get(p) or _stem_kept(p)) for p in parts if len(p) > 1 and not p.isdigit()]
    return pieces, "".join(parts) if len(parts) > 1 else None


_STEMS: dict[str, str] = {}
"""Each piece's stem (never empty): the pieces of a tree's identifiers come from a small vocabulary."""


def _stem_kept(piece: str) -> str:
    key = stem(piece)
    if len(_STEMS) < 200_000:
        _STEMS[piece] = key
    return key


_SPLIT: dict[str, tuple[str, ...]] = {}


def keys_of_word(word: str) -> tuple[str, ...]:
    """The keys one word of text gives: each piece stemmed (digits-only and one-letter pieces left out),
    then the whole identifier, lower-case without separators, when it has several pieces."""
    keys = _SPLIT.get(word)
    if keys is None:
        if word.isascii() and word.isalpha() and word.islower():   # one piece, the common case: no split
            keys = (stem(word),) if len(word) > 1 else ()
        else:
            pieces, whole = word_keys(word)
            keys = tuple(k for _, k in pieces) + ((whole,) if whole else ())
        if len(_SPLIT) < 200_000:
            _SPLIT[word] = keys
    return keys


def text_counts(text: str) -> dict[str, int]:
    """Key -> how often it occurs in `text`. The words are `_WORD`'s, found as `word_total` finds them
    (in C: about half of what `findall` costs); a plain dictionary, as `Counter` makes each new key a call."""
    out: dict[str, int] = {}
    get, split = out.get, _SPLIT.get
    words = text.encode("utf-8", "surrogatepass").translate(_SPACED).decode("ascii").split()
    for word, n in Counter(words).items():
        keys = split(word)
        if keys is None:
            keys = keys_of_word(word)
        for k in keys:
            out[k] = get(k, 0) + n
    return out


WORD_BYTES = re.compile(rb"[A-Za-z0-9_]+")
"""A word in bytes, as `_WORD` finds them in text."""
_SPACED = bytes(c if re.fullmatch(rb"\w", bytes([c]), re.ASCII) else 32 for c in range(256))
"""Every byte no word holds made a space: `data.translate(_SPACED).split()` is `WORD_BYTES.findall(data)`, in C."""


def _size(word: bytes) -> int:
    """len(keys_of_word(word)), without stemming the pieces."""
    parts = _PART.findall(word.decode("ascii"))
    return sum(1 for p in parts if len(p) > 1 and not p.isdigit()) + (len(parts) > 1)


class _Sizes(dict):
    """Word -> `_size`, worked out at its first look-up (`__missing__`): `word_total` looks every word up
    in C, with no pass of its own to find the words not seen yet."""

    def __missing__(self, word: bytes) -> int:
        n = _size(word)
        if len(self) < 200_000:   # the cache's bound
            self[word] = n
        return n


_SIZES = _Sizes()


def word_total(data: bytes) -> int:
    """`sum(text_counts(text).values())` for the text `data` decodes to, from its bytes (the words are
    ASCII in either encoding): the length the ranking weighs a file by, for a scan of every file."""
    return sum(map(_SIZES.__getitem__, data.translate(_SPACED).split()))


def path_keys(path: str) -> dict[str, int]:
    """Key -> 1 when only a folder of `path` holds it, 2 when its file name does (extension left out).
    A kebab-case name is an identifier too: `edit-monitor` gives `editmonitor`, as `EditMonitor` does."""
    folder, _, name = path.rpartition("/")
    stem_name = name.rsplit(".", 1)[0] if "." in name[1:] else name
    keys = _FOLDERS.get(folder)
    if keys is None:
        keys = {k: 1 for part in folder.split("/") for k in _segment_keys(part)}
        if len(_FOLDERS) < 50_000:
            _FOLDERS[folder] = keys
    out = dict(keys)
    out.update({k: 2 for k in _segment_keys(stem_name)})
    return out


_FOLDERS: dict[str, dict[str, int]] = {}
"""A folder's keys, each 1: a build asks for every file's, and most files share their folder with others."""


def _segment_keys(segment: str) -> list[str]:
    keys = [k for w in _WORD.findall(segment) for k in keys_of_word(w)]
    kebab = segment.split(".")[0].split("-")
    if len(kebab) > 1 and all(p.isalnum() for p in kebab):
        keys.append("".join(kebab).lower())
    return keys


def name_counts(names: list[str]) -> dict[str, int]:
    """Key -> how many of these definition names hold it."""
    out: dict[str, int] = {}
    for name in names:
        for k in {k for w in _WORD.findall(name) for k in keys_of_word(w)}:
            out[k] = out.get(k, 0) + 1
    return out
