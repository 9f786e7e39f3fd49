"""The index's records of one file's code, shared by the index and every language reader.

Plain classes, not dataclasses: look-ups import this module on every run, and `dataclasses` costs more
start-up than the rest of their imports.
"""
from __future__ import annotations

import re


class Definition:
    """One definition: `kind` is function, method, class, interface, type, enum, constant, component,
    struct, trait ...; lines are 1-based and inclusive; `parent` is the enclosing class or type, dotted,
    or "". Extractors set `end` late."""

    __slots__ = ("name", "kind", "start", "end", "signature", "parent")

    def __init__(self, name: str, kind: str, start: int, end: int, signature: str, parent: str):
        self.name, self.kind, self.start, self.end, self.signature, self.parent = name, kind, start, end, signature, parent

    def row(self) -> list:
        return [self.name, self.kind, self.start, self.end, self.signature, self.parent]

    def __eq__(self, other) -> bool:
        return isinstance(other, Definition) and self.row() == other.row()

    __hash__ = None   # mutable

    def __repr__(self) -> str:
        return f"Definition({', '.join(map(repr, self.row()))})"


class Parsed:
    """What an extractor found in one file's text."""

    __slots__ = ("defs", "imports", "idents", "note", "keys")

    def __init__(self, defs: list[Definition], imports: list[str], idents: list[str], note: str = ""):
        self.defs, self.imports, self.idents, self.note, self.keys = defs, imports, idents, note, []


_IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"
"""Compiled by `re`'s cache at the first file parsed: a look-up parses none."""


def identifiers(text: str) -> list[str]:
    """Sorted unique identifier-shaped words of `text`: the fallback when nothing better is known."""
    return sorted(set(re.findall(_IDENT, text)))
