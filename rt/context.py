"""The manifest (what this repository is) and the task pack (the code a task most likely touches).

Both are written for a model to read: capped in size, byte-stable, and honest about being partial.
Files are ranked by `rt/pack/rank.py` from the index's postings; the pack shows their code as
`rt/pack/fragments.py` cuts it, within PACK_CHARS headings included. `rt pack --json` gives the
ranked list that `bench/localize` scores.
"""
from __future__ import annotations

import functools
import json
import os
import posixpath
import re
from collections import Counter
from functools import cached_property

from rt import budget, journal, state
from rt.core import (PathError, Result, RtError, UsageError, closest_paths, counted, git, git_paths, is_test, read_text,
                     shown as path_line, to_rel)
from rt.index import history
from rt.pack.fragments import Fragment, Parts, as_keys, changed_fragments, fragments, is_import
from rt.pack.rank import (CODE_LANGS, NOT_COMMITTED, Ranking, changed_with, extracted_apart, is_rt_own, like_commits,
                          parse_task, rank, recent_work, settle, short)

MANIFEST_CHARS = 6000
PACK_CHARS = 18000

# ---------------------------------------------------------------- the repository at a glance

TOP_DEPTH = 4
"""How deep the manifest looks for files by name (package manifests, entry points), at most."""


class View:
    """What the manifest's sections read: the index, the file list, the task text and its ranking."""

    def __init__(self, ctx, index, text: str, pinned: list[str]):
        self.ctx, self.index, self.text, self.pinned = ctx, index, text, pinned
        self.paths = index.paths
        self._ranking: Ranking | None = None

    @property
    def ranking(self) -> Ranking:
        if self._ranking is None:
            ranker = rank if self.index.complete else settle
            reading, self.ctx.history = self.ctx.history, None   # started before the view (the /runtask hook)
            together = reading.result() if reading is not None else history.load(self.ctx.repo, self.ctx.store)
            ranking = ranker(self.index, self.text, self.pinned, self.read,
                             extracted=None if together is None else functools.partial(extracted_apart, together))
            if together is not None:
                ranking = changed_with(like_commits(ranking, together, self.indexed), together, self.indexed)
            self._ranking = recent_work(ranking, together, self.indexed,   # no history: every file is new, none is news
                                        self._uncommitted() if ranking.vague and together is not None else [])
        return self._ranking

    def read(self, path: str) -> str:
        return read_text(self.ctx.repo, path) or ""

    @cached_property
    def work_going_on(self) -> list[tuple[str, str, list[Fragment]]]:
        """A vague task's lead files (`rank.recent_work`): each one's path, why it leads, and its code where it was
        changed last (`history.changed_lines`); asked of git once for the pack and the injection alike."""
        recent = self.ranking.files[:self.ranking.recent]
        if not recent:
            return []
        spans = history.changed_lines(self.ctx.repo, [f.path for f in recent],
                                      {f.path for f in recent if f.why == [NOT_COMMITTED]})
        return [(f.path, "; ".join(f.why), changed_fragments(f.path, self.read(f.path), spans[f.path]) if f.path in spans
                 else []) for f in recent]

    def _uncommitted(self) -> list[str]:
        """The files changed in the working tree since HEAD, staged or not, and the new ones git would add, the last
        modified first: asked only for a vague task (`rank.recent_work`); none outside git."""
        repo = self.ctx.repo
        if not repo.is_git:
            return []
        changed = git(repo.root, "-c", "core.quotePath=false", "diff", "--name-only", "-z", "HEAD", "--") or b""
        new = git(repo.root, "ls-files", "-o", "--exclude-standard", "-z") or b""

        def modified(path: str) -> int:
            try:
                return os.lstat(os.path.join(repo.top, path)).st_mtime_ns
            except OSError:   # removed: its change is no file to show
                return 0
        return sorted(set(git_paths(changed)) | set(git_paths(new)), key=lambda p: (-modified(p), p))

    def _of_index(self, name: str, make):
        """A value worked out from the index's paths alone, kept on the index object (`Index.of_paths`): the hook
        server's kept index (`index.Kept`) gives the next hook's view the same object, and the value with it."""
        kept = getattr(self.index, "of_paths", None)
        if kept is None:   # a partial index: one view in its life
            return make()
        if name not in kept:
            kept[name] = make()
        return kept[name]

    @cached_property
    def indexed(self) -> frozenset[str]:
        return self._of_index("indexed", lambda: frozenset(self.paths))

    def read_indexed(self, path: str) -> str:
        """A file's text when the index holds it, else "" without a look at the disk: the manifest asks
        every folder for its README, package.json and __init__.py, which most folders do not have."""
        return self.read(path) if path in self.indexed else ""

    @cached_property
    def _by_name(self) -> dict[str, list[tuple[int, str]]]:
        """File name -> (position in `paths`, path) of the files so named less than TOP_DEPTH folders down:
        the sections ask for a few names each, and going through 20,000 paths once beats once per question."""
        def make() -> dict[str, list[tuple[int, str]]]:
            out: dict[str, list[tuple[int, str]]] = {}
            for i, p in enumerate(self.paths):
                if p.count("/") < TOP_DEPTH:
                    out.setdefault(p.rpartition("/")[2], []).append((i, p))
            return out
        return self._of_index("by_name", make)

    def top_level(self, names: tuple[str, ...], depth: int = 2) -> list[str]:
        """Files with one of these names less than `depth` (at most TOP_DEPTH) folders down, in `paths`
        order, tests and examples left out."""
        found = sorted(hit for name in set(names) for hit in self._by_name.get(name, ()))
        return [p for _, p in found if p.count("/") < depth
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
        data = json.loads(view.read_indexed(path))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _toml(view: View, path: str) -> dict:
    import tomllib   # here: `rt pack` reads no TOML
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
    langs: Counter = Counter()
    for (_, lang), n in view.index.folder_langs.items():
        if lang != "other":
            langs[lang] += n
    code = [(lang, n) for lang, n in langs.most_common() if lang in CODE_LANGS]
    other = [(lang, n) for lang, n in langs.most_common() if lang not in CODE_LANGS]
    lines = ["## Stack"]
    if code:
        lines.append("languages: " + ", ".join(f"{lang} ({counted(n, 'file')})" for lang, n in sorted(code, key=lambda x: (-x[1], x[0]))[:8]))
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
            if posixpath.join(folder, name) in view.indexed:
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
                lines.append(f"{p} `npm run {name}`: {short(scripts[name], 80)}")
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




def folder_summary(view: View, folder: str) -> str:
    """One line on what a folder holds: its README's first sentence, its package description or docstring."""
    for name in ("README.md", "README.rst", "README.txt", "README"):
        fenced = False
        for line in view.read_indexed(posixpath.join(folder, name)).splitlines():
            line = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", line.strip())   # a Markdown link: its text
            fenced ^= line.startswith(("```", "~~~"))
            if not fenced and line[:1].isalpha() and not line.startswith("http") and len(line.split()) >= 4:
                return short(re.split(r"(?<=[.!?])\s", line)[0], 100)
    desc = _json(view, posixpath.join(folder, "package.json")).get("description")
    if isinstance(desc, str) and desc.strip():
        return short(desc, 100)
    m = re.match(r'\s*(?:#[^\n]*\n\s*)*[rbuRBU]?("""|\'\'\')\s*([^\n]+)', view.read_indexed(posixpath.join(folder, "__init__.py")))
    if m:
        return short(m.group(2).strip().rstrip('"\''), 100)
    return ""


def folder_lines(view: View) -> list[tuple[str, int, str]]:
    """(folder, file count, line) per folder down to `langs.FOLDER_DEPTH` levels, in path order; the root's own files first."""
    counts: dict[str, Counter] = {}   # folder -> language -> files in it and below
    for (folder, lang), n in view.index.folder_langs.items():
        while folder:
            counts.setdefault(folder, Counter())[lang] += n
            folder = folder.rpartition("/")[0]
    root_files = [p for p in view.paths if "/" not in p]
    out = [("", len(root_files), f"- ./ ({counted(len(root_files), 'file')} at the root)")] if root_files else []
    for folder in sorted(counts):
        c = counts[folder]
        kinds = ", ".join(f"{lang} {n}" for lang, n in sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:3])
        summary = folder_summary(view, folder)
        total = sum(c.values())
        out.append((folder, total, f"- {folder}/ ({counted(total, 'file')}: {kinds})" + (f" {summary}" if summary else "")))
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
        return lines + [vague_notice(r)] + recent_lines(r)
    for i, f in enumerate(r.files[:10], 1):
        lines.append(f"{i}. {f.path}" + (f" ({'; '.join(f.why)})" if f.why else ""))
    return lines + (["no file matches the task's words"] if not r.files else [])


def section_checks(view: View) -> list[str]:
    """The project's own checks and their commands: what `rt baseline` and `rt verify` run."""
    from rt.checks import CONFIG, detect   # here: `rt pack` never needs the checks
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


def recent_lines(r: Ranking) -> list[str]:
    """A vague task's lead files, the work going on (`rank.recent_work`), as a numbered list; none when there are none."""
    if not r.recent:
        return []
    return ["The files of the work going on, newest first (no word of the task chose them):"] + [
        f"{i}. {f.path} ({'; '.join(f.why)})" for i, f in enumerate(r.files[:r.recent], 1)]


def manifest_for(view: View) -> str:
    """The manifest within MANIFEST_CHARS: the folder map gets the room the other sections leave."""
    head = ["# Repository manifest"] + ([f"task: {short(view.text, 300)}"] if view.text else [])
    i = SECTIONS.index(section_folders)
    sections = [fn(view) if fn is not section_folders else [] for fn in SECTIONS]
    others = len(_join(head, sections[:i] + sections[i + 1:]))
    sections[i] = section_folders(view, MANIFEST_CHARS - others - 2)
    text = _join(head, sections)
    return text if len(text) <= MANIFEST_CHARS else text[:MANIFEST_CHARS].rsplit("\n", 1)[0] + "\n"


def _join(head: list[str], sections: list[list[str]]) -> str:
    return "\n\n".join(["\n".join(head)] + ["\n".join(s) for s in sections if s]) + "\n"


# ---------------------------------------------------------------- the task pack

PACK_FILES = 16
"""At most this many ranked files get code in the pack ..."""
SPARE_FILES = 8
"""... and this many more, ranked next, from the room the pack leaves unused (`_fill`)."""
PACK_RATIO = 0.08
"""... each scoring at least this share of the best unpinned one."""
SHARES = (0.34, 0.2, 0.14, 0.1, 0.08, 0.06, 0.05, 0.05)
"""The first pass's share of the code room for the first files in rank order; what is left goes, in rank
order, to the files that want more."""
TAIL_CHARS = 600
"""Each file ranked past SHARES gets this much room, heading included, set aside before the shares are
given: its best piece (a short definition, a signature and the lines matching). A commit's files are
often ranked 9th to 16th, and their code in the pack costs less than a look-up."""
TESTS_SHARE = 0.12
USES_LINES = 8


def dependents(view: View, path: str, names: list[str], skip: set[str]) -> list[str]:
    """`file:line: code` for where the files importing `path` use its chosen names (or import it), two
    lines a file at most, uses before imports."""
    out = []
    for user in view.index.importers(path):
        if user in skip or is_rt_own(user):
            continue
        text = view.read(user)
        stem = posixpath.splitext(posixpath.basename(path))[0]
        wanted = re.compile(r"\b(" + "|".join(re.escape(n) for n in names + [stem]) + r")\b")
        hits = [(is_import(line), i, line.strip()) for i, line in enumerate(text.splitlines(), 1) if wanted.search(line)]
        out += [f"{user}:{i}: {short(line, 160)}" for _, i, line in sorted(hits)[:2]]   # uses before the import
    return out


def tests_for(view: View, path: str) -> list[str]:
    """Test files for `path`: those importing it, then those named after it (`test_x.py`, `x_test.go`, `x.test.ts`)
    where no other file of that name lies nearer the test (`debug/src/__tests__/index.spec.ts` is not
    `doc-properties/manager/index.tsx`'s: `index`, `utils`, `mod` name a file in many folders)."""
    stem = posixpath.basename(path).split(".", 1)[0]
    named = re.compile(r"(^|/)(test_?" + re.escape(stem) + r"|" + re.escape(stem) + r"([._-](test|spec))|"
                       + re.escape(stem) + r"_test)\.[A-Za-z]+$", re.IGNORECASE)
    lists = [view.index.postings("pterms", k) for k in as_keys([stem])]
    near = list(map(view.index.path_of, (v if type(v) is int else v[0] for v in min(lists, key=len)))) if lists else []
    by_name = sorted(t for t in near if named.search(t) and is_test(t) and t != path)
    if by_name:   # most files have none: the files of that name only then
        alike = [p for p in near if posixpath.basename(p).split(".", 1)[0].lower() == stem.lower() and not is_test(p)]
        by_name = [t for t in by_name if _shared(t, path) >= max((_shared(t, p) for p in alike), default=0)]
    found = [t for t in view.index.importers(path) if is_test(t)] + by_name
    return [t for t in dict.fromkeys(found) if not is_rt_own(t)]


def _shared(a: str, b: str) -> int:
    """How many leading folders paths `a` and `b` share."""
    n = 0
    for x, y in zip(a.split("/")[:-1], b.split("/")[:-1]):
        if x != y:
            break
        n += 1
    return n


def memory_entries(task: dict | None, facts: list[str] = ()) -> list[str]:
    """The user's `/mem` facts (`facts`, newest first), then what the agent already recorded on this task:
    its latest steps, newest first, and its plan note."""
    notes = [f"user: {f}" for f in facts]
    if task:
        notes += [s["note"] for s in reversed(task.get("steps", []))]
        if task.get("plan_note"):
            notes.append(f"plan: {task['plan_note']}")
    return [budget.memory_entry(n) for n in notes][:budget.MEMORY_ENTRIES]


class Pack:
    """The pack's text, the files given code, each fragment's range, what a window dropped, whether the
    task was too vague, and with a window the tokens asked for and what was kept (`budget`)."""

    __slots__ = ("text", "files", "fragments", "dropped", "vague", "budget")

    def __init__(self, text: str, files: list[str], fragments: list[dict], dropped: list[str], vague: bool,
                 budget: dict | None = None):
        self.text, self.files, self.fragments, self.dropped, self.vague = text, files, fragments, dropped, vague
        self.budget = budget or {}


def render_file(path: str, frags: list[Fragment], why: str = "", *, empty: bool = False) -> str:
    """One file's fragments under one heading: its length and why it is here, then each part's lines; an `empty`
    file's heading says so (a named or pinned file the model would otherwise Read to find nothing)."""
    if not frags:
        return f"### {path_line(path)} (empty file" + (f"; {why}" if why else "") + ")\n" if empty else ""
    head = f"### {path_line(path)} ({counted(frags[0].total, 'line')}" + (f"; {why}" if why else "") + ")\n"
    if len(frags) == 1 and frags[0].what == "whole file":
        return head + frags[0].code()
    return head + "".join(f.shown() for f in frags)


def _allocate(parts, files: list[str], room: int) -> dict[str, list[Fragment]]:
    """Each file's fragments (`parts`: path -> its `Parts`) within `room` characters in all: a share by rank first
    (TAIL_CHARS past the SHARES, set aside first), then what is left, in rank order, to the files that want more."""
    out: dict[str, list[Fragment]] = {}
    used = 0
    tail = min(TAIL_CHARS * max(0, len(files) - len(SHARES)), room // 3)   # a small room goes to the first files
    for i, p in enumerate(files):
        cap = min(room - used, int((room - tail) * SHARES[i]) if i < len(SHARES) else TAIL_CHARS) - _head(p)
        out[p] = parts(p).within(cap) if cap > 80 else []
        used += _cost(p, out[p])
    _grow(parts, out, room - used)
    return {p: f for p, f in out.items() if f}


def _grow(parts, code: dict[str, list[Fragment]], room: int) -> int:
    """Give `room` characters, in rank order, to the files of `code` whose fragments grow with it; what is left."""
    for p, frags in list(code.items()):
        if room < 200:
            break
        if frags and frags[0].what == "whole file":
            continue   # all there is of it
        more = parts(p).within(_cost(p, frags) - _head(p) + room)
        if _cost(p, more) > _cost(p, frags):
            room -= _cost(p, more) - _cost(p, frags)
            code[p] = more
    return room


def _head(path: str) -> int:
    """Characters a file's heading takes, as the room is shared out (`_cost` has its reasons as 50)."""
    return len(path) + 60


def _fill(parts, code: dict[str, list[Fragment]], spare: list[str], room: int, why: dict[str, str]) -> None:
    """Spend the `room` the pack left unused: half on the packed files that want more (in rank order), the
    rest on the `spare` files ranked next, TAIL_CHARS at most each (their best piece: whether a file the
    ranking nearly chose is the one). Measured on held-out history, either half alone lost what the other gained."""
    room = room - room // 2 + _grow(parts, code, room // 2)
    for p in spare:
        cap = min(room, TAIL_CHARS) - _head(p)
        if cap <= 80:
            break
        frags = parts(p).within(cap)
        if frags:
            code[p] = frags
            room -= len(render_file(p, frags, why.get(p, "")))


def _uses_block(uses: list[str]) -> str:
    return _block("Where the files importing them use them", "\n".join(uses) + "\n" if uses else "")


def _block(title: str, text: str) -> str:
    """A section of the pack under its heading; none when it holds nothing."""
    return f"\n## {title}\n{text}" if text else ""


def _cost(path: str, frags: list[Fragment]) -> int:
    return len(render_file(path, frags, "x" * 50)) if frags else 0


def build_pack(view: View, task: dict | None = None, window: int | None = None) -> Pack:
    """The pack in PACK_CHARS characters, headings included (and, with a window, in what `budget.can_fit`
    leaves for code): code of the best files, the tests exercising them, where their importers use them."""
    r = view.ranking
    head = ["# Task pack", f"task: {short(view.text, 300)}" if view.text else "task: (none given; pinned paths only)"]
    if r.terms:
        head.append("words looked for: " + ", ".join(r.terms))
    pinned = [f.path for f in r.files if f.why == ["pinned"]]
    if r.vague and not pinned:
        return _vague_pack(view, r, head, window)
    files, ranked_tests = _pack_files(r)   # a vague task with pins gets their code: the notice would ask for them
    chosen, spare = files[:len(pinned) + PACK_FILES], files[len(pinned) + PACK_FILES:]
    why = {f.path: short("; ".join(f.why), 140) for f in r.files[:len(files) + len(ranked_tests) + 5]}
    memory = memory_entries(task, journal.memory_facts(view.ctx.store))
    folders = sorted({posixpath.dirname(p) for p in chosen} - {""})
    folder_ctx = [f"- {d}/: {s}" for d in folders for s in [folder_summary(view, d)] if s]
    keys = r.weights or as_keys(r.terms)

    def blocks(memory: list[str], folders: bool) -> tuple[str, str]:
        return (_block("Memory (notes recorded on this task)", "".join(f"- {m}\n" for m in memory)),
                _block("Folder context", "\n".join(folder_ctx) + "\n" if folder_ctx and folders else ""))

    known: dict[str, Parts] = {}
    empty = {p for p in chosen if _empty(view.ctx.repo, p)}   # no fragment to show, but the model should know

    def parts_of(path: str) -> Parts:   # each file's pieces found once, whatever rooms it is offered
        got = known.get(path)
        if got is None:
            got = known[path] = Parts(path, view.read(path) or "", view.index.entry(path), keys)
        return got

    def assemble(room: int, tests_room: int, uses_n: int, fill: bool = False):
        code = _allocate(parts_of, chosen, room)
        tested: dict[str, list[Fragment]] = {}
        tests_of: dict[str, str] = {}
        t_used = 0
        for p in [p for p in code if not is_test(p)][:3]:
            names = sorted({n for f in code[p] for n in f.names})
            found = tests_for(view, p)
            for t in [t for t in ranked_tests if t in found] + [t for t in found if t not in ranked_tests][:2]:
                text = view.read(t) if t not in code and t not in tested else ""
                left = tests_room - t_used - len(t) - 60
                calls = {k: max(keys.values(), default=1.0) for k in as_keys(names)}   # the shown names weigh most
                frags = fragments(t, text, view.index.entry(t), keys | calls, left, fit=False) if text and left > 300 else []
                if frags and not all(f.what.startswith("start of file") or f.what == "imports" for f in frags):
                    tested[t], tests_of[t] = frags, p
                    t_used += _cost(t, frags)
                    break
        uses = []
        for p in list(code)[:3]:
            uses += dependents(view, p, sorted({n for f in code[p] for n in f.names}), set(code) | set(tested))
        shown = {p: render_file(p, code.get(p, []), why.get(p, ""), empty=p in empty) for p in chosen if p in code or p in empty}
        shown_tests = {t: render_file(t, tested[t], f"tests {tests_of[t]}") for t in tested}
        uses = uses[:uses_n]
        uses_block = _uses_block(uses)
        if fill:   # the room the code, tests and uses left
            _fill(parts_of, code, spare, PACK_CHARS - len(fixed + mem_block + folder_block + _block("Code", "".join(shown.values()))
                                                          + _block("Tests", "".join(shown_tests.values())) + uses_block), why)
            shown |= {p: render_file(p, code[p], why.get(p, "")) for p in code}
        over = len(fixed + mem_block + folder_block + _block("Code", "".join(shown.values()))
                   + _block("Tests", "".join(shown_tests.values()))) - PACK_CHARS
        while over > 0 and (shown_tests or len(shown) > 1):   # headings longer than `_cost` allowed for: never
            parts, frags = (shown_tests, tested) if shown_tests else (shown, code)   # over the budget, the last
            last = next(reversed(parts))                                         # test goes, else the last file
            over -= len(parts.pop(last))
            frags.pop(last, None)   # an empty file has no fragments
        return code, tested, _block("Code", "".join(shown.values())), _block("Tests", "".join(shown_tests.values())), uses

    mem_block, folder_block = blocks(memory, True)
    fixed = "\n".join(head) + "\n"
    room = PACK_CHARS - len(fixed) - len(mem_block) - len(folder_block) - 300
    tests_room = int(room * TESTS_SHARE)
    code, tested, code_block, tests_block, uses = assemble(room - tests_room - 120 * USES_LINES, tests_room, USES_LINES, fill=True)
    dropped: list[str] = []
    asked: dict = {}
    if window:
        code_tokens = budget.estimate(code_block + tests_block + _uses_block(uses))
        fit = budget.can_fit(window, code=code_tokens, memory=[budget.estimate(m) for m in memory],
                             folders=budget.estimate(folder_block))
        dropped = fit.dropped
        asked = {"window": window, "code": code_tokens, "memory": [budget.estimate(m) for m in memory],
                 "folders": budget.estimate(folder_block), "kept": {"code": fit.code, "memory": fit.memory,
                                                                    "folders": fit.folders}}
        memory = memory[:fit.memory]
        mem_block, folder_block = blocks(memory, fit.folders)
        if fit.code < code_tokens:
            share = fit.code / code_tokens
            for _ in range(6):   # fewer characters until the estimate fits what is left for code
                code, tested, code_block, tests_block, uses = assemble(int(room * share * 0.85), int(tests_room * share), 0)
                if budget.estimate(code_block + tests_block) <= fit.code:
                    break
                share *= 0.8
        head.append(_budget_line(window, fit))
        fixed = "\n".join(head) + "\n"
    text = fixed + mem_block + folder_block + code_block + tests_block
    while uses and len(text + _uses_block(uses)) > PACK_CHARS:   # never over: the uses that matter least go first
        uses = uses[:-1]
    text += _uses_block(uses)
    frags = [f for p in code for f in code[p]] + [f for t in tested for f in tested[t]]
    return Pack(text, list(code), _fragment_ranges(frags), dropped, r.vague, asked)


def _empty(repo, path: str) -> bool:
    try:
        return os.path.getsize(repo.root / path) == 0
    except OSError:
        return False


def _budget_line(window: int, fit) -> str:
    """The pack's line saying the window it was fitted into (`budget.can_fit`'s `fit`) and what that dropped."""
    s = budget.split(window)
    return (f"budget: {window} tokens (system {s.system}, answer {s.output}, code {fit.code})"
            + (f"; dropped: {'; '.join(fit.dropped)}" if fit.dropped else "; nothing dropped"))


def _fragment_ranges(frags: list[Fragment]) -> list[dict]:
    """Each fragment's range, as `rt pack --json` gives it."""
    return [{"path": f.path, "start": f.start, "end": f.end, "of": f.total, "what": f.what} for f in frags]


def _vague_pack(view: View, r: Ranking, head: list[str], window: int | None) -> Pack:
    """A vague task's pack: the notice, the files of the work going on, and where each changed last (`_recent_code`);
    with a window, in the tokens `budget.can_fit` leaves for code."""
    notice = ["", vague_notice(r)] + recent_lines(r)

    def text_of(room: int) -> tuple[str, dict[str, list[Fragment]]]:
        code = _recent_code(view, room)
        why = {path: reason for path, reason, _ in view.work_going_on}
        return _block("Code", "".join(render_file(p, code[p], why[p]) for p in code)), code

    room = PACK_CHARS - len("\n".join(head + notice)) - 40
    block, code = text_of(room)
    dropped: list[str] = []
    asked: dict = {}
    if window:
        tokens = budget.estimate(block)
        fit = budget.can_fit(window, code=tokens, memory=[], folders=0)
        dropped = fit.dropped
        share = fit.code / tokens if tokens else 1.0
        while share < 1.0 and code and budget.estimate(block) > fit.code:
            block, code = text_of(int(room * share * 0.85))
            share *= 0.8
        asked = {"window": window, "code": tokens, "memory": [], "folders": 0,
                 "kept": {"code": fit.code, "memory": 0, "folders": False}}
        head = head + [_budget_line(window, fit)]
    text = "\n".join(head + notice) + "\n" + block
    return Pack(text, list(code), _fragment_ranges([f for p in code for f in code[p]]), dropped, True, asked)


def _recent_code(view: View, room: int) -> dict[str, list[Fragment]]:
    """The code of a vague task's lead files where each was changed last (`View.work_going_on`): the lines a task
    saying only "bug fixed" most likely revisits. In their order, within `room` characters."""
    out: dict[str, list[Fragment]] = {}
    used = 0
    for path, why, changed in view.work_going_on:
        frags: list[Fragment] = []
        for frag in changed:
            cost = len(render_file(path, frags + [frag], why)) - len(render_file(path, frags, why))
            if used + cost > room:
                break
            frags.append(frag)
            used += cost
        if frags:
            out[path] = frags
    return out


def _pack_files(r: Ranking) -> tuple[list[str], list[str]]:
    """(files given code, ranked tests): pinned files, then the ranked files scoring at least PACK_RATIO
    of the best unpinned one, at most PACK_FILES + SPARE_FILES; a ranked test goes with the tests of the
    code instead."""
    pinned = [f.path for f in r.files if f.why == ["pinned"]]
    rest = [f for f in r.files if f.why != ["pinned"]]
    if r.vague:
        return pinned, []
    best = rest[0].score if rest else 0.0
    good = [f.path for f in rest if f.score >= best * PACK_RATIO]
    return pinned + [p for p in good if not is_test(p)][:PACK_FILES + SPARE_FILES], [p for p in good if is_test(p)]


# ---------------------------------------------------------------- commands and the functions hooks call

def _view(ctx, text: str, paths: list[str], idx=None) -> View:
    """The view of `text` with `paths` pinned, on `idx` (default: the index, built or updated as needed). The text
    keeps its lines: the ranking reads its first paragraph apart (`parse_task`)."""
    from rt.index import index
    pinned = []
    idx = idx or index.load(ctx)
    known = set(idx.paths) if paths else set()
    for p in paths:
        rel = to_rel(ctx.repo, p)
        if os.path.islink(ctx.repo.root / rel) and os.path.isdir(ctx.repo.root / rel):   # a linked folder: its files
            rel = os.path.relpath(os.path.realpath(ctx.repo.root / rel), ctx.repo.root).replace(os.sep, "/")
        if rel not in known and not any(f.startswith(rel.rstrip("/") + "/") for f in idx.paths):
            near = closest_paths(rel, idx.paths)
            raise PathError(f"--path {p}: no such file or folder in the index" + (f"; closest: {', '.join(map(path_line, near))}" if near else ""))
        pinned.append(rel)
    return View(ctx, idx, text.strip(), pinned)


def task_files(ctx, task: dict) -> tuple[View, tuple[str, str]]:
    """One view of the task (one index load, one ranking) with its manifest and pack written beside it,
    for `/runtask`'s hook to choose what to inject; the two files' paths, for a Read.

    In a repository with no index built yet, the view may be a `partial.Partial` (`_task_index`): the
    caller has the full build started after it."""
    view = _view(ctx, task["text"], list(task.get("paths") or []), _task_index(ctx, task))
    base = f"tasks/{task['id']}"
    ctx.store.write_text(f"{base}/manifest.md", manifest_for(view))
    ctx.store.write_text(f"{base}/pack.md", build_pack(view, task).text)
    return view, (f".rt/{base}/manifest.md", f".rt/{base}/pack.md")


PARTIAL_WORDS = 30
"""Words a task may have looked up, at most, for a cold repository to rank on a partial index: each one
is a pass over the tree there (a stop word too: is it a defined name?), a shard read in the full index;
a task pasted from a long issue ranks on the full index, built in the hook."""


def _task_index(ctx, task: dict):
    """The index the task ranks on. Built: loaded, and current without the quick check when it was written
    for the task's snapshot and the baseline's checks changed nothing (`index.load`'s `tree`). Else a
    `partial.Partial` of the tree when the tree holds PARTIAL_FROM files or more and the task PARTIAL_WORDS
    words looked up at most; else None (the index, built in the hook).
    The partial index's tree is the task's snapshot, as the task's baseline checks left it (`state.load_effects`): the
    task was started in this process, and a second scan of a large tree costs a large share of the hook;
    the text files that scan read (`ctx.texts`, taken here, so they are not held when unused) are not read again,
    nor the snapshot it wrote (`ctx.files`)."""
    from rt.index import index
    texts, ctx.texts = ctx.texts or {}, None
    files, ctx.files = ctx.files, None
    if index.built(ctx.store):   # the snapshot just taken says whether it is current, unless a check changed the tree
        fp = None if state.load_effects(ctx.store, task) else state.snapshot_fingerprint(ctx.store, task)
        return index.load(ctx, tree=fp)
    asked: list[str] = []
    if len(parse_task(task["text"], asked.append).keys) + len(asked) > PARTIAL_WORDS:
        return None
    from rt.index.partial import PARTIAL_FROM, Partial
    files = files if files is not None else state.load_snapshot(ctx.store, task)
    for path, (_, after) in state.load_effects(ctx.store, task).items():
        texts.pop(path, None)   # the bytes the snapshot read are no longer the file's
        if after is None:
            files.pop(path, None)
        else:
            files[path] = after
    return Partial(ctx.repo, files, texts) if len(files) >= PARTIAL_FROM else None


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
    if not ctx.json:   # the text is all that is printed: no estimate of the whole pack, no ranked list
        return Result(pack.text.rstrip("\n"))
    data = {"pack": pack.text, "chars": len(pack.text), "tokens": budget.estimate(pack.text), "vague": pack.vague,
            "terms": view.ranking.terms, "files": pack.files, "fragments": pack.fragments, "dropped": pack.dropped, "budget": pack.budget,
            "ranked": [{"path": f.path, "score": f.score if f.score != float("inf") else None, "why": f.why}
                       for f in view.ranking.files[:100]]}
    return Result(pack.text.rstrip("\n"), data)
