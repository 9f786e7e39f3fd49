"""What `/runtask` puts into the model's first request, within what Claude Code keeps inline.

Claude Code replaces a hook's text longer than 10,000 characters with a 2 KB preview, so all of it
fits INJECT_CHARS. Every byte is paid for again on each later request of the session, so it is chosen
for value per byte, in this order:

- the code of the definitions the task most likely changes, numbered as Read numbers lines, so the
  model can Read just the lines it edits (Edit needs a Read of the file; a hook's copy does not count,
  so injected code is paid for twice only for those few lines) and needs no search before its edit;
- the lines holding the task's most telling words in the next ranked files, numbered, as Grep with line
  numbers would give them: the change is often in one of those files, and a line or three of each costs
  less than the search the model would run for them;
- the test nearest to that code (its head and tail when long), where a new test usually goes: a
  request saved costs more than those lines;
- the other tests using the code as `Read path offset=N limit=M` lines: a location costs one line where its
  code would cost the whole test, and most are not needed;
- the checks `rt verify` will run and what their baseline already holds.

The full manifest and pack are written next to the task and named at the end, for a Read when this
is not enough. The ranking and the fragments come from `rank()` and `fragments()`; nothing is ranked
here.
"""
from __future__ import annotations

import itertools
import math
import re
from collections import Counter

from rt import budget, journal
from rt.core import first_few, is_test, lines as split_lines, shown as path_line
from rt.index.langs import language
from rt.index.terms import keys_of_word
from rt.pack.fragments import FEW_DEFS, Fragment, as_keys, fragments, line_keys, weight_of, words_giving
from rt.pack.rank import kind_of, short, weighed_kind

INJECT_CHARS = 9500
"""The whole injection, hook prefix left aside: under Claude Code's 10,000-character inline limit."""
CODE_CHARS = 4500
TEST_CHARS = 1500
"""The numbered code of the best definitions, and what the test most about them may add; the rest of
the room is for locations and the checks."""
CODE_FILES = 3
"""Files whose definitions may be shown as code (the best-ranked non-test files, pinned ones first)."""
TESTS = 3
"""At most this many other test functions given as Read lines."""
TEST_WORDS = frozenset(as_keys(["test", "tests", "spec", "specs", "testing"]))
"""Task words that name every test ("add a test"), so they cannot say which test is about the task."""
TEST_CODE = 2
TEST_LINES = 30
TEST_HEAD, TEST_TAIL = 8, 4
"""The best tests (TEST_CODE at most) are shown as code when the code room allows: whole when shorter
than TEST_LINES, else their first and last lines."""
TEST_READ = 60
"""The most lines of a test offered as a Read: the first ones of a longer one (its set-up and first cases show
the style; jekyll's `class TestCollections` was offered whole, 351 lines)."""
PER_FILE = 2
"""At most this many tests of one file, as code or Read lines."""
TEST_FILES = 3
"""Test files read to find the test functions using the shown code."""
REST_LINES = 200
"""The most lines of a definition shown in part that its header offers to Read whole."""
TRIED = 20
"""The task's words named when none picks out a file, the rest counted: a long spec pasted into an empty
repository named every one of its words, past the client's inline limit."""
LEAD_IN = ("#", "//", "/*", "*", "@")
"""Lines above a definition that belong to it: comments, doc comments, decorators and annotations."""
NAMED = 3
NAMED_LINES = 80
"""A name the task writes as code is shown when it is defined in at most NAMED places, its first
NAMED_LINES lines (a Read line gives the rest)."""
KEEP = 0.4
"""Code is shown down to this share of the best fragment's value; the rest only as locations."""
WHOLE_DEF = 40
"""A matching definition this short is shown whole here (the pack shows longer ones whole): CODE_CHARS holds a
few short pieces, and a long function whole would leave no room for the other files' matching lines (160 lowered
all answer code in three HELD-OUT groups). Of a file's matching definitions, `fragments.FEW_DEFS` at most."""
LEAD_ROOM = 4000
"""The best-ranked file's fragments are chosen as the pack chooses them in this room, so a file of up to
WHOLE_FIT lines that fits is shown whole: a commit often edits lines near the task's words, not on them."""
LINE_FILES = 8
LINE_HITS = 3
LINE_BAR = 0.6
LINE_WIDTH = 200
RANKED = 12
"""The next code files of the first RANKED not shown as code (LINE_FILES at most) each give their LINE_HITS
lines whose task words weigh most, if one of their words weighs at least LINE_BAR of the task's most telling
word: a line of common words only is a guess. Import lines and lines longer than LINE_WIDTH (minified, data)
are left out."""
_IMPORT = re.compile(r"\s*(?:import\b|from\s+\S+\s+import\b|use\s|#include\b|export\s.*\bfrom\s)|.*\brequire\(")
_KEYWORDS = frozenset("""async await break case catch class const continue def default do elif else enum except export
extends finally fn for func function if implements import instanceof interface lambda let mut pass pub raise return
static struct switch throw throws try typeof var while yield""".split())
"""Keywords of the languages rt reads: in code, `continue;` says nothing of a task's "continues"."""


def _numbered(frag: Fragment) -> str:
    return "".join(f"{n}\t{line.rstrip(chr(10))}\n" for n, line in enumerate(frag.lines, frag.start))


def _read_line(path: str, start: int, end: int, what: str) -> str:
    return f"Read {path} offset={start} limit={end - start + 1}" + (f"  ({what})" if what else "")


def _rest(path: str, start: int, end: int) -> str:
    """What a header says of the lines `start`-`end` of a definition it does not show: a Read of them, unless
    they are more than REST_LINES (rich's `class Console`: 2,025 lines), which a Read costs more than the task."""
    if end - start + 1 > REST_LINES:
        return f" (to line {start - 1}; lines {start}-{end} not shown)"
    return f" (to line {start - 1}; {_read_line(path, start, end, '')} for the rest)"


def _value(frag: Fragment, terms: set[str], place: int) -> float:
    """Task words in the fragment's names count three times those in its lines; later files count less,
    and so do windows of matching lines outside any definition (they rarely hold the change)."""
    named = len(terms & line_keys(" ".join(frag.names)))
    body = len(terms & line_keys("".join(frag.lines)))
    return (3 * named + body) / (1 + place) * (1.0 if frag.names else 0.5)


def _owner(d) -> str:
    """The class a definition is in, as its label names it: the innermost only (rubocop's `on_def` is in
    `RuboCop.Cop.Lint.UnusedPrivateMethod`, named `UnusedPrivateMethod.`: the file's path says the rest)."""
    return d.parent.rpartition(".")[2] + "." if d.parent else ""


def _label(entry, frag: Fragment) -> tuple[str, int]:
    """What a fragment shows, and the last line of the definition it belongs to (past `frag.end` when cut): the
    definitions starting in it, the first three (sinatra's `ETAG_KINDS` line and the `etag` method after it were
    labelled by the constant alone), each name once (okhttp's two `onReadMessage` overloads)."""
    shown = [d for d in entry.defs if frag.start <= d.start <= frag.end and d.name in frag.names] if entry else []
    if not shown:
        return frag.what, frag.end
    outer = [d for d in shown if not any(o is not d and o.start <= d.start and d.end <= o.end for o in shown)] or shown[:1]
    names = list(dict.fromkeys(f"{d.kind} {_owner(d)}{d.name}" for d in outer))   # overloads once
    return ", ".join(names[:3]) + (", ..." if len(names) > 3 else ""), max(max(d.end for d in shown), frag.end)


_IDENT = re.compile(r"(?<![\w.$/:-])[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*")
"""A name the task writes as code, dotted or with C++'s, Rust's and PHP's `::` (spdlog's `registry::get`)."""


def _shaped(word: str) -> bool:
    """Written as code rather than English: snake_case, camelCase, PascalCase of two words or more."""
    return "_" in word.strip("_") or bool(re.search(r"[a-z0-9][A-Z]", word))


def _named(view) -> list[Fragment]:
    """The definitions the task names as code (`Argument.make_metavar`, `withBase`, `parse_args`) or as a
    class's constructor ("Option's constructor"): the user has said where the change is. A dotted name
    must match its parent; a name defined in more than NAMED places says too little."""
    out: list[Fragment] = []
    for defs in _references(view):
        defs = [(p, d) for p, d in defs if not is_test(p) and kind_of(p) != "vendored"]
        if not defs or len(defs) > NAMED:
            continue
        for path, d in defs:
            lines = split_lines(view.read(path), True)
            start = d.start
            while start > 1 and lines[start - 2].lstrip().startswith(LEAD_IN):
                start -= 1   # its comment and decorators: a change often starts there
            end = min(d.end, start + NAMED_LINES - 1, len(lines))
            if end >= start:
                out.append(Fragment(path, start, end, len(lines), f"{d.kind} {d.name}", lines[start - 1:end], [d.name]))
    return out


_CONSTRUCTOR = re.compile(r"\b([A-Z]\w*)(?:'s|’s)? constructor\b|\bconstructor of (?:the )?`?([A-Z]\w*)")
CONSTRUCTORS = ("__init__", "constructor", "new")
"""A class's constructor by language: Python, JavaScript/TypeScript, Rust (`impl X { fn new`); Go's is `NewX`."""


def _references(view) -> list[list]:
    """The definitions (path, definition) each name the task writes as code, or each "X's constructor",
    may mean."""
    out = []
    for word in dict.fromkeys(w.replace("::", ".") for w in _IDENT.findall(view.text)):
        parent, _, leaf = word.rpartition(".")
        if not (_shaped(word) or parent):
            continue
        defs = view.index.definitions(leaf) if _shaped(leaf) or parent else []
        if parent:
            exact = [(p, d) for p, d in defs if d.parent == parent or d.parent.endswith("." + parent)]
            defs = exact or (defs if _shaped(leaf) else [])
        out.append(defs)
    for cls in dict.fromkeys(a or b for a, b in _CONSTRUCTOR.findall(view.text)):
        out.append([(p, d) for name in CONSTRUCTORS for p, d in view.index.definitions(name)
                    if d.parent == cls or d.parent.endswith("." + cls)] + view.index.definitions("New" + cls))
    return out


def _candidates(view, weights: dict[str, float]) -> list[tuple[bool, float, Fragment]]:
    """Fragments worth showing from the best files: first the ones that must be shown (the definitions the
    task names, the pinned files', else the best-ranked file's best), then the rest by value. `weights`
    are the ranking's keys, given to `fragments()` as keys: a stem is not stemmed again."""
    terms = set(weights)
    named = _named(view)
    pins = [f.path for f in view.ranking.files if f.why == ["pinned"]]   # they lead the ranking
    pinned = [p for p in pins if not is_test(p)]
    files = pinned + [f.path for f in view.ranking.files[len(pins):]]   # tests skipped below, as reached
    chosen: list[str] = []
    texts: set[str] = set()   # a copy of a chosen file (Alamofire's docs/ and its docset's) says nothing more
    scored: list[tuple[bool, float, int, Fragment]] = []
    for path in files:
        if len(chosen) == CODE_FILES:
            break
        if is_test(path):
            continue
        entry = view.index.entry(path)
        text = view.read(path) if entry is not None and not entry.note else ""
        if not text or text in texts:
            continue
        chosen.append(path)
        texts.add(text)
        for frag in fragments(path, text, entry, weights, LEAD_ROOM if len(chosen) == 1 else None, whole_def=WHOLE_DEF,
                              defs=FEW_DEFS):
            if path not in pinned and frag.what.startswith(("imports", "start of file")) and not frag.names:
                continue   # import lines and an unmatched file's first lines: the model needs neither to edit
            scored.append((path in pinned, _value(frag, terms, len(chosen) - 1), len(scored), frag))
    ordered = sorted(scored, key=lambda x: (not x[0], -x[1], x[2]))
    if not (pinned or named) and ordered:   # the best-ranked file with a fragment leads with its best one
        lead = next(x for path in chosen for x in ordered if x[3].path == path)
        ordered.remove(lead)
        ordered.insert(0, (True, *lead[1:]))
    if named:   # the user said where the change is: the rest of the matches are only locations
        ordered = [(True, 1.0, 0, f) for f in named] + [x for x in ordered if x[0]]
    return [(must, value, frag) for must, value, _, frag in ordered]


def _code(view, frags: list[tuple[bool, float, Fragment]]) -> tuple[list[str], list[Fragment]]:
    """Numbered code within CODE_CHARS: the fragments that must be shown, then the others down to KEEP of
    the best one's value; the first is cut to fit rather than left out. The blocks come file by file (the files
    in the order of their best block), each file's in line order: a long function's first line, then the
    windows inside it, not the windows first (mermaid's `populateDb`)."""
    out: list[str] = []
    shown: list[Fragment] = []
    used = 0
    best = max((value for _, value, _ in frags), default=0.0)
    for must, value, frag in frags:
        if not must and value < best * KEEP:
            break
        if any(f.path == frag.path and f.start <= frag.end and frag.start <= f.end for f in shown):
            continue   # a named definition and a matching fragment of the same lines
        entry = view.index.entry(frag.path)
        label, last = _label(entry, frag)
        body = _numbered(frag)
        head = f"### {path_line(frag.path)} {frag.start}-{last} of {frag.total}: {label}\n"
        if used + len(head) + len(body) > CODE_CHARS:
            if shown:
                continue
            keep = []
            for line in body.splitlines(keepends=True):
                if used + len(head) + sum(map(len, keep)) + len(line) + 80 > CODE_CHARS:
                    break
                keep.append(line)
            if not keep:
                continue
            body = "".join(keep)
            head = f"### {path_line(frag.path)} {frag.start}-{last} of {frag.total}: {label}{_rest(frag.path, frag.start + len(keep), last)}\n"
        elif last > frag.end:
            head = head[:-1] + _rest(frag.path, frag.end + 1, last) + "\n"
        out.append(head + body)
        shown.append(frag)
        used += len(head) + len(body)
    files = list(dict.fromkeys(f.path for f in shown))   # shown as chosen; read as Read gives a file: each file's
    order = sorted(range(len(out)), key=lambda i: (files.index(shown[i].path), shown[i].start))   # in line order
    return [out[i] for i in order], shown


def _enclosing(entry, line: int):
    """The innermost definition holding `line`."""
    best = None
    for d in entry.defs if entry else []:
        if d.start <= line <= d.end and (best is None or d.start >= best.start):
            best = d
    return best


def _subject(path: str) -> str:
    """What a file is named for, test affixes taken off: `test_core.py`, `core_test.go`, `core.test.ts`,
    `core.py` all give `core`, and XCTest's, JUnit's and .NET's `CoreTests.swift` too."""
    stem = path.rsplit("/", 1)[-1].split(".")[0].lower()
    return re.sub(r"^test_?|_?(tests?|specs?)$", "", stem) or stem


TEST_FOLDERS = frozenset({"__tests__", "__test__", "tests", "test", "spec", "specs"})
"""Folders that hold the tests of the folder above them, or of the tree beside them."""


def _home(path: str) -> str:
    """The folder a test file is about: its own, test folders left out (`curl/__tests__/x.spec.js`: `curl`,
    `server/tests/auth/controller.spec.ts`: `server/auth`)."""
    return "/".join(part for part in path.split("/")[:-1] if part not in TEST_FOLDERS)


PACKAGE_FILES = ("package.json", "Cargo.toml", "go.mod", "pyproject.toml", "setup.py", "pom.xml", "build.gradle")
"""A package's manifests: the folder holding one is a package of a monorepo (or the repository itself)."""


class _Packages:
    """The package a file belongs to: the nearest folder above it with a package's manifest ("" for none)."""

    def __init__(self, indexed: frozenset[str]):
        self.indexed, self.known = indexed, {"": ""}

    def __call__(self, path: str) -> str:
        folder = path.rpartition("/")[0]
        found = self.known.get(folder)
        if found is None:
            found = folder if any(f"{folder}/{name}" in self.indexed for name in PACKAGE_FILES) else self(folder)
            self.known[folder] = found
        return found


_FAMILIES = {"javascript": "web", "typescript": "web", "vue": "web", "svelte": "web", "cpp": "c"}
"""Languages whose files test each other's code: a `.test.ts` tests a `.vue` component, a C++ test C code."""


def _family(path: str) -> str:
    lang = language(path)
    return _FAMILIES.get(lang, lang)


def _test_files(view, terms: set[str], names: list[str], sources: list[str]) -> tuple[list[str], set[str]]:
    """The test files most about the shown code, and those of them named for a shown file: named for one,
    found by the ranking, holding the most task words, or using the most shown names."""
    subjects = {_subject(p) for p in sources}
    langs = {_family(p) for p in sources} - {"other", "grammar"}   # a grammar's tests are in its parser's language
    package = _Packages(view.indexed)
    packages = {package(p) for p in sources}

    def test(path: str) -> bool:
        """A test in the shown code's language (bat's `tests/syntax-tests` hold Svelte and Go samples, no tests
        of its Rust) and package, or a package holding it (a monorepo's backend specs test no page of its admin
        app; ripgrep's root tests its crates)."""
        if not is_test(path) or langs and _family(path) not in langs or kind_of(path) == "vendored":
            return False   # redis's deps/jemalloc/test/ tests jemalloc
        home = package(path)   # the code's own package or one holding it (ripgrep's root tests its crates)
        return any(p == home or not home or p.startswith(home + "/") for p in packages)

    near = {view.index.path_of(x[0] if isinstance(x, list) else x)   # files with the name in their path
            for s in subjects for k in keys_of_word(s)[-1:] for x in view.index.postings("pterms", k)}
    named = Counter(_subject(p) for p in near if not is_test(p))
    homes = {(_subject(p), p.rpartition("/")[0].rpartition("/")[2]) for p in sources}

    def pairs(path: str) -> bool:
        """A test file named for a shown file; for a name many files have (`index`), in a folder named as the
        code's (`curl/__tests__/`, a tests tree mirroring the sources: `tests/auth/`) or the top tests folder
        (`tests/test_utils.py` for `src/click/utils.py`)."""
        subject, home = _subject(path), _home(path)
        return subject in subjects and (named[subject] <= 1 or not home or (subject, home.rpartition("/")[2]) in homes)

    paired = sorted(p for p in near if test(p) and pairs(p))
    ranked = list(itertools.islice((f.path for f in view.ranking.files if test(f.path)), TEST_FILES))

    def most(counts: dict[str, int]) -> list[str]:
        return sorted(counts, key=lambda p: (-counts[p], p))[:TEST_FILES]

    worded: dict[str, int] = {}
    for t in terms:
        for path in _files_with(view, t):
            if test(path):
                worded[path] = worded.get(path, 0) + 1
    users: dict[str, int] = {}
    for name in names:
        for path in view.index.users(name, among=test):
            users[path] = users.get(path, 0) + 1
    return list(dict.fromkeys(paired + ranked + most(worded) + most(users))), set(paired)


_CALL = re.compile(r"""^(\s*)(?:describe|it|test|context|should|specify|group)(?:\.\w+)?(?:\s*\(\s*|\s+)["'`](.*?)["'`]""")
_CLOSE = re.compile(r"\}(?! )|end\b")
"""A block's closing line, from its indent on: JavaScript's `});`, Ruby's and Elixir's `end`."""


def _call_blocks(lines: list[str]) -> list[tuple[int, int, str]]:
    """Tests written as calls: JavaScript's `describe("withBase", () => {`, Dart's `group('cart', () {`, RSpec's,
    minitest's and ExUnit's `it "works" do`, `test "works" do`, shoulda's `should "work" do`. Each block's first
    and last line and its title, its end the first later line at the same indent that closes it."""
    out = []
    for i, line in enumerate(lines):
        m = _CALL.match(line)
        if not m:
            continue
        indent = m.group(1)
        for j in range(i + 1, len(lines)):
            if lines[j].startswith(indent) and _CLOSE.match(lines[j], len(indent)):
                out.append((i + 1, j + 1, m.group(2)))
                break
    return out


GROUPS = frozenset({"class", "module", "mod", "namespace", "impl"})
"""Kinds of definition that hold tests (a test class, Rust's `mod tests`), as a `describe` block does."""


def _units(blocks: list[tuple[int, int, str, str, bool]]) -> list[tuple[int, int, str, str]]:
    """The tests of a file to choose from, in line order: the outermost blocks (start, end, name, label, group),
    but a group longer than TEST_LINES that holds others gives way to them. A 1,800-line `describe` holds
    every word of the task and says nothing about which test is nearest; its `it` blocks do."""
    blocks = sorted(blocks, key=lambda b: (b[0], -b[1]))
    out: list[tuple[int, int, str, str]] = []
    i = 0
    while i < len(blocks):
        start, end, name, label, group = blocks[i]
        j = i + 1
        while j < len(blocks) and blocks[j][1] <= end:   # held by this one (each starts at or after it)
            j += 1
        if group and j > i + 1 and end - start + 1 > TEST_LINES:
            out += _units(blocks[i + 1:j])
        else:
            out.append((start, end, name, label))
        i = j
    return out


def _files_with(view, key: str) -> list[str]:
    """The files whose text holds a ranking key (the index's postings)."""
    return [view.index.path_of(x[0] if isinstance(x, list) else x) for x in view.index.postings("terms", key)]


def _rarity(view, terms: set[str]) -> dict[str, float]:
    """How much a task word in a test's name says: a word in few files says more than one in many."""
    total = max(len(view.index.paths), 2)
    return {t: math.log(total / (1 + len(view.index.postings("terms", t)))) for t in terms}


def _tests(view, terms: set[str], names: list[str], sources: list[str], room: int) -> tuple[list[str], list[str]]:
    """The tests most about the task as numbered code, while they fit in `room` (a new test usually goes
    next to them, so their lines save a Read before the edit), and Read lines for the next ones: test functions
    (or describe/it blocks) using a shown name or named with task words, the rarer the better, in the
    test files most about the shown code."""
    wanted = [n for n in dict.fromkeys(names) if len(n) > 2]
    weight = _rarity(view, terms)
    found: list[tuple[float, str, int, int, str]] = []   # (score, path, start, end, label)
    files, paired = _test_files(view, terms, wanted, sources)
    for path in files:
        entry = view.index.entry(path)
        text = view.read(path)
        if entry is None or not text:
            continue
        lines = split_lines(text)
        units = _units([(d.start, d.end, d.name, f"{d.kind} {d.name}", d.kind in GROUPS or d.name == "main")
                        for d in entry.defs]   # a test file's `main` holds its tests (Dart's)
                       + [(a, b, title, f"block {title!r}", True) for a, b, title in _call_blocks(lines)])
        for start, end, name, label in units:   # test functions, not what they hold
            body = "\n".join(lines[start - 1:end])
            uses = any(n in body for n in wanted)
            named = weight_of(terms & line_keys(name), weight)
            if uses or named or path in paired:   # the file named for the code: where its tests go,
                last = path in paired and start == units[-1][0]   # a new one often last
                value = 3 * named + 2 * uses + len(terms & line_keys(body)) / 4 + last
                found.append((path in paired and bool(uses or named or last), value, path, start, end, label))
    found.sort(key=lambda x: (not x[0], -x[1], x[2], x[3]))   # the file named for the code leads with its tests
    best = max((x[1] for x in found), default=0.0)
    found = [x for x in found if x[0] or x[1] >= best * KEEP]
    code: list[str] = []
    reads: list[str] = []
    per_file: Counter = Counter()
    for _, _, path, start, end, label in found:
        if per_file[path] == PER_FILE:   # the tests of one file hold one style: the next file's say more
            continue
        per_file[path] += 1
        if len(code) < TEST_CODE:
            total = view.index.entry(path).lines
            lines_ = split_lines(view.read(path), True)
            if end - start < TEST_LINES:
                body = _numbered(Fragment(path, start, end, total, label, lines_[start - 1:end]))
            else:   # its head shows the style, its tail where a new test goes
                body = (_numbered(Fragment(path, start, start + TEST_HEAD - 1, total, label, lines_[start - 1:start + TEST_HEAD - 1]))
                        + "...\n" + _numbered(Fragment(path, end - TEST_TAIL + 1, end, total, label, lines_[end - TEST_TAIL:end])))
                label += f" (its first {TEST_HEAD} and last {TEST_TAIL} lines)"
            block = f"### {path_line(path)} {start}-{end} of {total}: {label}\n" + body
            if len(block) <= room:
                code.append(block)
                room -= len(block)
                continue
        if len(reads) < TESTS:
            if end - start + 1 > TEST_READ:
                end, label = start + TEST_READ - 1, f"{label}, lines {start}-{end}: its first {TEST_READ}"
            reads.append(_read_line(path, start, end, label))
    return code, reads


def _matching_lines(view, weights: dict[str, float], shown: list[Fragment]) -> list[str]:
    """The lines of the next ranked files whose task words weigh most, numbered (see LINE_FILES)."""
    bar = LINE_BAR * max(weights.values(), default=0.0)
    strong = {k for k, w in weights.items() if w >= bar > 0}   # a line shown holds one of these
    seen = {f.path for f in shown}
    texts = {view.read(p) for p in seen}   # and their copies
    out: list[str] = []
    for ranked in view.ranking.files[:RANKED]:
        if len(out) == LINE_FILES:
            break
        kind = weighed_kind(ranked.path, view.index.paths)
        if ranked.path in seen or kind not in ("code", "source-locale"):
            continue   # docs and changelogs name the task's words without being what changes
        entry = view.index.entry(ranked.path)   # on a cold repository's index, this parses the file
        if entry is None or entry.note:
            continue
        text = view.read(ranked.path)
        if text in texts:
            continue
        texts.add(text)
        telling = words_giving(text, strong)
        if kind == "code":
            telling -= _KEYWORDS
        if not telling:
            continue
        lines = split_lines(text)
        holds = re.compile("|".join(map(re.escape, sorted(telling, key=len, reverse=True)))).search
        hits = []
        for n, line in enumerate(lines, 1):   # only lines with a telling word are split into keys
            if len(line) > LINE_WIDTH or not holds(line) or _IMPORT.match(line):
                continue
            found = line_keys(line) & weights.keys()
            if max(map(weights.__getitem__, found), default=0.0) >= bar:
                hits.append((-weight_of(found, weights), n))
        best = sorted(n for _, n in sorted(hits)[:LINE_HITS])
        if best:
            out.append(f"### {path_line(ranked.path)} {best[0]}-{best[-1]} of {len(lines)}: lines with task words\n"
                       + "".join(f"{n}\t{lines[n - 1].rstrip()}\n" for n in best))
    return out


def _checks(baseline: dict) -> str:
    """One line: what `rt verify` runs and what each check found before the change (a zero says nothing:
    only new diagnostics count either way)."""
    if not baseline:
        return "`rt verify` has no checks to run here (see `rt checks`): its verdict will be INCOMPLETE."
    parts: list[list] = []   # [text] for a check that ran; [reason, names, programs] for those it stopped
    blind: dict[str, list] = {}   # one line for the checks one reason stopped: cargo's check and test alike,
    for name, run in sorted(baseline.items()):   # eslint and tsc not installed alike
        if run["status"] != "could_not_run":
            parts.append([f"{name} ({len(run['diagnostics'])} before)" if run["diagnostics"] else name])
            continue
        program = (run.get("command") or [""])[0]
        reason = short(run["reason"], 120)
        named = bool(program) and f": {program} " in reason   # the reason names the check's own program
        key = reason.replace(f": {program} ", ": \0 ", 1) if named else reason
        if key not in blind:
            parts.append(blind.setdefault(key, [key, [], []]))
        blind[key][1].append(name)
        blind[key][2] += [program] if named else []
    parts = [f"{', '.join(p[1])} (could not run: {p[0].replace(chr(0), ', '.join(p[2]))})" if len(p) > 1 else p[0]
             for p in parts]
    return "`rt verify` runs " + ", ".join(parts) + "; only diagnostics new since then count."


def injection(view, task_id: str, baseline: dict, files: tuple[str, str]) -> str:
    """The text for the model: `view` gives the index, the ranking (done once) and file reads; `baseline`
    the checks' baseline runs by name; `files` the manifest and pack written for the task."""
    r = view.ranking
    weights = r.weights or as_keys(r.terms)   # the ranking's keys, stemmed
    terms = set(weights)
    head = [f"rt: task {task_id} started. {_checks(baseline)}"]
    facts = journal.memory_facts(view.ctx.store)[:budget.MEMORY_ENTRIES]   # the user's words: few, and binding
    head += ["The user's facts (/mem), newest first:"] + [
        "- " + budget.memory_entry(f) for f in facts] if facts else []
    folder, _, pack = files[1].rpartition("/")
    more = (f"More, if needed: Read {folder}/: {pack} (more code, ranked files), "
            f"{files[0].rpartition('/')[2]} (stack, folders, entry points).")
    pinned = any(f.why == ["pinned"] for f in r.files)
    if r.vague and not pinned:
        tried = first_few(r.terms, TRIED)
        head.append(f"The task's words pick out no files (words tried: {tried or 'none'}): find the code with `rt find \"<text>\"`, "
                    f"`rt symbol NAME`, or ask the user to name paths (`/runtask path ...: <task>`).")
        if not r.recent:
            return "\n".join(head + [more]) + "\n"
        head.append("The work going on (not committed, then the last commits), newest first: "
                    + ", ".join(path for path, _, _ in view.work_going_on) + ".")
        code, _ = _code(view, [(True, 1.0, frag) for _, _, changed in view.work_going_on for frag in changed])
        where = ["## Where the work going on changed last (numbered as Read shows it)\n" + "".join(code)] if code else []
        return "\n".join(head) + "\n\n" + "\n".join(where + [more]) + "\n"
    frags = _candidates(view, weights)
    code, shown = _code(view, frags)
    names = [d.name for f in shown for d in view.index.entry(f.path).defs if f.start <= d.start <= f.end]
    test_code, tests = _tests(view, terms - TEST_WORDS, names, [f.path for f in shown],
                              CODE_CHARS + TEST_CHARS - sum(map(len, code)))
    code += test_code
    lines = _matching_lines(view, weights, shown)
    while True:   # the code is capped by CODE_CHARS; the rest gives way when all of it does not fit
        text = _compose(head, code, lines, tests, more)
        if len(text) <= INJECT_CHARS or not (tests or lines):
            break
        (tests or lines).pop()
    return text if len(text) <= INJECT_CHARS else text[:INJECT_CHARS - 40].rsplit("\n", 1)[0] + "\n(cut to fit)\n"


def _compose(head: list[str], code: list[str], lines: list[str], tests: list[str], more: str) -> str:
    sections = ["## Code most likely to change, and the nearest tests (numbered as Read shows it)\n" + "".join(code) if code else
                "## Code\nno definition matches the task's words; see the files below.\n"]
    if lines:
        sections.append("## The task's words in the next ranked files\n" + "".join(lines))
    if tests:
        sections.append("## Other tests using it\n" + "".join(t + "\n" for t in tests))
    return "\n".join(head) + "\n\n" + "\n".join(sections) + "\n" + more + "\n"
