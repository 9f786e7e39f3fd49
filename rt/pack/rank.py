"""Ranking a repository's files for a task: the task's words against paths, definition names and file
text, a word in a path or a name weighing more than the same word in a body, then strengthened by import
neighbours and by the translations of quoted UI text. The manifest and the pack both read it.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from rt.bm25 import BM25, tokens

STOPWORDS = frozenset("""
a an the and or but of to in on at by for from with without into onto as is are be been being was were it its
this that these those there here we you they he she i me my our your their them us so if then else when while
do does did done not no yes can could should would will shall may might must also just only very too all any
some each every more most less few many much other such same than via per about after before again against
between during over under up down out off new now how what which who whom why where need needs needed want
please make makes made get gets got let lets use used uses using fix fixes fixed fixing bug bugs issue issues
add adds added adding update updates updated remove removes removed change changes changed support supports
allow allows improve improves improved handle handles handled instead correctly properly case cases work
works working broken wrong error errors
""".split())
"""Words that say what kind of task it is, not where it lives; they never pick a file."""

W_PATH = 3.0
W_DEFS = 1.5
"""A word in a file's path or in a definition's name weighs this many times the same word in its body."""
NEIGHBOUR = 0.3
"""Share of a strong match's score given to the files it imports and the files importing it."""
TF_FILES = 200
"""The best-matching files whose text is read to count how often each word occurs (the rest count once)."""

CODE_LANGS = frozenset({"python", "javascript", "typescript", "go", "rust", "java", "c", "cpp", "csharp",
                        "kotlin", "swift", "ruby", "php", "scala", "shell", "vue", "svelte"})
_TEST = re.compile(r"(^|/)(tests?|__tests__|spec|specs|testing)/|(^|/)test_[^/]*$|_test\.[a-z]+$|\.(test|spec)\.[a-z]+$")
_IMPORT = re.compile(r"^\s*(import\b|from\s+\S+\s+import\b|export\s.*\bfrom\b|(const|let|var)\s.*\brequire\(|use\s|"
                     r"#\s*include\b|require\s*\(|@import\b)")


def is_test(path: str) -> bool:
    return bool(_TEST.search(path))


def query_terms(text: str) -> list[str]:
    """The task's words that can pick out files, in first-seen order."""
    seen: dict[str, None] = {}
    for t in tokens(text):
        if len(t) > 1 and t not in STOPWORDS and not t.isdigit():
            seen.setdefault(t, None)
    return list(seen)


# ---------------------------------------------------------------- ranking

@dataclass
class Ranked:
    path: str
    score: float
    why: list[str] = field(default_factory=list)


@dataclass
class Ranking:
    files: list[Ranked]
    terms: list[str]
    informative: list[str]   # terms found in a few files only: the ones that can choose

    @property
    def vague(self) -> bool:
        return not self.informative


_WORDS = re.compile(r"[A-Za-z0-9]+")


def _hits(text: str, low: str, terms: list[str]) -> list[str]:
    """The query terms among the tokens of `text` (its lower-case form `low` filters first: far fewer tokenizations)."""
    if not any(t in low for t in terms):
        return []
    q = set(terms)
    return [t for t in tokens(text) if t in q]


def _body_hits(entry, terms: list[str]) -> list[str]:
    """The query terms in a file's words or in its identifiers split at case changes, once each."""
    found = set(terms) & set(entry.words)
    missing = [t for t in terms if t not in found]
    if missing:
        low = " ".join(entry.idents).lower()
        for t in missing:
            if t in low and any(t in tokens(i) for i in entry.idents if t in i.lower()):
                found.add(t)
    return sorted(found)


def _bm25(hits: list[list[str]], lens: list[int]) -> BM25:
    """BM25 over documents given by their query-term hits and true lengths: the same scores for far less work."""
    bm = BM25(hits)
    bm.lens = lens
    bm.avg = (sum(lens) / len(lens)) if lens else 0.0
    return bm


def rank(index, text: str, pinned: list[str] = (), read=None) -> Ranking:
    """Every file that matches the task, best first; pinned files (and files under pinned folders) lead.

    With `read` (path -> text), a quoted text in the task that a locale file translates puts the
    files using that translation's key first.
    """
    terms = query_terms(text)
    entries = [e for e in index.files.values() if e.lines]
    paths = [e.path for e in entries]
    stems = [p.rsplit(".", 1)[0] if "." in p.rsplit("/", 1)[-1] else p for p in paths]
    path_hits = [_hits(s, s.lower(), terms) for s in stems]
    def_names = ["\n".join(d.name for d in e.defs) for e in entries]
    def_hits = [_hits(n, n.lower(), terms) for n in def_names]
    body_hits = [_body_hits(e, terms) for e in entries]
    df = Counter(t for h in body_hits for t in h)
    path_df = Counter(t for h in path_hits for t in set(h))
    limit = max(2, len(entries) // 10)
    informative = [t for t in terms if 0 < df[t] <= limit or 0 < path_df[t] <= limit]
    scores: dict[str, float] = {}
    why: dict[str, list[str]] = {}
    if terms:
        path_bm = _bm25(path_hits, [len(_WORDS.findall(s)) for s in stems])
        def_bm = _bm25(def_hits, [len(e.defs) for e in entries])
        matched = [i for i in range(len(paths)) if path_hits[i] or def_hits[i] or body_hits[i]]
        names = {i: W_PATH * path_bm.score(terms, i) + W_DEFS * def_bm.score(terms, i) for i in matched}
        if read is not None:   # how often each word occurs, for the files that can reach the top
            first = _bm25(body_hits, [e.lines for e in entries])
            q = set(terms)
            for i in sorted(matched, key=lambda i: (-names[i] - first.score(terms, i), i))[:TF_FILES]:
                body_hits[i] = [t for t in tokens(read(paths[i])) if t in q] or body_hits[i]
        body_bm = _bm25(body_hits, [e.lines for e in entries])
        for i in matched:
            p = paths[i]
            s_path, s_def, s_body = (path_bm.score(terms, i), def_bm.score(terms, i), body_bm.score(terms, i))
            reasons = []
            if s_path:
                reasons.append("path: " + ", ".join(t for t in terms if t in path_hits[i]))
            if s_def:
                found = sorted({d.name for d in entries[i].defs if set(terms) & set(tokens(d.name))})
                reasons.append("defines: " + ", ".join(found[:4]))
            if s_body:
                reasons.append("text: " + ", ".join(t for t in terms if t in body_hits[i]))
            scores[p] = (names[i] + s_body) * _kind_weight(entries[i])
            why[p] = reasons
        _add_neighbours(index, scores, why)
        if read is not None:
            _add_translations(index, read, text, scores, why)
    pins = _expand_pins(paths, pinned)
    ordered = [Ranked(p, float("inf"), ["pinned"]) for p in pins]
    rest = sorted((p for p in scores if p not in set(pins)), key=lambda p: (-scores[p], p))
    ordered += [Ranked(p, round(scores[p], 4), why[p]) for p in rest]
    return Ranking(ordered, terms, informative)


def _kind_weight(entry) -> float:
    """Code first: tests and data or prose files are context, rarely the place a change goes."""
    if is_test(entry.path):
        return 0.6
    return 1.0 if entry.lang in CODE_LANGS else 0.5


def _add_neighbours(index, scores: dict[str, float], why: dict[str, list[str]]) -> None:
    """Files importing, or imported by, one of the strongest matches get a share of its score."""
    top = sorted(scores, key=lambda p: (-scores[p], p))[:10]
    bonus: dict[str, tuple[float, str]] = {}
    for p in top:
        entry = index.files.get(p)
        near = set(index.importers(p)) | set(entry.resolved if entry else [])
        for n in sorted(near):
            gain = NEIGHBOUR * scores[p]
            if gain > bonus.get(n, (0.0, ""))[0]:
                bonus[n] = (gain, p)
    for n, (gain, src) in sorted(bonus.items()):
        if n in index.files:
            scores[n] = scores.get(n, 0.0) + gain
            why.setdefault(n, []).append(f"import neighbour of {src}")


_QUOTED = re.compile(r"[\"'`\u201c\u2018]([^\"'`\u201d\u2019\n]{3,120})[\"'`\u201d\u2019]")


def _add_translations(index, read, text: str, scores: dict[str, float], why: dict[str, list[str]]) -> None:
    """A quoted phrase a locale file translates: the code using its key goes first, the locale file next."""
    from rt.index import i18n
    from rt.index.langs import words
    top = max(scores.values(), default=1.0)
    for phrase in sorted({m.group(1).strip() for m in _QUOTED.finditer(text)}):
        wanted = " ".join(phrase.lower().split())
        found = [set(index.with_word(w)) for w in words(phrase)]
        for path in sorted(set.intersection(*found) if found else set()):
            if not i18n.is_locale(path):
                continue
            for key, value, _ in i18n.entries(path, read(path)):
                if wanted not in " ".join(value.lower().split()):
                    continue
                for user in sorted(set(index.key_users(key)) | set(index.key_users(i18n.base_key(key)))):
                    scores[user] = scores.get(user, 0.0) + top
                    why.setdefault(user, []).append(f"uses key {key} of \"{short(phrase, 40)}\"")
                scores[path] = scores.get(path, 0.0) + top / 2
                why.setdefault(path, []).append(f"translates \"{short(phrase, 40)}\" as {key}")


def _expand_pins(paths: list[str], pinned) -> list[str]:
    out: list[str] = []
    for pin in pinned:
        if pin in ("", "."):
            continue
        hits = [pin] if pin in paths else [p for p in paths if p.startswith(pin.rstrip("/") + "/")]
        out += [h for h in hits if h not in out]
    return out


def short(text: str, n: int) -> str:
    """`text` on one line, cut to `n` characters with a visible "..."."""
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 3] + "..."
