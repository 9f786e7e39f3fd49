"""Resolving import specifiers to repository files, with the whole file list in view.

Python: dotted modules from the repository root and from each package root (the first folder up
without `__init__.py`), and relative imports. JS/TS: relative paths with extensions and index files,
and `tsconfig.json`/`jsconfig.json` `baseUrl` and `paths` aliases. Go: packages inside the module
named in `go.mod`. Rust: `mod x;` and `crate::` paths. Java: fully qualified class names.
"""
from __future__ import annotations

import json
import posixpath
import re
from functools import cached_property

from rt.core import read_text
from rt.index.langs import words as word_list

JS_EXTS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".vue", ".svelte", ".json")


class Tree:
    """What resolution needs to know about the whole tree, each part worked out on first use only
    (an update that re-resolves one TypeScript file never builds the Python module map)."""

    def __init__(self, repo, paths: set[str]):
        self.repo, self.paths = repo, paths

    @cached_property
    def python(self) -> dict[str, str]:
        return _python_modules(self.paths)

    @cached_property
    def aliases(self) -> list[tuple[str, str, list[str]]]:
        return _js_aliases(self.repo, self.paths)

    @cached_property
    def go_mods(self) -> list[tuple[str, str]]:
        return _go_modules(self.repo, self.paths)

    @cached_property
    def dirs(self) -> dict[str, list[str]]:
        dirs: dict[str, list[str]] = {}
        for p in sorted(self.paths):
            dirs.setdefault(posixpath.dirname(p), []).append(p)
        return dirs

    @cached_property
    def java(self) -> dict[str, list[str]]:
        """Class name -> the Java and Kotlin files named for it (each imports the other's classes)."""
        by_class: dict[str, list[str]] = {}
        for p in sorted(self.paths):
            if p.endswith(_JVM_EXTS):
                by_class.setdefault(p.rsplit("/", 1)[-1].rsplit(".", 1)[0], []).append(p)
        return by_class


def resolve_all(repo, entries: dict, paths: set[str], tree: Tree | None = None) -> None:
    """Set `resolved` on each entry from its raw `imports`, against every file of the tree (`paths`);
    `tree` is their `Tree` when several calls resolve against the same files (it keeps what it worked out)."""
    tree = tree or Tree(repo, paths)
    for path, e in entries.items():
        found: set[str] = set()
        for spec in e.imports:
            if e.lang == "python":
                hits = [_python(path, spec, tree.python)]
            elif e.lang in ("javascript", "typescript", "vue", "svelte"):
                hits = [_js(path, spec, paths, tree.aliases)]
            elif e.lang == "go":
                hits = _go(spec, tree.go_mods, tree.dirs)
            elif e.lang == "rust":
                hits = [_rust(path, spec, paths)]
            elif e.lang in ("java", "kotlin"):
                hits = _java(spec, tree.java, tree.dirs)
            else:
                hits = []
            found.update(h for h in hits if h)
        found.discard(path)
        e.resolved = sorted(found)


def target_words(path: str) -> list[str] | None:
    """The words (as the index's word map spells them) every import that resolves to `path` holds: its
    name's, or its folder's for a folder's entry file (`index.ts`, `mod.rs`). [] when no import resolves
    to such a file; None when any import might (a package's `__init__.py` moves module names) or no word
    tells (a name of one letter). A Go or Java file's package is its folder: the callers take its
    importers too."""
    if not path.endswith((".py", ".pyi", ".go", ".rs") + _JVM_EXTS + JS_EXTS):
        return []
    folder, _, name = path.rpartition("/")
    stem = name.split(".", 1)[0]
    if stem == "__init__":
        return None
    return word_list(folder.rpartition("/")[2] if stem in ("index", "mod") else stem) or None


# ---------------------------------------------------------------- Python

def _python_modules(paths: set[str]) -> dict[str, str]:
    """Dotted module name -> file, from the root and from every package root."""
    dirs_with_init = {p.rsplit("/", 1)[0] if "/" in p else "" for p in paths if p.endswith("/__init__.py")}
    mods: dict[str, str] = {}
    for p in sorted(paths):
        if not p.endswith((".py", ".pyi")):
            continue
        stem = p[: p.rfind(".")]
        parts = stem.split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if not parts:
            continue
        names = [".".join(parts)]
        folder = p.rsplit("/", 1)[0] if "/" in p else ""
        depth = top = len(parts) - (0 if p.endswith("/__init__.py") else 1)   # folders above the module
        while depth > 0 and folder in dirs_with_init:
            depth -= 1
            folder = folder.rsplit("/", 1)[0] if "/" in folder else ""
        if depth < top:   # inside a package: importable by its name from the package root
            names.append(".".join(parts[depth:]))
        for n in names:
            if n and (n not in mods or p.endswith(".py")):
                mods.setdefault(n, p)
    return mods


def _python(path: str, spec: str, mods: dict[str, str]) -> str | None:
    if spec.startswith("."):
        level = len(spec) - len(spec.lstrip("."))
        folder = posixpath.dirname(path)
        for _ in range(level - 1):
            folder = posixpath.dirname(folder)
        rest = spec[level:]
        base = folder.replace("/", ".")
        spec = f"{base}.{rest}" if base and rest else (base or rest)
        if not spec:
            return None
    while spec:
        if spec in mods:
            return mods[spec]
        spec = spec.rpartition(".")[0]   # `from a.b import name`: name is not a module, a/b.py is
    return None


# ---------------------------------------------------------------- JavaScript / TypeScript

def _with_exts(base: str, paths: set[str]) -> str | None:
    """`./x` as a file: itself, with an extension, or the folder's index file."""
    base = posixpath.normpath(base)
    if base in paths:
        return base
    stem = re.sub(r"\.(js|jsx|mjs|cjs)$", "", base)   # TS code imports './x.js' for x.ts
    for ext in JS_EXTS:
        if stem + ext in paths:
            return stem + ext
    for ext in JS_EXTS:
        if f"{base}/index{ext}" in paths:
            return f"{base}/index{ext}"
    return None


def _js(path: str, spec: str, paths: set[str], aliases: list[tuple[str, str, list[str]]]) -> str | None:
    if spec.startswith("."):
        return _with_exts(posixpath.join(posixpath.dirname(path), spec), paths)
    for folder, pattern, targets in aliases:
        if folder and not path.startswith(folder + "/"):
            continue
        prefix, star, suffix = pattern.partition("*")
        if star and spec.startswith(prefix) and spec.endswith(suffix) and len(spec) >= len(prefix) + len(suffix):
            middle = spec[len(prefix):len(spec) - len(suffix)]
        elif not star and spec == pattern:
            middle = ""
        else:
            continue
        for t in targets:
            hit = _with_exts(posixpath.join(folder, t.replace("*", middle)), paths)
            if hit:
                return hit
    return None


def _js_aliases(repo, paths: set[str]) -> list[tuple[str, str, list[str]]]:
    """(folder of the config, pattern, targets relative to that folder) from every tsconfig/jsconfig,
    the deepest config first; `baseUrl` alone makes bare specifiers resolve under it."""
    out = []
    configs = [p for p in paths if "sconfig" in p and p.endswith(".json")
               and p.rsplit("/", 1)[-1].startswith(("tsconfig", "jsconfig"))]
    for p in sorted(configs, key=lambda x: (-x.count("/"), x)):
        opts = _json_loose(read_text(repo, p) or "").get("compilerOptions") or {}
        if not isinstance(opts, dict):
            continue
        folder = posixpath.dirname(p)
        base = posixpath.normpath(posixpath.join(folder, str(opts.get("baseUrl") or ".")))
        base = "" if base == "." else base
        for pattern, targets in sorted((opts.get("paths") or {}).items()):
            if isinstance(targets, list):
                out.append((folder, pattern, [posixpath.relpath(posixpath.join(base, str(t)), folder or ".")
                                              if folder else posixpath.join(base, str(t)) for t in targets]))
        if opts.get("baseUrl"):
            out.append((folder, "*", [posixpath.relpath(posixpath.join(base, "*"), folder or ".") if folder
                                      else posixpath.join(base, "*")]))
    return out


_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)


def _json_loose(text: str) -> dict:
    """tsconfig files allow comments and trailing commas; strip them (outside strings) and parse. One
    regular expression pass: a monorepo has a tsconfig per package, and every update reads them all."""
    text = _STRING_OR_COMMENT.sub(lambda m: m[0] if m[0][0] == '"' else "", text)
    try:
        data = json.loads(re.sub(r",(\s*[}\]])", r"\1", text))
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


# ---------------------------------------------------------------- Go

def _go_modules(repo, paths: set[str]) -> list[tuple[str, str]]:
    """(module path, its folder) for every go.mod, the longest module path first."""
    mods = []
    for p in paths:
        if p == "go.mod" or p.endswith("/go.mod"):
            m = re.search(r"^module\s+(\S+)", read_text(repo, p) or "", re.MULTILINE)
            if m:
                mods.append((m.group(1).strip('"'), posixpath.dirname(p)))
    return sorted(mods, key=lambda m: (-len(m[0]), m[0]))


def _go(spec: str, mods: list[tuple[str, str]], dirs: dict[str, list[str]]) -> list[str]:
    """A package inside a module of this repository: every non-test .go file of its folder."""
    for mod, folder in mods:
        if spec == mod or spec.startswith(mod + "/"):
            d = posixpath.join(folder, spec[len(mod) + 1:]) if spec != mod else folder
            return [p for p in dirs.get(posixpath.normpath(d) if d else "", [])
                    if p.endswith(".go") and not p.endswith("_test.go")]
    return []


# ---------------------------------------------------------------- Rust

def _rust(path: str, spec: str, paths: set[str]) -> str | None:
    folder = posixpath.dirname(path)
    name = path.rsplit("/", 1)[-1]
    if spec.startswith("mod "):
        here = folder if name in ("mod.rs", "lib.rs", "main.rs") else posixpath.join(folder, name[:-3])
        mod = spec[4:]
        for cand in (f"{here}/{mod}.rs", f"{here}/{mod}/mod.rs"):
            cand = cand.lstrip("/")
            if cand in paths:
                return cand
        return None
    if not spec.startswith(("crate::", "super::", "self::")):
        return None
    src = folder
    while src and posixpath.basename(src) != "src":
        src = posixpath.dirname(src)
    parts = spec.split("::")
    head, rest = parts[0], parts[1:]
    base = src if head == "crate" else (posixpath.dirname(folder) if head == "super" else folder)
    for k in range(len(rest), 0, -1):
        stem = "/".join([base] + rest[:k]) if base else "/".join(rest[:k])
        for cand in (stem + ".rs", stem + "/mod.rs"):
            if cand in paths:
                return cand
    return None


# ---------------------------------------------------------------- Java

_JVM_EXTS = (".java", ".kt")


def _java(spec: str, by_class: dict[str, list[str]], dirs: dict[str, list[str]]) -> list[str]:
    """The files a Java or Kotlin import names: its class's file under the package's folders, or every file of
    a package imported with `*`. (A Kotlin import of a top-level function names no file for it: none.)"""
    parts = spec.split(".")
    if parts[-1] == "*":
        tail = "/".join(parts[:-1])
        return [p for d, ps in dirs.items() if d == tail or d.endswith("/" + tail) for p in ps if p.endswith(_JVM_EXTS)]
    for k in range(len(parts), 0, -1):   # a static import names a member after the class
        stem = "/".join(parts[:k])
        hits = [p for p in by_class.get(parts[k - 1], [])
                if p.rsplit(".", 1)[0] == stem or p.rsplit(".", 1)[0].endswith("/" + stem)]
        if hits:
            return hits
    return []
