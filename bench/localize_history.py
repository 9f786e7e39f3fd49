"""Commits usable as localisation tasks: the message is the task, the files it changed the answer.

The answer is the non-test source files the commit modified, deleted or renamed (as they were in its
parent) and, when it touched the English (source) locale file, that file too: a task that adds or
rewords a UI string is answered there as much as in the code using it. What the commit edited is
read from its real diff against the parent: the lines it removed or replaced, and for a pure
insertion the line either side of the insertion point.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path
from types import SimpleNamespace


def rt_api() -> SimpleNamespace:
    """The rt functions the benchmark uses, imported in this one place (rt's modules may move)."""
    from rt.bm25 import BM25, tokens
    from rt.cli import Ctx
    from rt.core import IndexDamaged
    from rt.context import PACK_CHARS, _view, build_pack
    from rt.index import index
    from rt.index.i18n import LOCALE_DIRS, is_locale
    from rt.index.langs import language
    from rt.pack.inject import INJECT_CHARS, injection
    from rt.pack.rank import CODE_LANGS, Ranked, Ranking
    return SimpleNamespace(index=index, BM25=BM25, tokens=tokens, Ctx=Ctx, CODE_LANGS=CODE_LANGS, Ranked=Ranked, Ranking=Ranking,
                           PACK_CHARS=PACK_CHARS, view=_view, build_pack=build_pack,
                           LOCALE_DIRS=LOCALE_DIRS, is_locale=is_locale, language=language,
                           injection=injection, INJECT_CHARS=INJECT_CHARS, IndexDamaged=IndexDamaged)


RT = rt_api()
MAX_SOURCE_FILES = 5
"""A commit touching more source files (or more locale files: a translation sync) is not one task."""
_TRAILER = re.compile(r"^(co-authored-by|signed-off-by|reviewed-by|change-id|cc|[a-z-]+-by):", re.IGNORECASE)
_ENGLISH = re.compile(r"(^|[_.-])en([-_](us|gb|en))?$")
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@")


SOURCE = re.compile(r"[^/]\.(py|pyi|[cm]?js|jsx|[cm]?ts|tsx|go|rs|java|c|h|cc|cpp|hpp|cs|kt|swift|rb|php|scala|sh|vue"
                    r"|svelte)$", re.IGNORECASE)
TEST = re.compile(r"(^|/)(tests?|__tests__|spec|specs|testing)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$")
"""A source file's name, and a test's: the benchmark's own rules, as rt's were when the task sets were drawn
(`rank.CODE_LANGS` and `core.is_test` at rt `4d40593`), so that every rt commit is judged on the same tasks, and
on the tasks of the figures before it; rt's own rules have grown since (grammars, `e2e/`)."""


def is_test(path: str) -> bool:
    return bool(TEST.search(path))


def is_source(path: str) -> bool:
    return bool(SOURCE.search(path)) and not is_test(path)


def is_locale_file(path: str) -> bool:
    """A translation file, or a translation module written as code inside a locale folder."""
    return RT.is_locale(path) or bool(set(path.lower().split("/")[:-1]) & RT.LOCALE_DIRS)


def is_source_locale(path: str) -> bool:
    """The English (source) locale file: `en.json`, `en_US/translation.json`, `en/messages.json`, a `.pot`."""
    if not is_locale_file(path):
        return False
    if path.endswith(".pot"):
        return True
    parts = path.lower().split("/")
    parts[-1] = parts[-1].rsplit(".", 1)[0]
    return any(_ENGLISH.search(p) for p in parts)


def task_text(message: str) -> str:
    """The commit message without trailers and pull-request numbers: what a person asked for."""
    lines = [line for line in message.splitlines() if not _TRAILER.match(line.strip())]
    return re.sub(r"\(#\d+\)|#\d+", " ", "\n".join(lines)).strip()


def eligible_commits(clone: Path, tip: str, n: int, window: int, n_locale: int = 0) -> list[dict]:
    """`n` commits spread evenly over the newest `window` eligible ones up to `tip`, newest first, then
    `n_locale` more spread evenly over the eligible ones touching the English locale file (few in an even
    sample; marked `extra`, they count for locale tasks only).

    Eligible: not a merge, a non-empty message, at least one answer file present in the parent, at most
    MAX_SOURCE_FILES source files and MAX_SOURCE_FILES locale files touched.
    """
    out = subprocess.run(["git", "-c", "core.quotePath=false", "log", tip, "--no-merges", "--first-parent",
                          "--no-renames", "--name-status", "--format=%x1e%H %P%x1f%B%x1f"], cwd=clone, capture_output=True,
                         text=True, errors="replace", check=True).stdout
    found = []
    for order, record in enumerate(out.split("\x1e")[1:]):
        head, message, changes = record.split("\x1f", 2)
        shas = head.split()
        if len(shas) != 2 or not task_text(message):
            continue
        touched, locales, answer = set(), set(), set()
        for line in changes.strip().splitlines():
            status, *paths = line.split("\t")
            touched.update(p for p in paths if is_source(p))
            locales.update(p for p in paths if is_locale_file(p))
            old = paths[0]
            if status[0] in "MD" and (is_source(old) or is_source_locale(old)):
                answer.add(old)
        if answer and len(touched) <= MAX_SOURCE_FILES and len(locales) <= MAX_SOURCE_FILES:
            found.append({"sha": shas[0], "parent": shas[1], "message": message.strip(), "answer": sorted(answer),
                          "locale": sorted(p for p in answer if is_source_locale(p)), "order": -order})
        if len(found) >= window:
            break
    sample = _spread(found, n)
    taken = {c["sha"] for c in sample}
    extra = _spread([c for c in found if c["locale"] and c["sha"] not in taken], n_locale)
    return [{**c, "extra": False} for c in sample] + [{**c, "extra": True} for c in extra]


def _spread(found: list[dict], n: int) -> list[dict]:
    """`n` of `found` at even steps (all of them when there are fewer)."""
    return found[::max(1, len(found) // n)][:n] if n > 0 else []


def edited_lines(clone: Path, parent: str, sha: str, paths: list[str]) -> dict[str, list[tuple[int, int]]]:
    """Per answer file (its path in the parent), the parent's line ranges the commit edited, 1-based inclusive.

    A removed or replaced run of lines is its own range; a pure insertion after line l is (l, l + 1), the
    line either side (clamp to the file's length when using it). A deleted file has no edited lines: the
    task needs to know it, not to read it.
    """
    def diff(how: str, *only: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", "-c", "core.quotePath=false", "diff", "-U0", "--no-color", "--no-ext-diff", how,
                               parent, sha, "--", *only], cwd=clone, capture_output=True, text=True, errors="replace")
    run = diff("-M")
    if run.returncode:   # a blob the snapshot lacks stops rename detection: diff the answer files alone
        run = diff("--no-renames", *paths)
    out = run.stdout
    wanted, ranges, current, header = set(paths), {p: [] for p in paths}, None, False
    for line in out.splitlines():
        if line.startswith("diff --git "):
            header, current = True, None
        elif header and line.startswith("--- "):
            old = line[4:].rstrip("\t").strip('"')
            current = old[2:] if old.startswith("a/") and old[2:] in wanted else None
        elif header and line.startswith("+++ "):
            header = False
            current = None if line[4:] == "/dev/null" else current
        elif current and line.startswith("@@"):
            m = _HUNK.match(line)
            start, count = int(m.group(1)), int(m.group(2) or 1)
            ranges[current].append((start, start + count - 1) if count else (max(1, start), start + 1))
    return ranges
