"""Python files through `ast`: definitions with line ranges, imports as dotted specifiers, identifiers.

A file `ast` cannot parse (a syntax error, a Python 2 file) falls back to line patterns, so it is still
indexed, only less precisely.
"""
from __future__ import annotations

import ast
import re
import warnings

from rt.core import lines as split_lines
from rt.index.model import Definition, Parsed, identifiers

_DEF_LINE = re.compile(r"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)")
_DEFS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})
_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+([\w, \t]+)|import[ \t]+([\w., \t]+))", re.MULTILINE)


def extract(text: str) -> Parsed:
    text = text.removeprefix("\ufeff")   # a UTF-8 byte order mark: Python reads past it, `ast.parse` of text does not
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences in old code are not our business
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _fallback(text)
    lines = split_lines(text)
    defs: list[Definition] = []
    _defs(tree.body, "", lines, defs)
    idents: set[str] = set()
    imports: list[str] = []
    todo = [tree]   # every node, in no particular order (both results are sets): faster than `ast.walk`
    pop, push, node_type = todo.pop, todo.extend, ast.AST
    while todo:
        node = pop()
        cls = type(node)
        if cls is ast.Name:
            idents.add(node.id)
        elif cls is ast.Attribute:
            idents.add(node.attr)
        elif cls in _DEFS:
            idents.add(node.name)
        elif cls is ast.arg or cls is ast.keyword and node.arg:
            idents.add(node.arg)
        elif cls is ast.Import:
            for a in node.names:
                imports.append(a.name)
                idents.update(a.name.split("."))
                if a.asname:
                    idents.add(a.asname)
        elif cls is ast.ImportFrom:
            base = "." * node.level + (node.module or "")
            for a in node.names:
                if a.name == "*":
                    imports.append(base)
                else:
                    sep = "" if base.endswith(".") or not base else "."
                    imports.append(f"{base}{sep}{a.name}")
                    idents.add(a.name)
                if a.asname:
                    idents.add(a.asname)
            if node.module:
                idents.update(node.module.split("."))
        for field in getattr(node, "_fields", ()):   # a list's items may be names (`global`), None (`**` in a dict)
            value = getattr(node, field, None)
            if type(value) is list:
                push(value)
            elif isinstance(value, node_type):
                todo.append(value)
    return Parsed(defs, sorted(set(imports)), sorted(idents))


def _defs(body: list, parent: str, lines: list[str], out: list[Definition]) -> None:
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            is_class = isinstance(node, ast.ClassDef)
            kind = "class" if is_class else ("method" if parent and parent[0] == "C" else "function")
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            out.append(Definition(node.name, kind, start, node.end_lineno or node.lineno,
                                  _signature(lines, node.lineno), parent[2:]))
            scope = ("C:" if is_class else "F:") + (f"{parent[2:]}." if parent else "") + node.name
            _defs(node.body, scope, lines, out)
        elif not parent and isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                if isinstance(t, ast.Name) and t.id.isupper() and len(t.id) > 1:
                    out.append(Definition(t.id, "constant", node.lineno, node.end_lineno or node.lineno,
                                          _signature(lines, node.lineno), ""))
        elif isinstance(node, (ast.If, ast.Try)) and not parent:
            # definitions under `if TYPE_CHECKING:` or `try: import ... except` are still module level
            _defs(node.body, parent, lines, out)
            _defs(getattr(node, "orelse", []), parent, lines, out)


def _signature(lines: list[str], lineno: int) -> str:
    return lines[lineno - 1].strip()[:200] if 0 < lineno <= len(lines) else ""


def _fallback(text: str) -> Parsed:
    """Definitions by line pattern, each ending before the next line indented no deeper than it."""
    lines = split_lines(text)
    defs: list[Definition] = []
    open_defs: list[tuple[int, Definition]] = []   # (indent, definition) of enclosing blocks
    last_code = 0
    for i, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        while open_defs and indent <= open_defs[-1][0]:
            open_defs.pop()[1].end = last_code
        m = _DEF_LINE.match(line)
        if m:
            parent = open_defs[-1][1] if open_defs else None
            kind = "class" if m.group(2) == "class" else ("method" if parent and parent.kind == "class" else "function")
            qual = (f"{parent.parent}.{parent.name}" if parent and parent.parent else parent.name) if parent else ""
            d = Definition(m.group(3), kind, i, i, stripped[:200], qual)
            defs.append(d)
            open_defs.append((indent, d))
        last_code = i
    for _, d in open_defs:
        d.end = last_code
    imports: set[str] = set()
    for m in _IMPORT_LINE.finditer(text):
        if m.group(1):
            base = m.group(1)
            for name in m.group(2).replace(" ", "").replace("\t", "").split(","):
                if name:
                    imports.add(base + name if base.endswith(".") else f"{base}.{name}")
        else:
            for name in m.group(3).split(","):
                name = name.strip().split()[0] if name.strip() else ""
                if name:
                    imports.add(name)
    return Parsed(defs, sorted(imports), identifiers(text), note="syntax-error")
