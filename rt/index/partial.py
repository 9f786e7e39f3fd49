"""The index of a cold repository, for the first `/runtask`: every file listed, read once and measured,
and only the files a look-up can reach parsed, when it asks.

A full build parses every file and writes every shard (about 10 s of CPU on 20,000 files); the first
`/runtask` in a repository without `.rt/` cannot make the user wait for it. This index gives the ranking,
the pack and the injection what the full index would: the paths, and each file's lines and words, from
one read of every text file; a look-up of a ranking key, a name, a word or an importer first narrows the
files to those whose bytes can hold it (a superset: the key or name as a substring, lower-case, with
underscores left out), parses those as the full build does, and answers from their entries. The one
thing it cannot give without parsing every matching file is the ranking's definition-name channel;
`rank.settle` parses the files that could still reach the best ranked ones and leaves the rest.

It lives in memory only: `.rt/index/` holds only full builds, which `start_build` runs after the hook.
"""
from __future__ import annotations

import contextlib
import keyword
import posixpath
import re
import subprocess
import sys
from array import array
from bisect import bisect_right
from collections import Counter
from functools import cached_property

from rt.core import content_kind, decode, read_text_bytes
from rt.index import terms
from rt.index.i18n import ranked_text
from rt.index.clike import _MODIFIERS, KEYWORDS
from rt.index.index import FileEntry, line_count, parse_all
from rt.index.langs import BUILT_LANGS, MINIFIED_LINE, UNREAD, built, folder_counts, language, minified
from rt.index.tags import TAGGED, definitions, program

PARTIAL_FROM = 1000
"""Files from which a cold `/runtask` ranks on this index: below, the full build in the hook costs under a
second of CPU, and no build is left running after it."""
DEF_LANGS = frozenset({"python", "javascript", "typescript", "vue", "svelte", "go", "rust", "java"})
"""The languages whose files have definitions and imports (`langs.parse`); others only words."""
_KEYWORDS = (rb"def|class|function|func|fn|type|interface|enum|struct|trait|union|mod|module|namespace|record|"
             rb"const|let|var|static|impl|macro_rules!")
"""Words a definition's name can follow (`langs.parse`'s readers); elsewhere a name being defined is
followed by `(`, `=`, `:`, `<`, `{`, `,` or `;` (`_AFTER`; the JavaScript family's `_AFTER_JS`), or ends its
line, or starts it (a Go `var (` group)."""
_PACKAGE_FILES = frozenset({"__init__", "index", "mod", "lib", "main"})
"""File names an import names by their folder (`from pkg import x`, `import '.'`, a Rust module)."""
_JS_LANGS = frozenset({"javascript", "typescript", "vue", "svelte"})
_QUOTED_SPECS = _JS_LANGS | {"go"}
"""Languages whose imports are string literals (`clike._imports`)."""
_NAMED_IMPORTS = frozenset({"python", "rust", "java"})
"""Languages whose files only their own language imports, by name; any other file (code, JSON, a stylesheet)
a JavaScript-family one can import by a string."""
_RELATIVE = {**dict.fromkeys(_QUOTED_SPECS, re.compile(rb"[\"'`]\.")), "python": re.compile(rb"\bfrom\s+\.")}
"""What a relative import looks like, where a language's has a form of its own."""
_ANY = re.compile(rb"")
_BY_FOLDER = frozenset({"java"})
"""Of the languages whose imports name a file, those whose (wildcard) import names a package's folder: Java's.
(A Go package's import path is worked out whole: `Partial._specs`.)"""


def _fold(data: bytes) -> bytes:
    """What look-ups search: lower-case ASCII, underscores left out (`toggle_sidebar` holds `togglesidebar`)."""
    return data.lower().replace(b"_", b"")


def _built(path: str, data: bytes) -> bool:
    """`langs.built`, decoding only the head and the tail of the few files in its languages."""
    lang = language(path)
    return lang in BUILT_LANGS and built(lang, decode(data[:2000]), decode(data[-3000:]))


def _minified(data: bytes) -> bool:
    """`langs.minified`, decoding only when a line's bytes are over MINIFIED_LINE."""
    return len(data) > MINIFIED_LINE and _long_line(data) and minified(decode(data))


def _long_line(data: bytes) -> bool:
    """Whether a line's bytes are over MINIFIED_LINE. Such a line holds a whole block of MINIFIED_LINE // 2
    bytes that starts at a multiple of it: only the blocks without a newline are looked at, and no list of
    every line is made (a scan of every file of the tree)."""
    step = MINIFIED_LINE // 2
    for k in range(0, len(data) - step + 1, step):
        if data.find(b"\n", k, k + step) < 0:
            end = data.find(b"\n", k)
            if (len(data) if end < 0 else end) - data.rfind(b"\n", 0, k) - 1 > MINIFIED_LINE:
                return True
    return False


def _offsets(parts) -> array:
    """Where each of `parts` starts in the parts joined by one separator, and one more: where the next would."""
    starts = array("Q", [0])
    for part in parts:
        starts.append(starts[-1] + len(part) + 1)
    return starts


def _holders(blob, starts: array, needle):
    """The numbers of the parts of `blob` (joined, each starting at `starts`) that hold `needle`, in order and
    each once: one hit in a part says enough, the search goes on at the next."""
    i = blob.find(needle)
    while i >= 0:
        n = bisect_right(starts, i) - 1
        yield n
        i = blob.find(needle, starts[n + 1])


_NEVER_NAMES = frozenset(keyword.kwlist) & (KEYWORDS - _MODIFIERS - {"constructor"})
"""Names no definition has: Python's `ast` refuses its keywords, `clike` skips its own but modifiers."""
_WORD_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
"""The bytes of a word, lower-case (`terms.text_counts`' words)."""
_TOKEN_CHARS = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$")
"""The bytes of a name as the readers take it."""
_BEFORE = re.compile(rb"\b(?:" + _KEYWORDS + rb")\s+(?:\*\s*)?$")
_AFTER = re.compile(rb"\s*\??\s*(?:[=:(<{,;]|$)", re.MULTILINE)
_AFTER_JS = re.compile(rb"\??<|\s*\??\s*(?:\(|<[^;{}]*?>\s*\(|=(?!=)\s*(?:function|async|[(<]|[A-Za-z_$][\w$]*\s*=>))")
"""What follows a name the JavaScript family's reader takes for a definition without a keyword before it: a
method's parameters (`name(`, `name<T>(`, `name?(`; `name<` alone too) or a class property's function
(`name = () =>`). A JSX prop (`to={...}`), an object's key (`left: 0`) or JSX text (`the <em>`) is none."""
_ESCAPE = re.compile(rb"\\.")
_SPACE_OR_STAR = frozenset(b" \t\r\f\v*")
"""How a line ends before a name `_BEFORE` can find a keyword before (the search is the costly test)."""


class _Defining:
    """Finds where a file may define `name`, as its language's reader can: the name as a token, after a
    defining keyword, or before what follows a name being defined (a Python constant's only if it is upper
    case), or (a Go group's) first on its line; not in a comment or a string begun on its line. (A regular
    expression of the three is slow: it tries every keyword at every position.)"""

    def __init__(self, name: str):
        self.token = _token(name)
        self.upper = name.isupper()

    def search(self, data: bytes, lang: str) -> bool:
        return any(_defines_at(data, m.start(), m.end(), lang, self.upper) for m in _tokens(self.token, data))


def _token(name: str) -> re.Pattern:
    """`name` not followed by a name's byte; `_tokens` checks the byte before. (With that check as a look-behind
    first, the expression has no literal to search for and tries every position: 20-30 times slower.)"""
    return re.compile(re.escape(name.encode("utf-8", "surrogateescape")) + rb"(?![\w$])")


def _tokens(token: re.Pattern, data: bytes):
    """The matches of `_token`'s pattern in `data` that are whole names, as the readers take them."""
    for m in token.finditer(data):
        if not m.start() or data[m.start() - 1] not in _TOKEN_CHARS:
            yield m


def _defines_at(data: bytes, start: int, end: int, lang: str, upper: bool) -> bool:
    """Whether the name at data[start:end] may be a definition's (`_Defining`)."""
    line = data[data.rfind(b"\n", 0, start) + 1:start]
    after = _AFTER_JS if lang in _JS_LANGS else _AFTER if lang != "python" or upper else None
    if not (after is not None and after.match(data, end) or line and line[-1] in _SPACE_OR_STAR and _BEFORE.search(line)
            or lang == "go" and not line.strip(b" \t") and data[end:end + 1] in (b" ", b"\t")):
        return False
    return not (line.endswith(b".") or _commented(line, lang) or _in_string(line))


def _commented(line: bytes, lang: str) -> bool:
    """Whether a line's text before a name puts it in a comment: a `#` one in Python, else `//` with no
    quote before it, or a block comment's line (`/*` not closed on it, ` * ...`)."""
    lead = line.lstrip(b" \t")
    if lang == "python":
        return lead.startswith(b"#")
    if lead.startswith(b"/*") and b"*/" not in lead or lead.startswith(b"* ") or lead == b"*":
        return True
    cut = line.find(b"//")
    return cut >= 0 and not any(q in line[:cut] for q in b"\"'`")


def _in_string(line: bytes, quotes: bytes = b'"`') -> bool:
    """Whether a line's text before a name leaves a string of these quotes open."""
    line = _ESCAPE.sub(b"", line)
    return any(line.count(q) % 2 for q in quotes)


def _import_spec(tails: set[str], exact: set[str], heads: set[str]) -> re.Pattern:
    """A string an import can reach a file by: ending with one of `tails` as its last segment (`"./Heading"`,
    `"../nodes/Heading.js"`, `"./nodes/"`), one of `exact` (`"@shared/nodes/Heading"`, a Go package's
    `"x/y/pkg"`), or starting with one of `heads`."""
    def alternatives(words):
        return b"|".join(re.escape(w.encode("utf-8", "surrogateescape")) for w in sorted(words)) or rb"(?!)"
    return re.compile(rb"[\"'`](?:(?:[^\"'`\n]*/)?(?:" + alternatives(tails) + rb")/?[\"'`]|(?:"
                      + alternatives(exact) + rb")/?[\"'`]|(?:" + alternatives(heads) + rb"))")


def _needle(key: str) -> bytes:
    """A substring of every word whose ranking keys hold `key`: a key is its piece's start (`terms.stem`
    cuts endings; only `-ies` becomes `-y`) or a whole identifier, its underscores left out."""
    return (key[:-1] if key.endswith("y") and len(key) > 1 else key).encode("utf-8", "surrogateescape")


class Partial:
    """The index interface the ranking, the pack and the injection read (`index.Index`'s), for a tree
    not indexed yet: `files` maps every path to (blob id, kind), as `snapshot.scan` gives them."""

    complete = False

    def __init__(self, repo, files: dict[str, tuple[str, str]], texts: dict[str, bytes] | None = None):
        """`texts`: the bytes of text files already read (`snapshot.scan`), taken over instead of read again."""
        self.repo, self._files = repo, files
        texts = texts or {}
        self.paths = sorted(files)
        self._ids = {p: i for i, p in enumerate(self.paths)}
        self.lines, self.words = array("I"), array("I")
        self._ranked: dict[int, bytes] = {}   # a file's bytes the ranking counts words in, where not all of them
        self._texts: list[bytes] = []   # each file's bytes; b"" for a minified one or a build's output, of
        unread: set[int] = set()         # which the full build keeps no words, names, keys or path words
        for p in self.paths:
            data = (texts.pop(p, None) or read_text_bytes(repo, p)) if content_kind(files[p][1]) == "text" else None
            if data is None:
                self.lines.append(0)
                self.words.append(0)
                self._texts.append(b"")
                continue
            self.lines.append(line_count(data))
            if _minified(data) or _built(p, data):
                unread.add(len(self._texts))
                data = b""
            ranked = ranked_text(language(p), data)   # the words the full index counts: a catalogue's, no comment's
            if ranked is not data:
                self._ranked[len(self._texts)] = ranked
            self.words.append(terms.word_total(ranked) if ranked else 0)
            self._texts.append(data)
        folded = [_fold(data) for data in self._texts]
        folded_paths = ["" if i in unread else p.lower().replace("_", "").replace("-", "")   # as `_path_postings`
                        for i, p in enumerate(self.paths)]
        self._path_starts, self._path_blob = _offsets(folded_paths), "\0".join(folded_paths)   # searches them
        self._starts, self._blob = _offsets(folded), b"\0".join(folded)
        self.entries: dict[int, FileEntry] = {}
        self._names: dict[int, dict[str, int]] = {}
        self._tag_names: dict[int, set[str]] = {}   # file -> the names ctags found it defines (`_tag`)
        self._tags_read = False
        self._tag_defs: dict[int, list] = {}   # file -> its definitions from ctags, for its entry when parsed
        self._resolved: set[int] = set()
        self._tree = None
        self._cache: dict[tuple[str, str], list] = {}
        self._most: dict[str, dict[int, int]] = {}   # key -> file -> its most definitions' names (at_most)
        self.parsed = 0
        self.upper = False   # see at_most

    # ------------------------------------------------------------ what every look-up starts from

    def _find(self, needle: bytes) -> list[int]:
        """Files whose folded text holds `needle` (folded too), by file number."""
        return list(_holders(self._blob, self._starts, _fold(needle)))


    @cached_property
    def _tagged_files(self) -> frozenset[int]:
        """The files in ctags' languages with a text (`tags.TAGGED`), found once: `_tag` is asked of every key's holders."""
        return frozenset(f for f, p in enumerate(self.paths) if self._texts[f] and language(p) in TAGGED)

    def _tag(self, fids) -> None:
        """At the first of these files in ctags' languages, run it once over every file in them: their definitions
        are then known (`_tag_defs`, `_tag_names`) without parsing them, as the full build gives them. (A C
        function's name looks like its calls: every occurrence taken for a possible definition, a cold
        `/runtask` in a C repository parsed most of its files; the task's stop words, checked for a name
        defined, reach most files too, so one run over all costs the least: 0.5 s on redis's 986.)"""
        if self._tags_read or self._tagged_files.isdisjoint(fids) or not program():
            return
        self._tags_read = True
        todo = sorted(self._tagged_files)
        found = definitions(str(self.repo.root), [(self.paths[f], language(self.paths[f]), decode(self._texts[f]))
                                                  for f in todo])
        for f in todo:   # their `_names` when the ranking asks (`postings`)
            self._tag_defs[f] = found.get(self.paths[f], [])
            self._tag_names[f] = {d.name for d in self._tag_defs[f]}

    def parse(self, fids) -> None:
        """Parse these files as the full build does (in a process pool when many)."""
        todo = [(self.paths[f], *self._files[self.paths[f]]) for f in sorted(set(fids)) if f not in self.entries]
        self._tag([self._ids[p] for p, _, _ in todo])
        for e in parse_all(str(self.repo.root), todo, counts=False, ctags=False):
            fid = self._ids[e.path]
            if fid in self._tag_defs and e.note not in UNREAD:
                e.defs = self._tag_defs[fid]
            self.entries[fid] = e
            self._names[fid] = terms.name_counts([d.name for d in e.defs])
        self.parsed += len(todo)

    def _reach(self, kind, name: str, keep=None) -> list[int]:
        """The files a look-up of `name` can find, parsed: those holding it (folded), and for which
        `keep(file number)` holds when given. `kind` tells the look-ups apart in the cache."""
        got = self._cache.get((kind, name))
        if got is None:
            got = self._find(name.encode("utf-8", "surrogateescape"))
            if keep is not None:
                got = [f for f in got if keep(f)]
            self.parse(got)
            self._cache[kind, name] = got
        return got

    # ------------------------------------------------------------ what the ranking reads (rt/pack/rank.py)

    @contextlib.contextmanager
    def at_most(self):
        """Within it, a file not parsed yet counts every occurrence of a key in its text where a name may
        be defined (`_defines_at`) as a definition's name (`postings("nterms", ...)`): the most its
        definitions could give it (`rank.settle`)."""
        self.upper = True
        try:
            yield self
        finally:
            self.upper = False

    def path_of(self, number: int) -> str:
        return self.paths[number]

    def stats(self, number: int) -> tuple[int, int]:
        return self.lines[number], self.words[number]

    @property
    def mean_words(self) -> float:
        return sum(self.words) / ((len(self.lines) - self.lines.count(0)) or 1)

    def postings(self, kind: str, key: str) -> list:
        """As `Index.postings`; "nterms" of the parsed files only, and with `upper`, of each file not
        parsed its most: as many definitions' names as its text has occurrences of the key where a name
        may be defined."""
        if kind == "nterms":   # a definition's name is a word of its file's text
            out = []
            most = self._most[key] if self.upper else None
            for v in self.postings("terms", key):
                fid = v if type(v) is int else v[0]
                names = self._names.get(fid)
                if names is None and fid in self._tag_defs:   # known from ctags, not parsed yet
                    names = self._names[fid] = terms.name_counts([d.name for d in self._tag_defs[fid]])
                n = names.get(key) if names is not None else most.get(fid) if most is not None else None
                if n:
                    out.append(fid if n == 1 else [fid, n])
            return out
        got = self._cache.get((kind, key))
        if got is None:
            got = self._cache[kind, key] = self._text_postings(key) if kind == "terms" else self._path_postings(key)
        return got

    def _text_postings(self, key: str) -> list:
        """The "terms" postings of `key`; and, for `at_most`, each file's count of them where a name may be
        defined (the whole `[\\w$]` token around the word taken for the name)."""
        needle = _needle(key)
        out = []
        most = self._most[key] = {}
        holders = self._find(needle)
        self._tag(holders)
        for fid in holders:
            data, lang = self._ranked.get(fid, self._texts[fid]), language(self.paths[fid])
            n = d = 0
            for start, word in self._holding(fid, needle, data):
                k = terms.keys_of_word(word.decode("ascii")).count(key)
                if k and lang in DEF_LANGS:
                    s, e = start, start + len(word)
                    while s and data[s - 1] in _TOKEN_CHARS:
                        s -= 1
                    while e < len(data) and data[e] in _TOKEN_CHARS:
                        e += 1
                    d += k if _defines_at(data, s, e, lang, data[s:e].isupper()) else 0
                n += k
            if n:
                out.append(fid if n == 1 else [fid, n])
            if d:
                most[fid] = d
        return out

    def _holding(self, fid: int, needle: bytes, data: bytes) -> list[tuple[int, bytes]]:
        """The words of a file whose folded form holds `needle`, one per occurrence, with where each
        starts: found where the lower-case text holds it, or (underscores inside the needle's span) by a
        slower expression. (A text without an underscore is its folded form lower-case: no count to compare.)
        `data` is the file's bytes or the part the ranking counts (`_ranked`), which holds the needle no more often."""
        low = data.lower()
        if b"_" in data and low.count(needle) != self._blob.count(needle, self._starts[fid], self._starts[fid + 1] - 1):
            holding = re.compile(rb"(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]*?" + b"_*".join(
                re.escape(needle[i:i + 1]) for i in range(len(needle))) + rb")[A-Za-z0-9_]+", re.IGNORECASE)
            return [(m.start(), m.group()) for m in holding.finditer(data)]
        words, last = [], -1
        i = low.find(needle)
        while i >= 0:
            start = i
            while start and low[start - 1] in _WORD_CHARS:
                start -= 1
            if start > last:   # a word holding the needle twice is one word
                last = start
                words.append((start, terms.WORD_BYTES.match(data, start).group()))
            i = low.find(needle, i + 1)
        return words

    def _path_postings(self, key: str) -> list:
        needle = _needle(key).decode("utf-8", "surrogateescape")
        out = []
        for fid in _holders(self._path_blob, self._path_starts, needle):
            n = terms.path_keys(self.paths[fid]).get(key)
            if n:
                out.append(fid if n == 1 else [fid, n])
        return out

    def unparsed(self, keys) -> list[int]:
        """The files not parsed yet whose text holds one of `keys`: parsing them may raise their score."""
        out = {v if type(v) is int else v[0] for key in keys for v in self.postings("terms", key)}
        return sorted(f for f in out if f not in self.entries)

    # ------------------------------------------------------------ look-ups (Index's)

    @cached_property
    def folder_langs(self) -> Counter:
        return folder_counts(self.paths)

    def entry(self, path: str) -> FileEntry | None:
        fid = self._ids.get(path)
        if fid is None:
            return None
        self.parse([fid])
        return self.entries[fid]

    def definitions(self, name: str) -> list:
        """As `Index.definitions`: the files that may define `name` (it follows a defining keyword, or
        comes before what follows a name being defined) are parsed first; no reader takes a keyword of
        both Python and the C-like languages (`for`, `in`) for a name."""
        if name in _NEVER_NAMES:
            return []
        defining = _Defining(name)

        if ("defs", name) not in self._cache:
            self._tag(self._find(name.encode("utf-8", "surrogateescape")))

        def keep(f: int) -> bool:
            if f in self._tag_names:
                return name in self._tag_names[f]
            lang = language(self.paths[f])
            return lang in DEF_LANGS and defining.search(self._texts[f], lang)
        return [(self.paths[f], d) for f in self._reach("defs", name, keep) for d in self.entries[f].defs if d.name == name]

    def users(self, ident: str, among=None) -> list[str]:
        """As `Index.users`, parsing only the files `among` keeps: a file of a language with a reader uses
        `ident` where it is code, not in a comment or a double-quoted string (but in Python's f-strings
        and after a template's `${`, which hold code); others anywhere."""
        token = _token(ident)

        def keep(f: int) -> bool:
            if among is not None and not among(self.paths[f]):
                return False
            data, lang = self._texts[f], language(self.paths[f])
            if lang not in DEF_LANGS:
                return next(_tokens(token, data), None) is not None
            for m in _tokens(token, data):
                line = data[data.rfind(b"\n", 0, m.start()) + 1:m.start()]
                if not _commented(line, lang) and (lang == "python" or b"${" in line or not _in_string(line, b'"')):
                    return True
            return False
        return [self.paths[f] for f in self._reach(("idents", among), ident, keep) if ident in self.entries[f].idents]

    def with_word(self, word: str) -> list[str]:
        return [self.paths[f] for f in self._reach("words", word) if word in self.entries[f].words]

    def key_users(self, key: str) -> list[str]:
        return [self.paths[f] for f in self._reach("keys", key) if key in self.entries[f].keys]

    def _resolver(self):
        """What import resolution knows of the tree (`resolve.Tree`), worked out once."""
        if self._tree is None:
            from rt.index.resolve import Tree
            self._tree = Tree(self.repo, set(self.paths))
        return self._tree

    def importers(self, path: str) -> list[str]:
        """As `Index.importers`: the files whose imports can reach it, parsed, and their imports resolved.
        A JavaScript-family or Go import is a string the resolver takes to the file (`_specs`); a Python,
        Rust or Java import names the file's name or its folder's; a package's own file is also reached
        by a relative import from under its folder."""
        got = self._cache.get(("importers", path))
        if got is not None:
            return got
        folder, _, name = path.rpartition("/")
        stem = name.split(".")[0]
        package = stem in _PACKAGE_FILES
        if language(path) not in _NAMED_IMPORTS:
            tails, exact, heads = self._specs(path)
            spec = _import_spec(tails, exact, heads)
            needles = set()   # each spelling holds one of these: the shortest, once (each is a pass over the tree)
            for n in sorted({_fold(s.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape")
                             for s in tails | exact | heads}, key=len):
                if not any(k in n for k in needles):
                    needles.add(n)
        else:
            spec = None
            needles = {stem} | ({posixpath.basename(folder)} if package or language(path) in _BY_FOLDER else set())
        found: set[int] = set()
        for needle in needles - {""}:
            for f in self._find(needle.encode("utf-8", "surrogateescape")):
                lang = language(self.paths[f])
                if lang in DEF_LANGS and (lang not in _QUOTED_SPECS or spec is None or spec.search(self._texts[f])):
                    found.add(f)
        if package:   # a relative import from under its folder: `'.'`, `'../..'`, `from . import`
            inside = folder + "/" if folder else ""
            for f, p in enumerate(self.paths):
                lang = language(p)
                if p.startswith(inside) and lang in DEF_LANGS and _RELATIVE.get(lang, _ANY).search(self._texts[f]):
                    found.add(f)
        self.parse(found)
        fresh = {self.paths[f]: self.entries[f] for f in sorted(found - self._resolved)}
        if fresh:
            from rt.index.resolve import resolve_all
            tree = self._resolver()
            resolve_all(self.repo, fresh, tree.paths, tree)
            self._resolved.update(found)
        got = self._cache["importers", path] = [self.paths[f] for f in sorted(found)
                                                 if self.paths[f] != path and path in self.entries[f].resolved]
        return got

    def _specs(self, path: str) -> tuple[set[str], set[str], set[str]]:
        """The import strings that reach `path` (`resolve._js`, `resolve._go`): the last segments a relative
        one ends with (its name with or without an extension, after its folder's for a package's own file,
        an index file's folder's); whole strings (each tsconfig alias's spelling of it, a Go package's
        import path); the heads of aliases whose target is the file whatever follows."""
        from rt.index.resolve import JS_EXTS
        folder, _, name = path.rpartition("/")
        stem = name.split(".")[0]
        tree = self._resolver()
        if language(path) == "go":
            return set(), {mod + ("/" + folder[len(top) + 1 if top else 0:] if folder != top else "")
                           for mod, top in tree.go_mods if folder == top or not top or folder.startswith(top + "/")}, set()
        bare = [path[:-len(e)] for e in JS_EXTS if path.endswith(e)]   # as `_with_exts` reaches a file
        bases = {path, *bare, *(b + e for b in bare for e in (".js", ".jsx", ".mjs", ".cjs"))}
        if stem == "index":
            bases.add(folder)
        tails = {posixpath.basename(b) for b in bases}
        if stem in _PACKAGE_FILES:   # from outside its folder named with it (from inside: `importers`' relative imports)
            top = posixpath.basename(folder)
            tails = {t if t == top else f"{top}/{t}" for t in tails}
        whole, heads = set(), set()
        for where, pattern, targets in tree.aliases:
            head, star, tail = pattern.partition("*")
            for t in targets:
                pre, mark, suf = posixpath.normpath(posixpath.join(where, t.replace("*", "\0", 1) if star else t)).partition("\0")
                if not mark:
                    if pre in bases:
                        (heads if star else whole).add(head)
                    continue
                whole.update(head + b[len(pre):len(b) - len(suf)] + tail for b in bases
                             if b.startswith(pre) and b.endswith(suf) and len(b) >= len(pre) + len(suf))
        return tails - {""}, whole - {""}, heads - {""}


def start_build(repo) -> None:
    """Build the full index after the hook, in a process of its own that outlives it: `rt index`, in a
    new session, its output dropped. Its lock makes a look-up meanwhile wait for it, and its meta file,
    written last, makes it current; a failure leaves the next look-up to build it."""
    args = [sys.executable, "-P"] + (["-S"] if sys.flags.no_site else []) + ["-m", "rt", "index"]   # -P: not the project's rt/
    try:
        subprocess.Popen(args, cwd=repo.root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        pass
