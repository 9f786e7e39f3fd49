"""Definitions in the languages rt has no reader of (C, C++, C#, Ruby, PHP, shell, Lua ... and parser
generators' grammars), from Universal Ctags when it is installed: without it, their files give words only.

One `ctags` process reads a batch of files (a build's chunk; for a cold repository's partial index, every file in
its languages at once), named on its standard input, each as `./path` so
that no name is taken for an option. `--options=NONE` keeps the repository's own `.ctags.d/` and the user's
out: what a file defines is the same on every machine with the same ctags. `RT_CTAGS=0` turns it off.
"""
from __future__ import annotations

import json
import os
import re

from rt.core import lines as split_lines, run
from rt.index.model import Definition

CTAGS_NAMES = {"c": "C", "cpp": "C++", "csharp": "C#", "ruby": "Ruby", "php": "PHP", "shell": "Sh", "lua": "Lua",
               "elixir": "Elixir", "erlang": "Erlang", "haskell": "Haskell", "ocaml": "OCaml", "fsharp": "FSharp",
               "clojure": "Clojure", "zig": "Zig", "nim": "Nim", "julia": "Julia", "r": "R", "perl": "Perl",
               "objective-c": "ObjectiveC", "groovy": "Groovy", "powershell": "PowerShell", "elm": "Elm",
               "solidity": "Solidity", "grammar": "YACC"}
"""rt's name of each language whose definitions come from ctags (it knows most; a file it does not know gives
none), and ctags' name of it."""
TAGGED = frozenset(CTAGS_NAMES)

KINDS = {"function": "function", "method": "method", "singletonMethod": "method", "subroutine": "function",
         "class": "class", "struct": "struct", "union": "struct", "enum": "enum", "interface": "interface",
         "trait": "trait", "protocol": "interface", "object": "class", "implementation": "class",
         "category": "class", "module": "module", "namespace": "namespace", "package": "module",
         "typedef": "type", "type": "type", "typealias": "type", "record": "type", "property": "property",
         "delegate": "type", "event": "property", "macro": "macro", "constant": "constant",
         "define": "constant"}
"""ctags' kinds kept, as rt names them; the rest (members, fields, variables, enumerators, aliases, heredocs,
a C file's includes) are no place a task's change starts."""

_LANG_KINDS = {("elixir", "delegate"): "function"}
"""A kind one language means otherwise: Elixir's `defdelegate` is a function (C#'s delegate a type)."""

RULE = "label"
"""ctags' kind of a YACC grammar's rule: kept for grammars only (elsewhere a label is a `goto` target)."""

TIMEOUT = 60.0
"""Seconds one batch may take; past them its files give no definitions (the build goes on)."""


_SPACES = frozenset({"namespace", "package"})
"""ctags' kinds of a name that only holds others: left out of its definitions' parents."""

_TYPES = frozenset({"class", "struct", "interface", "trait", "enum", "union"})
"""ctags' kinds of a type: a function inside one is a method (laravel's `function PendingProcess.quietly`)."""

_BODIES = frozenset({"method", "singletonMethod", "function", "subroutine"})
"""ctags' kinds of a code body: a constant it finds inside one is a use (a class compared, a value read)."""

_found: str | None = None
_probed = False


def program() -> str | None:
    """The Universal Ctags to run (with JSON output), found once per process; None when there is none."""
    global _found, _probed
    if not _probed:
        _probed = True
        import shutil
        exe = None if os.environ.get("RT_CTAGS", "") == "0" else shutil.which("ctags")
        if exe:
            import subprocess
            try:
                out = run([exe, "--version"], ".", timeout=10).stdout
            except (OSError, subprocess.TimeoutExpired):
                out = b""
            _found = exe if out.startswith(b"Universal Ctags") and b"+json" in out else None
    return _found


def unread(langs) -> list[str]:
    """Those of rt's `langs` (of TAGGED) that the installed ctags has no parser for, or all of them without ctags:
    their files give words only. Asks ctags once (`--list-languages`): for `rt index`'s report, not for a build."""
    exe = program()
    if exe is None:
        return sorted(langs)
    import subprocess
    try:
        listed = run([exe, "--list-languages"], ".", timeout=10).stdout.decode("utf-8", "replace").splitlines()
    except (OSError, subprocess.TimeoutExpired):
        return []
    known = {line.split()[0] for line in listed if line.strip() and "[disabled]" not in line}
    return sorted(lang for lang in langs if CTAGS_NAMES.get(lang) not in known)


def definitions(root: str, files: list[tuple[str, str, str]]) -> dict[str, list[Definition]]:
    """path -> its definitions, for each of `files` (path, language, text) ctags can read; {} without ctags or
    when it fails. Sorted by line, as the other readers give them."""
    exe = program()
    texts = {p: (lang, t) for p, lang, t in files if "\n" not in p and _counted_alike(t)}
    if exe is None or not texts:
        return {}
    import subprocess
    argv = [exe, "--options=NONE", "--output-format=json", "--fields=+ne", "--fields=-P", "--sort=no", "-f", "-", "-L", "-"]
    listed = "".join(f"./{p}\n" for p in texts).encode("utf-8", "surrogateescape")
    try:
        proc = run(argv, root, timeout=TIMEOUT, input=listed)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    tags = []
    spaces: dict[str, set[str]] = {}   # path -> the full names of its namespaces and packages
    for raw in proc.stdout.splitlines():
        try:
            tag = json.loads(raw)
        except ValueError:
            continue
        path = str(tag.get("path", ""))[2:]
        if path in texts and tag.get("_type") == "tag" and isinstance(tag.get("name"), str):
            tags.append((path, tag))
            if tag.get("kind") in _SPACES:   # its full name, in C++'s, PHP's and the others' forms
                scope = str(tag.get("scope", ""))
                spaces.setdefault(path, set()).update({f"{scope}{sep}{tag['name']}" for sep in ("::", ".", "\\")}
                                                      if scope else {tag["name"]})
    found: dict[str, list[Definition]] = {}
    lines: dict[str, list[str]] = {}
    for path, tag in tags:
        lang, text = texts[path]
        kind = "rule" if tag.get("kind") == RULE and lang == "grammar" else \
            _LANG_KINDS.get((lang, tag.get("kind"))) or KINDS.get(tag.get("kind", ""))
        if kind == "function" and tag.get("scopeKind") in _TYPES:   # PHP's and C++'s functions in a class
            kind = "method"
        start, name = tag.get("line"), tag.get("name")
        if kind is None or type(start) is not int or not name \
                or kind == "constant" and tag.get("scopeKind") in _BODIES:   # Ruby's `if Array === body` in a method
            continue
        src = lines.get(path)
        if src is None:
            src = lines[path] = split_lines(text)
        if not 0 < start <= len(src):
            continue
        if lang == "csharp" and kind == "property" and src[start - 1].lstrip().startswith("where "):
            head = _constrained(src, start)   # ctags takes C#'s `where T : IRequest` before a generic method's
            if head is None:                  # body for a property, and gives no method (MediatR's `Send`)
                continue
            start, name, kind = *head, "method"
        end = tag.get("end")
        end = min(max(end, start), len(src)) if type(end) is int else 0   # 0: ctags gives none (see below)
        parent = _parent(str(tag.get("scope", "")), spaces.get(path, ()))
        if lang == "lua":   # `function M.step`, `function M:new`: ctags names them whole
            head, dot, leaf = name.replace(":", ".").rpartition(".")
            if dot and head and leaf:
                name, parent = leaf, f"{parent}.{head}" if parent else head
        found.setdefault(path, []).append(Definition(name, kind, start, end, src[start - 1].strip()[:200], parent))
    for path, defs in found.items():
        unique = {tuple(d.row()): d for d in defs}   # a name ctags gives twice (a C prototype in extras ...)
        defs[:] = sorted(unique.values(), key=lambda d: (d.start, -d.end, d.name, d.kind))
        if texts[path][0] == "ruby":
            _renest(defs, lines[path])
        _ends(defs, lines[path])
    return found


def _constrained(src: list[str], where: int) -> tuple[int, str] | None:
    """The line and the name of the generic method whose constraint (`where T : ...`) is line `where`: the nearest
    line above holding `(`, its name the last before it (`Task<R> Send<R>(`: `Send`)."""
    for k in range(where - 2, max(-1, where - 9), -1):
        line = src[k]
        if "(" in line:
            head = line[:line.index("(")].rstrip()
            while head.endswith(">") and "<" in head:   # the method's own type parameters
                head = head[:head.rindex("<")].rstrip()
            m = re.search(r"(\w+)$", head)
            return (k + 1, m.group(1)) if m else None
    return None


def _counted_alike(text: str) -> bool:
    """Whether ctags numbers `text`'s lines as rt does (`core.lines`): it ends lines at "\n" only (a "\r\n" counts
    once either way), so a file holding a lone "\r" gives no definitions."""
    return text.count("\r") == text.count("\r\n")


def _parent(scope: str, spaces) -> str:
    """A definition's parent as rt's readers give it, dotted: its enclosing class or type, the namespace or
    package holding it left out (C#'s `Newtonsoft.Json.JsonConvert` is `JsonConvert`, as a Java class's package)."""
    held = max((s for s in spaces if scope == s or scope.startswith((s + "::", s + ".", s + "\\"))), key=len, default="")
    return scope[len(held):].lstrip(":.\\").replace("::", ".").replace("\\", ".")   # C++'s `a::b`, PHP's `a\\b`


def _ends(defs: list[Definition], src: list[str]) -> None:
    """Where ctags gives no end (shell, Lua and Elixir functions, a grammar's rules, PHP's classes and functions), a
    definition ends where its indentation closes (at its `end`, `}` or `;` back at its first line's indentation,
    or before another line there), and before the next definition not inside it starts, blank lines left out; a
    constant, a macro or a property is its first line. (phoenix's `defp put_session` ran 746 lines to the file's
    end: its test blocks are no definitions.)"""
    for i, d in enumerate(defs):
        if d.end:
            continue
        if d.kind in ("constant", "macro", "property"):
            d.end = d.start
            continue
        inner = f"{d.parent}.{d.name}" if d.parent else d.name
        d.end = _closing(src, d.start, next((n.start for n in defs[i + 1:] if n.start > d.start and n.parent != inner
                                             and not n.parent.startswith(inner + ".")), len(src) + 1) - 1)


def _closing(src: list[str], start: int, end: int) -> int:
    """The last line, at most `end`, of a definition starting at line `start`, by its indentation, blank lines left
    out."""
    indent = _indent(src[start - 1])
    for k in range(start, end):   # src[k] is line k + 1
        text = src[k].lstrip()
        if text and _indent(src[k]) <= indent and not text.startswith(_OPENERS):
            end = k + 1 if _indent(src[k]) == indent and _CLOSER.match(text) else k   # its own closer
            break
    while end > start and not src[end - 1].strip():
        end -= 1
    return end


def _renest(defs: list[Definition], src: list[str]) -> None:
    """Ruby: ctags loses the nesting at an `if` or `case` written as a value (`self.time = if ...`: jekyll's
    `class Site` ended at its `reset` method's `end`, and the 40 methods after it lost their class). Its classes and
    modules end where their indentation closes, a definition whose `end` ctags puts at another indentation too,
    and each definition's parent is the classes and modules holding it."""
    for d in defs:
        if d.end and (d.kind in ("class", "module") or _indent(src[d.end - 1]) != _indent(src[d.start - 1])):
            d.end = _closing(src, d.start, len(src))
    holders = [d for d in defs if d.kind in ("class", "module")]
    for d in defs:
        d.parent = ".".join(h.name for h in holders if h is not d and h.start < d.start <= h.end)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


_OPENERS = ("{", "(", ":", "|")
"""A line at a definition's indentation that goes on with its head: PHP's `{` on its own line, a grammar rule's
alternatives."""
_CLOSER = re.compile(r"[})\];]|(?:end|fi|done|esac)\b")
"""A line at a definition's indentation that closes it, and is its last."""
