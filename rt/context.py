"""The manifest (what this repository is) and the task pack (the code a task most likely touches).

Both are written for a model to read: capped in size, byte-stable, and honest about being partial.
Files are ranked by matching the task's words against paths, definition names and file text, a word
in a path or a name weighing more than the same word in a body, then strengthened by import
neighbours. `rt pack --json` gives the ranked list that `bench/localize` scores.
"""
from __future__ import annotations

import json
import posixpath
import re
import tomllib
from collections import Counter
from dataclasses import dataclass, field

from rt import budget, state
from rt.bm25 import BM25, tokens
from rt.checks import CONFIG, detect
from rt.core import PathError, Result, RtError, UsageError, closest_paths, read_text, to_rel

MANIFEST_CHARS = 6000
PACK_CHARS = 18000

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
    from rt import i18n
    from rt.langs import words
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
                    why.setdefault(user, []).append(f"uses key {key} of \"{_short(phrase, 40)}\"")
                scores[path] = scores.get(path, 0.0) + top / 2
                why.setdefault(path, []).append(f"translates \"{_short(phrase, 40)}\" as {key}")


def _expand_pins(paths: list[str], pinned) -> list[str]:
    out: list[str] = []
    for pin in pinned:
        if pin in ("", "."):
            continue
        hits = [pin] if pin in paths else [p for p in paths if p.startswith(pin.rstrip("/") + "/")]
        out += [h for h in hits if h not in out]
    return out


# ---------------------------------------------------------------- the repository at a glance

class View:
    """What the manifest's sections read: the index, the file list, the task text and its ranking."""

    def __init__(self, ctx, index, text: str, pinned: list[str]):
        self.ctx, self.index, self.text, self.pinned = ctx, index, text, pinned
        self.paths = list(index.files)
        self._ranking: Ranking | None = None

    @property
    def ranking(self) -> Ranking:
        if self._ranking is None:
            self._ranking = rank(self.index, self.text, self.pinned, self.read)
        return self._ranking

    def read(self, path: str) -> str:
        return read_text(self.ctx.repo, path) or ""

    def top_level(self, names: tuple[str, ...], depth: int = 2) -> list[str]:
        """Files with one of these names at most `depth` folders down, sorted, tests and examples left out."""
        return [p for p in self.paths if p.rsplit("/", 1)[-1] in names and p.count("/") < depth
                and not is_test(p) and not re.search(r"(^|/)(examples?|fixtures?|docs?)/", p)]


FRAMEWORKS = {
    "react": "React", "vue": "Vue", "svelte": "Svelte", "@angular/core": "Angular", "next": "Next.js",
    "nuxt": "Nuxt", "express": "Express", "fastify": "Fastify", "koa": "Koa", "@nestjs/core": "NestJS",
    "vite": "Vite", "webpack": "webpack", "electron": "Electron", "react-native": "React Native",
    "i18next": "i18next", "react-intl": "react-intl", "vue-i18n": "vue-i18n", "jest": "Jest", "vitest": "Vitest",
    "typescript": "TypeScript", "tailwindcss": "Tailwind CSS", "socket.io": "Socket.IO",
    "django": "Django", "flask": "Flask", "fastapi": "FastAPI", "starlette": "Starlette", "pydantic": "Pydantic",
    "sqlalchemy": "SQLAlchemy", "pytest": "pytest", "click": "Click", "typer": "Typer", "numpy": "NumPy",
    "pandas": "pandas", "torch": "PyTorch", "celery": "Celery", "httpx": "HTTPX", "requests": "Requests",
    "github.com/gin-gonic/gin": "Gin", "github.com/labstack/echo": "Echo", "github.com/spf13/cobra": "Cobra",
    "tokio": "Tokio", "axum": "axum", "actix-web": "Actix Web", "serde": "Serde", "clap": "clap",
}
"""Dependency name -> how the manifest names the framework."""

LOCKFILES = (
    ("pnpm-lock.yaml", "pnpm"), ("yarn.lock", "yarn"), ("bun.lockb", "bun"), ("bun.lock", "bun"),
    ("package-lock.json", "npm"), ("poetry.lock", "poetry"), ("uv.lock", "uv"), ("pdm.lock", "pdm"),
    ("Pipfile.lock", "pipenv"), ("requirements.txt", "pip"), ("pyproject.toml", "pip"),
    ("go.mod", "go modules"), ("Cargo.toml", "cargo"), ("Gemfile", "bundler"), ("composer.json", "composer"),
    ("pom.xml", "maven"), ("build.gradle", "gradle"), ("build.gradle.kts", "gradle"), ("package.json", "npm"),
)
"""The first of these found names the package manager of its folder (a lock file beats a manifest)."""


def _json(view: View, path: str) -> dict:
    try:
        data = json.loads(view.read(path))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _toml(view: View, path: str) -> dict:
    try:
        return tomllib.loads(view.read(path))
    except (tomllib.TOMLDecodeError, ValueError):
        return {}


def _dependencies(view: View) -> dict[str, list[str]]:
    """Dependency names per manifest file (package.json, pyproject.toml, requirements, go.mod, Cargo.toml)."""
    deps: dict[str, list[str]] = {}
    for p in view.top_level(("package.json",)):
        data = _json(view, p)
        deps[p] = sorted({n for k in ("dependencies", "devDependencies", "peerDependencies")
                          for n in (data.get(k) or {}) if isinstance(data.get(k), dict)})
    for p in view.top_level(("pyproject.toml",)):
        data = _toml(view, p)
        project = data.get("project") or {}
        raw = list(project.get("dependencies") or [])
        for extra in (project.get("optional-dependencies") or {}).values():
            raw += list(extra)
        raw += list(((data.get("tool") or {}).get("poetry") or {}).get("dependencies") or {})
        deps[p] = sorted({re.split(r"[^A-Za-z0-9_.-]", str(r).strip(), maxsplit=1)[0].lower() for r in raw} - {""})
    for p in view.top_level(("requirements.txt", "requirements-dev.txt")):
        deps[p] = sorted({re.split(r"[^A-Za-z0-9_.-]", line.strip(), maxsplit=1)[0].lower()
                          for line in view.read(p).splitlines() if line.strip() and line.strip()[0].isalnum()})
    for p in view.top_level(("go.mod",)):
        deps[p] = sorted(set(re.findall(r"^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+/[^\s]+)\s+v", view.read(p), re.MULTILINE)))
    for p in view.top_level(("Cargo.toml",)):
        deps[p] = sorted(_toml(view, p).get("dependencies") or {})
    return deps


def section_stack(view: View) -> list[str]:
    langs = Counter(e.lang for e in view.index.files.values() if e.lang not in ("other",))
    code = [(lang, n) for lang, n in langs.most_common() if lang in CODE_LANGS]
    other = [(lang, n) for lang, n in langs.most_common() if lang not in CODE_LANGS]
    lines = ["## Stack"]
    if code:
        lines.append("languages: " + ", ".join(f"{lang} ({n} files)" for lang, n in sorted(code, key=lambda x: (-x[1], x[0]))[:8]))
    if other:
        lines.append("other files: " + ", ".join(f"{lang} {n}" for lang, n in sorted(other, key=lambda x: (-x[1], x[0]))[:8]))
    found: dict[str, list[str]] = {}
    for manifest, names in sorted(_dependencies(view).items()):
        for n in names:
            if n in FRAMEWORKS:
                found.setdefault(FRAMEWORKS[n], []).append(manifest)
    if found:
        lines.append("frameworks: " + ", ".join(f"{name} ({', '.join(sorted(set(src))[:2])})"
                                                for name, src in sorted(found.items(), key=lambda kv: kv[0].lower())))
    managers: list[str] = []
    folders = sorted({posixpath.dirname(p) for p in view.top_level(tuple(n for n, _ in LOCKFILES))})
    for folder in folders:
        for name, manager in LOCKFILES:
            if posixpath.join(folder, name) in set(view.paths):
                managers.append(f"{manager} ({posixpath.join(folder, name)})")
                break
    if managers:
        lines.append("package managers: " + ", ".join(managers[:6]) + (f" and {len(managers) - 6} more" if len(managers) > 6 else ""))
    if len(lines) == 1:
        lines.append("no source files recognised")
    return lines


ENTRY_NAMES = ("__main__.py", "manage.py", "main.py", "app.py", "wsgi.py", "asgi.py", "cli.py", "main.go",
               "main.rs", "lib.rs", "index.html", "main.ts", "main.js", "main.tsx", "main.jsx", "index.ts",
               "index.tsx", "index.js", "index.jsx", "App.vue", "App.tsx", "App.jsx", "server.js", "server.ts",
               "Main.java", "Program.cs", "Dockerfile", "Makefile")
"""File names that usually start a program, serve a page or build the project."""


def section_entry_points(view: View) -> list[str]:
    lines = []
    for p in view.top_level(("package.json",)):
        data = _json(view, p)
        for key in ("main", "module", "bin"):
            value = data.get(key)
            if isinstance(value, str):
                lines.append(f"{p} {key}: {value}")
            elif isinstance(value, dict):
                lines += [f"{p} bin {name}: {target}" for name, target in sorted(value.items())[:4]]
        scripts = data.get("scripts") if isinstance(data.get("scripts"), dict) else {}
        for name in ("dev", "start", "build", "serve", "test"):
            if isinstance(scripts.get(name), str):
                lines.append(f"{p} `npm run {name}`: {_short(scripts[name], 80)}")
    for p in view.top_level(("pyproject.toml",)):
        data = _toml(view, p)
        scripts = dict((data.get("project") or {}).get("scripts") or {})
        scripts.update(((data.get("tool") or {}).get("poetry") or {}).get("scripts") or {})
        lines += [f"{p} script {name}: {target}" for name, target in sorted(scripts.items())[:6]]
    files = view.top_level(ENTRY_NAMES, depth=4)
    lines += files[:15]
    if len(files) > 15:
        lines.append(f"... and {len(files) - 15} more")
    return ["## Entry points"] + (lines or ["none found by name (no package scripts, no main/index/app files)"])


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n - 3] + "..."


def folder_summary(view: View, folder: str) -> str:
    """One line on what a folder holds: its README's first sentence, its package description or docstring."""
    for name in ("README.md", "README.rst", "README.txt", "README"):
        fenced = False
        for line in view.read(posixpath.join(folder, name)).splitlines():
            line = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", line.strip())   # a Markdown link: its text
            fenced ^= line.startswith(("```", "~~~"))
            if not fenced and line[:1].isalpha() and not line.startswith("http") and len(line.split()) >= 4:
                return _short(re.split(r"(?<=[.!?])\s", line)[0], 100)
    desc = _json(view, posixpath.join(folder, "package.json")).get("description")
    if isinstance(desc, str) and desc.strip():
        return _short(desc, 100)
    m = re.match(r'\s*(?:#[^\n]*\n\s*)*[rbuRBU]?("""|\'\'\')\s*([^\n]+)', view.read(posixpath.join(folder, "__init__.py")))
    if m:
        return _short(m.group(2).strip().rstrip('"\''), 100)
    return ""


def folder_lines(view: View, depth: int = 2) -> list[tuple[str, int, str]]:
    """(folder, file count, line) per folder up to `depth` levels, in path order; the root's own files first."""
    counts: dict[str, Counter] = {}
    for e in view.index.files.values():
        parts = e.path.split("/")[:-1]
        for d in range(1, min(depth, len(parts)) + 1):
            counts.setdefault("/".join(parts[:d]), Counter())[e.lang] += 1
    root_files = [p for p in view.paths if "/" not in p]
    out = [("", len(root_files), f"- ./ ({len(root_files)} files at the root)")] if root_files else []
    for folder in sorted(counts):
        c = counts[folder]
        kinds = ", ".join(f"{lang} {n}" for lang, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
        summary = folder_summary(view, folder)
        total = sum(c.values())
        out.append((folder, total, f"- {folder}/ ({total} files: {kinds})" + (f" {summary}" if summary else "")))
    return out


def section_folders(view: View, room: int = MANIFEST_CHARS) -> list[str]:
    """The folder map in `room` characters: top-level folders first, then the biggest subfolders."""
    rows = folder_lines(view)
    order = sorted(range(len(rows)), key=lambda i: (rows[i][0].count("/"), -rows[i][1], rows[i][0]))
    kept, used = set(), len("## Folders") + 80
    for i in order:
        if used + len(rows[i][2]) + 1 > room:
            break
        kept.add(i)
        used += len(rows[i][2]) + 1
    left = len(rows) - len(kept)
    more = [f"... {left} more folders, smaller or deeper (`rt find` looks inside them)"] if left else []
    return ["## Folders"] + ([rows[i][2] for i in sorted(kept)] + more or ["no files yet"])


def section_relevant(view: View) -> list[str]:
    if not view.text and not view.pinned:
        return []
    r = view.ranking
    lines = ["## Files that look relevant to the task"]
    if r.vague and not view.pinned:
        return lines + [vague_notice(r)]
    for i, f in enumerate(r.files[:10], 1):
        lines.append(f"{i}. {f.path}" + (f" ({'; '.join(f.why)})" if f.why else ""))
    return lines + (["no file matches the task's words"] if not r.files else [])


def section_checks(view: View) -> list[str]:
    """The project's own checks and their commands: what `rt baseline` and `rt verify` run."""
    try:
        checks = detect(view.ctx.repo)
    except RtError as e:  # a broken rt.toml must not hide the rest of the manifest
        return ["## Checks", f"could not read the check configuration: {e}"]
    lines = ["## Checks"] + [f"- {c.name} ({c.kind}, {'required' if c.required else 'optional'}): `{' '.join(c.command)}`"
                             for c in checks]
    return lines if checks else lines + [f"none found: no linter, type checker or test runner is declared ({CONFIG} adds them)"]


SECTIONS = [section_stack, section_checks, section_folders, section_entry_points, section_relevant]
"""The manifest, in order. A section is `fn(view) -> lines` (its heading first, [] to leave it out)."""


def vague_notice(r: Ranking) -> str:
    tried = ", ".join(r.terms) if r.terms else "none"
    return (f"The task description is too vague to choose files: none of its words picks out a few files "
            f"(words tried: {tried}). Name the files or folders with `--path P` (e.g. `rt pack \"<task>\" --path src/x.py`), "
            f"or describe the task with names that appear in the code: a function, a screen, a message.")


def manifest_for(view: View) -> str:
    """The manifest within MANIFEST_CHARS: the folder map gets the room the other sections leave."""
    head = ["# Repository manifest"] + ([f"task: {_short(view.text, 300)}"] if view.text else [])
    i = SECTIONS.index(section_folders)
    sections = [fn(view) if fn is not section_folders else [] for fn in SECTIONS]
    others = len(_join(head, sections[:i] + sections[i + 1:]))
    sections[i] = section_folders(view, MANIFEST_CHARS - others - 2)
    text = _join(head, sections)
    return text if len(text) <= MANIFEST_CHARS else text[:MANIFEST_CHARS].rsplit("\n", 1)[0] + "\n"


def _join(head: list[str], sections: list[list[str]]) -> str:
    return "\n\n".join(["\n".join(head)] + ["\n".join(s) for s in sections if s]) + "\n"


# ---------------------------------------------------------------- the task pack

PACK_FILES = 6
"""At most this many files get code in the pack; the ranked list names more."""
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


def dependents(view: View, path: str, names: list[str], skip: set[str]) -> list[str]:
    """`file:line: code` for where the files importing `path` use its chosen names (or import it)."""
    out = []
    for user in view.index.importers(path):
        if user in skip:
            continue
        text = view.read(user)
        stem = posixpath.splitext(posixpath.basename(path))[0]
        wanted = re.compile(r"\b(" + "|".join(re.escape(n) for n in names + [stem]) + r")\b")
        hits = [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1) if wanted.search(line)][:3]
        out += [f"{user}:{i}: {_short(line, 160)}" for i, line in hits]
    return out


def memory_entries(task: dict | None) -> list[str]:
    """What the agent already recorded on this task: its plan note and latest steps, newest first."""
    if not task:
        return []
    notes = [s["note"] for s in reversed(task.get("steps", []))]
    if task.get("plan_note"):
        notes.append(f"plan: {task['plan_note']}")
    return [budget.cut_to(" ".join(n.split()), budget.MEMORY_EACH, words=True) for n in notes][:budget.MEMORY_ENTRIES]


@dataclass
class Pack:
    text: str
    files: list[str]
    fragments: list[dict]
    dropped: list[str]
    vague: bool
    budget: dict = field(default_factory=dict)   # with a window: the tokens asked for and what was kept


def build_pack(view: View, task: dict | None = None, window: int | None = None) -> Pack:
    """The pack in PACK_CHARS characters (and, with a window, in what `budget.can_fit` leaves for code)."""
    r = view.ranking
    head = ["# Task pack", f"task: {_short(view.text, 300)}" if view.text else "task: (none given; pinned paths only)"]
    if r.terms:
        head.append("words looked for: " + ", ".join(r.terms))
    pinned = [f.path for f in r.files if f.why == ["pinned"]]
    if r.vague and not pinned:
        return Pack("\n".join(head + ["", vague_notice(r)]) + "\n", [], [], [], True)
    chosen = _pack_files(r)
    ranked = ["## Ranked files"] + [f"{i}. {f.path}" + (f" ({'; '.join(f.why)})" if f.why else "")
                                    for i, f in enumerate(r.files[:12], 1)]
    if r.vague:
        ranked.append(vague_notice(r))
    memory = memory_entries(task)
    folders = sorted({posixpath.dirname(p) for p in chosen} - {""})
    folder_ctx = [f"- {d}/: {folder_summary(view, d) or 'no summary'}" for d in folders]
    terms = set(r.terms)
    frags: list[Fragment] = []
    for p in chosen:
        text = view.read(p)
        frags += fragments(p, text, view.index.files.get(p), terms) if text else []
    uses = []
    for p in chosen[:3]:
        uses += dependents(view, p, sorted({n for f in frags if f.path == p for n in f.names}), set(chosen))
    fixed = "\n".join(head + [""] + ranked) + "\n"
    mem_block = ("\n## Memory (notes recorded on this task)\n" + "".join(f"- {m}\n" for m in memory)) if memory else ""
    folder_block = ("\n## Folder context\n" + "\n".join(folder_ctx) + "\n") if folder_ctx else ""
    uses_block = ("\n## Where the files importing them use them\n" + "\n".join(uses[:15]) + "\n") if uses else ""
    room_chars = PACK_CHARS - len(fixed) - len(mem_block) - len(folder_block) - len(uses_block) - 200
    code_frags = _fill(frags, room_chars, None)
    dropped: list[str] = []
    asked: dict = {}
    if window:
        code_tokens = sum(budget.estimate(f.render()) for f in code_frags) + budget.estimate(uses_block)
        fit = budget.can_fit(window, code=code_tokens, memory=[budget.estimate(m) for m in memory],
                             folders=budget.estimate(folder_block))
        dropped = fit.dropped
        asked = {"window": window, "code": code_tokens, "memory": [budget.estimate(m) for m in memory],
                 "folders": budget.estimate(folder_block), "kept": {"code": fit.code, "memory": fit.memory,
                                                                    "folders": fit.folders}}
        folder_block = folder_block if fit.folders else ""
        memory = memory[:fit.memory]
        mem_block = ("\n## Memory (notes recorded on this task)\n" + "".join(f"- {m}\n" for m in memory)) if memory else ""
        if fit.code < code_tokens:
            uses_block = ""
            code_frags = _fill(frags, room_chars, fit.code)
        head.append(f"budget: {window} tokens (system {budget.split(window).system}, answer {budget.split(window).output}, "
                    f"code {fit.code})" + (f"; dropped: {'; '.join(dropped)}" if dropped else "; nothing dropped"))
        fixed = "\n".join(head + [""] + ranked) + "\n"
    code = "\n## Code\n" + "\n".join(f.render() for f in code_frags) if code_frags else ""
    text = fixed + mem_block + folder_block + code + uses_block
    return Pack(text, chosen, [{"path": f.path, "start": f.start, "end": f.end, "of": f.total, "what": f.what}
                               for f in code_frags], dropped, r.vague, asked)


def _pack_files(r: Ranking) -> list[str]:
    """Pinned files, then the ranked files scoring at least a fifth of the best unpinned one."""
    pinned = [f.path for f in r.files if f.why == ["pinned"]]
    rest = [f for f in r.files if f.why != ["pinned"]]
    if r.vague:
        return pinned
    best = rest[0].score if rest else 0.0
    return pinned + [f.path for f in rest[:PACK_FILES] if f.score >= best / 5]


def _fill(frags: list[Fragment], chars: int, tokens_left: int | None) -> list[Fragment]:
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


# ---------------------------------------------------------------- commands and the functions hooks call

def _view(ctx, text: str, paths: list[str]) -> View:
    from rt import index
    pinned = []
    idx = index.load(ctx)
    for p in paths:
        rel = to_rel(ctx.repo, p)
        if rel not in idx.files and not any(f.startswith(rel.rstrip("/") + "/") for f in idx.paths):
            near = closest_paths(rel, idx.paths)
            raise PathError(f"--path {p}: no such file or folder in the index" + (f"; closest: {', '.join(near)}" if near else ""))
        pinned.append(rel)
    return View(ctx, idx, " ".join(text.split()), pinned)


def manifest_text(ctx, task_text: str) -> str:
    """The manifest for `task_text` (empty: the repository alone)."""
    return manifest_for(_view(ctx, task_text, []))


def pack_text(ctx, task_text: str, paths: list[str], budget: int | None = None) -> str:
    """The task pack for `task_text` with `paths` pinned, in `budget` tokens of window when given.

    When `task_text` is the active task's, its recorded notes come along as memory entries.
    """
    task = state.active_task(ctx.store, required=False)
    same = task is not None and " ".join(task["text"].split()) == " ".join(task_text.split())
    return build_pack(_view(ctx, task_text, paths), task if same else None, budget).text


def _task_input(ctx, args) -> tuple[str, list[str], dict | None]:
    """The text and pins from the command line, else the active task's (which is then returned too)."""
    text = (getattr(args, "task", None) or "").strip()
    paths = list(getattr(args, "path", []) or [])
    if text:
        return text, paths, None
    task = state.active_task(ctx.store, required=False)
    if task is None:
        if paths:
            return "", paths, None
        raise UsageError("no task text and no active task; give one: rt pack \"<task>\" (or start one with `rt start`)")
    return task["text"], paths or list(task.get("paths") or []), task


def args_manifest(p) -> None:
    p.add_argument("task", nargs="?", help="the task, in words (default: the active task's)")


def cmd_manifest(ctx, args) -> Result:
    text = (args.task or "").strip()
    task = None if text else state.active_task(ctx.store, required=False)
    view = _view(ctx, text or (task["text"] if task else ""), list(task.get("paths") or []) if task else [])
    out = manifest_for(view)
    if task:
        ctx.store.write_text(f"tasks/{task['id']}/manifest.md", out)
    rel = view.ranking.files[:10] if view.text else []
    return Result(out.rstrip("\n"), {"manifest": out, "chars": len(out),
                                     "relevant": [{"path": f.path, "why": f.why} for f in rel]})


def args_pack(p) -> None:
    p.add_argument("task", nargs="?", help="the task, in words (default: the active task's)")
    p.add_argument("--path", action="append", default=[], metavar="P", help="pin a file or folder (repeatable)")
    p.add_argument("--budget", type=int, metavar="TOKENS", help="fit the pack into a context window of this many tokens")


def cmd_pack(ctx, args) -> Result:
    text, paths, task = _task_input(ctx, args)
    if args.budget is not None:
        budget.split(args.budget)   # refuses a window too small before any work
    view = _view(ctx, text, paths)
    pack = build_pack(view, task, args.budget)
    if task:
        ctx.store.write_text(f"tasks/{task['id']}/pack.md", pack.text)
    data = {"pack": pack.text, "chars": len(pack.text), "tokens": budget.estimate(pack.text), "vague": pack.vague,
            "terms": view.ranking.terms, "files": pack.files, "fragments": pack.fragments, "dropped": pack.dropped, "budget": pack.budget,
            "ranked": [{"path": f.path, "score": f.score if f.score != float("inf") else None, "why": f.why}
                       for f in view.ranking.files[:100]]}
    return Result(pack.text.rstrip("\n"), data)
