"""Resolving import specifiers to repository files, with the whole file list in view.

Python: dotted modules from the repository root and from each package root (the first folder up
without `__init__.py`), and relative imports. JS/TS: relative paths with extensions and index files,
and `tsconfig.json`/`jsconfig.json` `baseUrl` and `paths` aliases. Go: packages inside the module
named in `go.mod`. Rust: `mod x;` and `crate::` paths. Java: fully qualified class names.
"""
from __future__ import annotations

import posixpath


def resolve_all(repo, entries: dict) -> None:
    """Set `resolved` on every entry from its raw `imports`."""
    py = _python_modules(entries)
    for path, e in entries.items():
        if not e.imports:
            e.resolved = []
            continue
        found: set[str] = set()
        if e.lang == "python":
            for spec in e.imports:
                hit = _python(path, spec, py)
                if hit:
                    found.add(hit)
        found.discard(path)
        e.resolved = sorted(found)


# ---------------------------------------------------------------- Python

def _python_modules(entries: dict) -> dict[str, str]:
    """Dotted module name -> file, from the root and from every package root."""
    dirs_with_init = {p.rsplit("/", 1)[0] if "/" in p else "" for p in entries if p.endswith("/__init__.py")}
    mods: dict[str, str] = {}
    for p in entries:
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
