"""JavaScript/TypeScript (with JSX/TSX), Go, Rust, Java, Kotlin, Swift, Scala and Dart: a careful tokenizer, then definitions, imports
and identifiers from the tokens.

The tokenizer knows each language's strings (JS template literals with `${...}` nesting, Go raw strings,
Rust raw strings and lifetimes, Java text blocks), comments, JS regular expression literals and JSX
elements, so a brace, quote or apostrophe in any of those never throws the nesting off. Input it cannot
make sense of falls back to plain identifiers instead of failing.
"""
from __future__ import annotations

import re
from functools import cache
from itertools import accumulate, compress, repeat
from operator import itemgetter

from rt.core import lines as split_lines
from rt.index.model import Definition, Parsed, identifiers

_SKIP = r"(?:\s+|//[^\n]*|/\*.*?(?:\*/|\Z))*"
"""Whitespace and comments before a token, consumed by the same match as the token."""
_TAIL = r"""
|(?P<id>[A-Za-z_$\u00a0-\uffff][\w$\u00a0-\uffff]*)
|(?P<num>\.?\d[\w.]*)
|(?P<dq>"(?:[^"\\\n]|\\.)*"?)
|(?P<p>=>|===|!==|==|!=|&&|\|\||\?\?|\?\.|\.\.\.|<=|>=|::|->|:=|\S)
|(?P<end>\Z))
"""
_FAMILY_TOKENS = {
    "js": r"(?P<bt>`)|(?P<sq>'(?:[^'\\\n]|\\.)*'?)",
    "go": r"(?P<raw>`[^`]*`?)|(?P<sq>'(?:[^'\\\n]|\\.)*'?)",
    "rust": r"""(?P<raw>b?r(?P<h>\#*)".*?"(?P=h))|(?P<bs>b?"(?:[^"\\]|\\.)*"?)
        |(?P<life>'[A-Za-z_]\w*(?!'))|(?P<sq>b?'(?:[^'\\\n]|\\.[^'\n]{0,8})'?)""",
    "java": r'(?P<tb>"""(?:.*?)(?:"""|\Z))|(?P<sq>\'(?:[^\'\\\n]|\\.)*\'?)',
    "kotlin": r'(?P<tb>"""(?:.*?)(?:"""|\Z))|(?P<bq>`[^`\n]*`)|(?P<sq>\'(?:[^\'\\\n]|\\.)*\'?)',
    "swift": r'(?P<tb>\#*"""(?:.*?)(?:"""\#*|\Z))|(?P<raw>\#+"[^\n]*?"\#+)|(?P<bq>`[^`\n]*`)',
    "dart": r"(?P<tb>'''(?:.*?)(?:'''|\Z)|\"\"\"(?:.*?)(?:\"\"\"|\Z))|(?P<sq>'(?:[^'\\\n]|\\.)*'?)",
}
"""The tokens only one family has (strings, raw strings, lifetimes), tried before the shared `_TAIL`."""
_FAMILY_TOKENS["scala"] = _FAMILY_TOKENS["kotlin"]   # the same strings and backticked names


@cache
def _master(family: str) -> re.Pattern:
    """The one tokenizing pattern of a family, compiled on first use: each takes tens of milliseconds
    to compile (the identifier classes span the whole BMP), and an edit touches one family at most."""
    return re.compile(_SKIP + "(?:" + _FAMILY_TOKENS[family] + _TAIL, re.DOTALL | re.VERBOSE)


_STRINGS = {"dq", "sq", "raw", "bs", "tb"}
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {"=>", "&&", "||", "??", "==", "===", "!=", "!==", "<=", ">=",
                                                "return", "typeof", "case", "do", "else", "in", "of", "new",
                                                "delete", "void", "throw", "yield", "await", "instanceof"}
_JSX_BEFORE = set("(,=:[!&|?{};") | {"=>", "&&", "||", "??", "return", "yield", "default", None}
KEYWORDS = frozenset([
    "if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue", "return",
    "function", "class", "const", "let", "var", "new", "delete", "typeof", "instanceof", "in", "of", "try",
    "catch", "finally", "throw", "this", "super", "import", "export", "from", "as", "async", "await", "yield",
    "extends", "implements", "interface", "type", "enum", "namespace", "module", "declare", "public",
    "private", "protected", "static", "readonly", "abstract", "override", "get", "set", "void", "null",
    "undefined", "true", "false", "func", "package", "go", "defer", "chan", "map", "struct", "select",
    "range", "fallthrough", "goto", "fn", "impl", "trait", "pub", "mod", "use", "crate", "self", "Self",
    "mut", "ref", "where", "loop", "match", "move", "unsafe", "dyn", "static", "extern", "final",
    "synchronized", "native", "transient", "volatile", "throws", "record", "sealed", "permits", "int", "long",
    "short", "byte", "char", "boolean", "float", "double"
])
_PRIMITIVES = " int long short byte char boolean float double"
RESERVED = {family: KEYWORDS & frozenset((words + _PRIMITIVES).split()) for family, words in {
    "js": "if else for while do switch case default break continue return function class const let var new delete "
          "typeof instanceof in try catch finally throw this super import export await yield extends implements "
          "interface enum package public private protected static void null undefined true false",
    "go": "break case chan const continue default defer else fallthrough for func go goto if import interface map "
          "package range return select struct switch type var true false",
    "rust": "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match "
            "mod move mut pub ref return self Self static struct super trait true type unsafe use where while",
    "java": "abstract break case catch class const continue default do else enum extends final finally for goto if "
            "implements import instanceof interface native new package private protected public return static super "
            "switch synchronized this throw throws transient try void volatile while true false null var yield sealed "
            "permits",
    "kotlin": "as break class continue do else false for if in interface null package return super this throw true "
              "try typeof var while public private protected abstract override final const enum import",
    "swift": "as break case catch class continue default defer do else enum false for func if import in let private "
             "public return self Self static struct super switch throw throws true try var where while",
    "scala": "abstract case catch class do else extends false final finally for if import match new null override "
             "package private protected return sealed super this throw true try type var while yield",
    "dart": "abstract as await break case catch class const continue default do else enum export extends false final "
            "finally for if implements import in interface new null return static super switch this throw true try "
            "var void while yield",
}.items()}
"""The words of KEYWORDS each family reserves, left out of its files' identifiers. The others name functions and
methods there, which `rt refs` must find: `new` in Rust, Go and Kotlin, `ref`, `get`, `map`, `match` and `type` in
JavaScript."""
_MODIFIERS = frozenset([
    "export", "default", "async", "static", "public", "private", "protected", "readonly", "abstract",
    "override", "get", "set", "declare", "pub", "unsafe", "extern", "final", "synchronized", "native", "const"
])


class _NotJsx(Exception):
    pass


class Tokens:
    """The token list of one file: (kind, text, offset); kind is id, str, text, num or p."""

    def __init__(self, text: str, family: str, jsx: bool):
        self.text, self.rx, self.family, self.jsx = text, _master(family), family, jsx
        self.out: list[tuple[str, str, int]] = []
        self.code(0, stop=False)

    def prev(self):
        return self.out[-1][1] if self.out else None

    def code(self, pos: int, stop: bool) -> int:
        """Tokens from `pos`; with `stop`, up to and past the `}` that closes an open `${` or `{`."""
        text, rx, out, js, depth = self.text, self.rx, self.out, self.family == "js", 0
        append, ident, punct = out.append, rx.groupindex["id"], rx.groupindex["p"]
        while True:
            # the pattern matches at every position (any other character is a `p` token, the end `end`),
            # so `finditer` gives the tokens one after another, as `match` from each end would, in C;
            # a token that the pattern cannot end (template, regex literal, JSX) starts it again after it.
            # Identifiers and punctuation, most of the tokens, take the short ways first.
            for m in rx.finditer(text, pos):
                group = m.lastindex   # by number: a name costs a look-up in the pattern's table
                if group == ident:
                    append(("id", m[group], m.start(group)))
                    continue
                if group == punct:
                    val = m[group]
                    if val == "{":
                        depth += 1
                        append(("p", val, m.start(group)))
                        continue
                    if val == "}":
                        if depth == 0 and stop:
                            return m.end()
                        depth -= 1
                        append(("p", val, m.start(group)))
                        continue
                    if not js or (val != "/" and val != "<"):
                        append(("p", val, m.start(group)))
                        continue
                kind = m.lastgroup
                if kind == "end":
                    return m.end()
                val, start = m.group(kind), m.start(kind)
                if js:
                    if kind == "bt":
                        pos = self.template(m.end())
                        break
                    if val == "/" and self._regex_ok():
                        end = self.regex(start)
                        if end:
                            append(("str", text[start:end], start))
                            pos = end
                            break
                    if val == "<" and self.jsx and self.prev() in _JSX_BEFORE and re.match(r"<[A-Za-z>]", text[start:start + 2]):
                        mark = len(out)
                        try:
                            pos = self.element(start)
                            break
                        except _NotJsx:
                            del out[mark:]
                if kind in _STRINGS:
                    append(("str", val, start))
                elif kind != "life":
                    append((kind, val, start))

    def _regex_ok(self) -> bool:
        if not self.out:
            return True
        kind, val, _ = self.out[-1]
        return (kind == "p" and val in _REGEX_BEFORE and val not in (")", "]", "}")) or (kind == "id" and val in _REGEX_BEFORE)

    def regex(self, pos: int) -> int | None:
        text, i, in_class = self.text, pos + 1, False
        while i < len(text):
            c = text[i]
            if c == "\n":
                return None
            if c == "\\":
                i += 2
                continue
            if c == "[":
                in_class = True
            elif c == "]":
                in_class = False
            elif c == "/" and not in_class:
                i += 1
                while i < len(text) and (text[i].isalnum()):
                    i += 1
                return i
            i += 1
        return None

    def template(self, pos: int) -> int:
        text, start = self.text, pos
        while pos < len(text):
            c = text[pos]
            if c == "\\":
                pos += 2
            elif c == "`":
                self.out.append(("str", text[start:pos], start))
                return pos + 1
            elif c == "$" and text.startswith("${", pos):
                self.out.append(("str", text[start:pos], start))
                pos = self.code(pos + 2, stop=True)
                start = pos
            else:
                pos += 1
        raise ValueError("unterminated template literal")

    _TAG = re.compile(r"[A-Za-z_$][\w$.:-]*")
    _ATTR = re.compile(r"\s*([A-Za-z_$][\w$:-]*)")

    def element(self, pos: int) -> int:
        """One JSX element from its `<` to past its end; raises _NotJsx when it is not one (a comparison, generics)."""
        text = self.text
        pos += 1
        if text.startswith(">", pos):
            return self.children(pos + 1)
        m = self._TAG.match(text, pos)
        if not m:
            raise _NotJsx
        for part in re.split(r"[.:-]", m.group()):
            if part:
                self.out.append(("id", part, m.start()))
        pos = m.end()
        while True:
            while pos < len(text) and text[pos].isspace():
                pos += 1
            if text.startswith("/>", pos):
                return pos + 2
            if text.startswith(">", pos):
                return self.children(pos + 1)
            if text.startswith("{", pos):
                pos = self.code(pos + 1, stop=True)
                continue
            a = self._ATTR.match(text, pos)
            if not a:
                raise _NotJsx
            self.out.append(("id", a.group(1), a.start(1)))
            pos = a.end()
            if text.startswith("=", pos):
                pos += 1
                q = text[pos:pos + 1]
                if q in ("'", '"'):
                    end = text.find(q, pos + 1)
                    if end < 0:
                        raise _NotJsx
                    self.out.append(("str", text[pos:end + 1], pos))
                    pos = end + 1
                elif q == "{":
                    pos = self.code(pos + 1, stop=True)
                else:
                    raise _NotJsx

    def children(self, pos: int) -> int:
        text, start = self.text, pos
        while pos < len(text):
            c = text[pos]
            if c in "<{":
                if text[start:pos].strip():
                    self.out.append(("text", text[start:pos], start))
                if c == "{":
                    pos = self.code(pos + 1, stop=True)
                elif text.startswith("</", pos):
                    end = text.find(">", pos)
                    if end < 0:
                        raise _NotJsx
                    return end + 1
                else:
                    pos = self.element(pos)
                start = pos
            else:
                pos += 1
        raise _NotJsx


# ---------------------------------------------------------------- definitions

_TRIGGERS = {
    "js": frozenset({"function", "class", "interface", "enum", "namespace", "module", "type", "const", "let", "var"}),
    "go": frozenset({"func", "type", "const", "var"}),
    "rust": frozenset({"fn", "struct", "enum", "trait", "union", "mod", "const", "static", "type", "macro_rules", "impl"}),
    "java": frozenset({"class", "interface", "enum", "record"}),
    "kotlin": frozenset({"fun", "class", "interface", "object", "typealias", "val", "var"}),
    "swift": frozenset({"func", "class", "struct", "enum", "protocol", "actor", "extension", "init", "typealias",
                        "var"}),
    "scala": frozenset({"def", "class", "object", "trait", "enum", "type", "val", "var"}),
    "dart": frozenset({"class", "enum", "mixin", "extension", "typedef"}),
}
"""Words that can open a definition outside a type body; other identifiers skip the header checks."""
_TYPE_KINDS = frozenset({"class", "interface", "trait", "impl", "record", "enum", "struct", "object", "extension"})
_DECLARES = {
    "kotlin": frozenset({"fun", "class", "interface", "object", "typealias", "val", "var", "init", "constructor",
                         "private", "public", "internal", "protected", "override", "open", "abstract", "data",
                         "enum", "sealed", "inline", "suspend", "const", "lateinit", "companion", "annotation",
                         "@"}),
    "swift": frozenset({"func", "class", "struct", "enum", "protocol", "actor", "extension", "init", "deinit",
                        "typealias", "let", "var", "subscript", "case", "public", "private", "fileprivate",
                        "internal", "open", "static", "final", "override", "mutating", "convenience", "required",
                        "lazy", "@"}),
    "scala": frozenset({"def", "val", "var", "class", "object", "trait", "type", "case", "sealed", "abstract", "final",
                        "implicit", "override", "private", "protected", "lazy", "enum", "given", "extension", "@"}),
}
"""What starts a declaration's line in the families whose statements need no `;`."""
_UNENDED = frozenset(_DECLARES)
"""Those families: a declaration without a body (an abstract `fun`, a bodiless `class`) ends where the next
declaration starts its line."""
_PARENTS = _TYPE_KINDS | {"namespace", "module"}
"""Kinds of definition whose name is its members' parent."""
_SWIFT_TYPES = {"class": "class", "struct": "struct", "enum": "enum", "protocol": "interface", "actor": "class",
                "extension": "extension"}


class _Scope:
    __slots__ = ("d", "depth", "kind")

    def __init__(self, d: Definition | None, kind: str, depth: int):
        self.d, self.kind, self.depth = d, kind, depth


def _family(lang: str) -> str:
    return lang if lang in _FAMILY_TOKENS else "js"


def extract(lang: str, path: str, text: str) -> Parsed:
    """Definitions, imports and identifiers of a file; for `.vue`/`.svelte`, of each of its `<script>` blocks."""
    if lang not in ("vue", "svelte"):
        return _extract(_family(lang), path, text, 0, text)
    blocks = list(re.finditer(r"<script\b([^>]*)>(.*?)</script>", text, re.DOTALL))
    if not blocks:
        return Parsed([], [], identifiers(text))
    parts = [_extract("js", path + (".ts" if re.search(r"""lang=["']ts""", m.group(1)) else ".js"),
                      m.group(2), text.count("\n", 0, m.start(2)), text) for m in blocks]
    return Parsed(sorted((d for p in parts for d in p.defs), key=lambda d: (d.start, d.end)),
                  sorted({i for p in parts for i in p.imports}), sorted({i for p in parts for i in p.idents}),
                  note=next((p.note for p in parts if p.note), ""))


def _extract(family: str, path: str, body: str, offset: int, text: str) -> Parsed:
    """`body` is the code, starting `offset` lines into the file's `text`."""
    try:
        toks = Tokens(body, family, jsx=not path.endswith((".ts", ".mts", ".cts"))).out
    except (ValueError, RecursionError):
        return Parsed([], [], identifiers(body), note="unparsed")
    starts = list(map(itemgetter(2), toks))   # in text order: each token's line counts the newlines since the one before
    lines = list(accumulate(map(body.count, repeat("\n"), [0] + starts[:-1], starts), initial=1 + offset))[1:]
    defs = _Definitions(toks, lines, split_lines(text), family, path).run()
    values = list(map(itemgetter(1), toks))
    idents = set(compress(values, map("id".__eq__, map(itemgetter(0), toks))))
    return Parsed(defs, _imports(toks, values, family), sorted(idents - RESERVED[family]))


class _Definitions:
    """One pass over the tokens with a stack of open brackets; definitions end where their body closes."""

    def __init__(self, toks, lines, src, family, path):
        self.toks, self.lines, self.src, self.family = toks, lines, src, family
        self.jsx_file = path.endswith((".jsx", ".tsx"))
        self.triggers = _TRIGGERS[family]
        self.out: list[Definition] = []

    def sig(self, line: int) -> str:
        return self.src[line - 1].strip()[:200] if 0 < line <= len(self.src) else ""

    def run(self) -> list[Definition]:
        toks, lines, triggers = self.toks, self.lines, self.triggers
        stack: list[_Scope] = [_Scope(None, "file", 0)]
        pending: list[tuple[Definition, int]] = []      # waiting for their `{` body at this depth
        values: list[tuple[Definition, int]] = []       # `const X = ...` until the statement ends
        groups: list[tuple[str, int]] = []              # Go `const (` / `type (` / `var (` groups
        plain: dict[tuple[str, int], _Scope] = {}      # the scopes of plain brackets, by bracket and depth: one each
        typed = False                                   # whether the innermost scope is a type's body
        unended = _DECLARES.get(self.family)
        depth = 0
        for i, ((kind, val, _), line) in enumerate(zip(toks, lines)):
            # a value definition ends at `;`, at a new statement on a new line, or when its scope closes
            while values and values[-1][1] == depth and i > 0 and (
                    (kind == "p" and val == ";") or
                    (lines[i - 1] < line and self._new_statement(i)) or val in ("}", ")", "]") and depth == values[-1][1]):
                d, _ = values.pop()
                d.end = line if val == ";" else lines[i - 1]
            if unended and pending and pending[-1][1] == depth and val in unended and lines[i - 1] < line:
                while pending and pending[-1][1] == depth:
                    d, _ = pending.pop()
                    d.end = max(d.start, lines[i - 1])
            if kind == "p":
                if val in "([{":
                    if val == "{" and pending and pending[-1][1] == depth:
                        d, _ = pending.pop()
                        stack.append(_Scope(d, d.kind, depth + 1))
                        typed = d.kind in _TYPE_KINDS
                    elif val == "(" and groups and groups[-1][1] == -1:
                        groups[-1] = (groups[-1][0], depth + 1)
                        stack.append(_Scope(None, "group", depth + 1))
                        typed = False
                    else:
                        scope = plain.get((val, depth))
                        if scope is None:
                            scope = plain[val, depth] = _Scope(None, "block" if val == "{" else "paren", depth + 1)
                        stack.append(scope)
                        typed = False
                    depth += 1
                elif val in ")]}":
                    if depth > 0:
                        scope = stack.pop()
                        typed = stack[-1].kind in _TYPE_KINDS
                        depth -= 1
                        if scope.d is not None:
                            scope.d.end = line
                        if scope.kind == "group" and groups:
                            groups.pop()
                        for open_defs in (pending, values):   # cut short by the end of their scope
                            while open_defs and open_defs[-1][1] > depth:
                                open_defs.pop()[0].end = lines[i - 1]
                elif val == ";":
                    while pending and pending[-1][1] == depth:   # a declaration without a body
                        d, _ = pending.pop()
                        d.end = line
            elif kind == "id" and (val in triggers or typed or groups or depth == 0 and (
                    self.family == "dart" or self.family == "js" and i + 1 < len(toks) and toks[i + 1][1] == ".")):
                found = self.header(i, stack, depth, groups)
                if found:
                    d, style = found
                    self.out.append(d)
                    (pending if style == "body" else values).append((d, depth))
        for d, _ in values:   # the file's last statement (`export const f = () => {...}`) runs to its last token
            d.end = max(d.end, lines[-1])
        self.out.sort(key=lambda d: (d.start, d.end))
        return self.out

    _STARTERS = frozenset(["export", "import", "const", "let", "var", "function", "class", "interface", "type", "enum", "declare", "namespace", "module", "abstract", "async", "public", "private", "protected", "static", "func", "pub", "fn", "struct", "impl", "trait", "mod", "use", "package", "return", "if", "for", "while"])

    def _new_statement(self, i: int) -> bool:
        kind, val, _ = self.toks[i]
        if self.family in _UNENDED:
            return val in _DECLARES[self.family]
        if self.family == "go":
            prev = self.toks[i - 1][1]
            return prev not in (",", "(", "{", "[", "=", "+", "-", "*", "/", "&&", "||", ".", ":=")
        if (kind == "id" and val in self._STARTERS) or val == "@":
            return True
        # JS/TS without semicolons: a name on a new line after a value's last token (`]`, `)`, `}`, a name, a
        # literal) starts the next statement (`describe(...)` after `const samples = [...]`)
        before, prev, _ = self.toks[i - 1]
        return (self.family == "js" and kind == "id" and val not in self._CONTINUING
                and (before in ("id", "str", "num") or prev in (")", "]", "}")))

    _CONTINUING = frozenset(["as", "satisfies", "in", "instanceof", "of", "extends"])

    def parent(self, stack: list[_Scope]) -> str:
        return ".".join(s.d.name for s in stack if s.d is not None and s.kind in _PARENTS)

    def header(self, i: int, stack: list[_Scope], depth: int, groups) -> tuple[Definition, str] | None:
        toks, lines = self.toks, self.lines
        val = toks[i][1]
        nxt = toks[i + 1] if i + 1 < len(toks) else ("", "", 0)
        prev = toks[i - 1][1] if i > 0 else None
        if prev == ".":
            return None
        line = lines[i]
        top = stack[-1]
        fam = self.family

        def make(name_idx: int, kind: str, style: str = "body", start: int | None = None):
            name = toks[name_idx][1].strip("`")   # Kotlin's and Swift's `a name in backticks`
            start = start or line
            return Definition(name, kind, start, start, self.sig(start), self.parent(stack)), style

        def is_id(j: int) -> bool:
            return j < len(toks) and toks[j][0] == "id"

        in_type_body = top.d is not None and top.kind in _TYPE_KINDS
        # Go: grouped declarations, one per line
        if fam == "go" and groups and groups[-1][1] == depth and (i == 0 or lines[i - 1] < line) and prev != ".":
            g = groups[-1][0]
            if g == "type":
                k = {"struct": "struct", "interface": "interface"}.get(nxt[1], "type")
                return make(i, k, "body" if k != "type" else "value")
            return make(i, "constant" if g == "const" else "variable", "value")
        if fam == "js":
            if nxt[1] == "." and top.kind == "file" and (prev in (None, ";", "}") or lines[i - 1] < line):
                return self._member(i)
            if val == "function" and prev != "=":
                j = i + 1 + (toks[i + 1][1] == "*")
                if is_id(j):
                    return make(j, self._fn_kind(toks[j][1], j))
            elif val in ("class", "interface", "enum", "namespace", "module") and is_id(i + 1) and prev not in ("(", ",", "="):
                if val == "module" and nxt[1] == ".":
                    return None
                return make(i + 1, "class" if val == "class" else val)
            elif val == "type" and is_id(i + 1) and i + 2 < len(toks) and toks[i + 2][1] in ("=", "<") and (
                    prev is None or prev in (";", "}", "{", "export", "declare") or lines[i - 1] < line):
                return make(i + 1, "type", "value")
            elif val in ("const", "let", "var") and is_id(i + 1) and i + 2 < len(toks) and toks[i + 2][1] in ("=", ":") \
                    and top.kind in ("file", "namespace", "module"):
                name = toks[i + 1][1]
                if toks[i + 2][1] == "=" and self._required(i + 3):
                    return None   # `const dns = require("dns")` imports dns: its definition is elsewhere
                if self._function_value(i + 2):
                    return make(i + 1, self._fn_kind(name, i + 1), "value")
                return make(i + 1, "constant" if name.isupper() or val == "const" and name[:1].isupper() else "variable", "value")
            elif in_type_body and val not in KEYWORDS - _MODIFIERS - {"constructor"} and (
                    nxt[1] in ("(", "<") or nxt[1] == "?" and i + 2 < len(toks) and toks[i + 2][1] == "(") \
                    and (prev in (None, "{", "}", ";", "*", "async", "static", "get", "set", "public", "private",
                                  "protected", "readonly", "override", "abstract", "declare") or lines[i - 1] < line):
                if val in _MODIFIERS and is_id(i + 1):
                    return None
                return make(i, "method")
            elif in_type_body and top.kind == "class" and nxt[1] == "=" and self._function_value(i + 1) and \
                    (prev in ("{", "}", ";", "static", "private", "public", "protected", "readonly") or lines[i - 1] < line):
                return make(i, "method", "value")
            return None
        if fam == "go":
            if val == "func" and top.kind == "file" and (prev in (None, "}", ";") or lines[i - 1] < line):
                # a declaration starts its line: `var atExitFuncs []func()` holds a function type, no method
                if is_id(i + 1):
                    return make(i + 1, "function")
                if nxt[1] == "(":
                    j, recv = i + 2, ""
                    while j < len(toks) and toks[j][1] != ")":
                        if toks[j][0] == "id" and toks[j][1] not in KEYWORDS:
                            recv = toks[j][1] if toks[j - 1][1] in ("*", "(") or toks[j - 1][0] == "id" else recv
                        j += 1
                    if is_id(j + 1):
                        d, style = make(j + 1, "method")
                        d.parent = recv
                        return d, style
            elif val in ("type", "const", "var") and top.kind == "file":
                if nxt[1] == "(":
                    groups.append((val, -1))
                    return None
                if is_id(i + 1):
                    if val == "type":
                        k = {"struct": "struct", "interface": "interface"}.get(toks[i + 2][1] if i + 2 < len(toks) else "", "type")
                        return make(i + 1, k, "body" if k != "type" else "value")
                    return make(i + 1, "constant" if val == "const" else "variable", "value")
            return None
        if fam == "rust":
            if val == "fn" and is_id(i + 1):
                return make(i + 1, "method" if in_type_body else "function")
            if val in ("struct", "enum", "trait", "union") and is_id(i + 1):
                return make(i + 1, val)
            if val == "mod" and is_id(i + 1) and i + 2 < len(toks) and toks[i + 2][1] == "{":
                return make(i + 1, "module")
            if val in ("const", "static") and is_id(i + 1) and i + 2 < len(toks) and toks[i + 2][1] == ":":
                return make(i + 1, "constant", "value")
            if val == "type" and is_id(i + 1) and prev != "::":
                return make(i + 1, "type", "value")
            if val == "macro_rules" and nxt[1] == "!" and is_id(i + 2):
                return make(i + 2, "macro")
            if val == "impl":
                j, angle, name_idx = i + 1, 0, None
                while j < len(toks) and toks[j][1] not in ("{", ";"):
                    t = toks[j][1]
                    angle += (t == "<") - (t == ">")
                    if t == "for":
                        name_idx = None
                    elif angle == 0 and toks[j][0] == "id" and t not in KEYWORDS and name_idx is None and toks[j + 1][1] != "::":
                        name_idx = j
                    elif t == "where":
                        break
                    j += 1
                if name_idx is not None:
                    return make(name_idx, "impl")
            return None
        if fam in _UNENDED:
            return self._unended(i, stack, in_type_body, make)
        # java, dart
        if val in ("class", "interface", "enum", "record") and is_id(i + 1) and prev not in (".", "::"):
            return make(i + 1, "annotation" if prev == "@" else val)
        if fam == "dart" and val in ("mixin", "extension", "typedef") and is_id(i + 1) and nxt[1] not in ("on", "class"):
            return make(i + 1, "type", "value") if val == "typedef" else make(i + 1, "class" if val == "mixin" else val)
        at_top = fam == "dart" and top.kind == "file"   # Dart's functions outside a class
        if fam == "dart" and nxt[1] == "<":   # a generic function's type parameters follow its name
            nxt = self._past_generics(i + 1)
        if (in_type_body or at_top) and nxt[1] == "(" and val not in KEYWORDS and val != "Function" \
                and prev not in ("new", "=", ".", "@", "(", ",", "return") \
                and (toks[i - 1][0] == "id" or prev in (">", "]", "{", "}", ";", "?") or at_top and prev is None):
            if at_top:
                return make(i, "function")
            return make(i, "constructor" if val == top.d.name else "method")
        if in_type_body and nxt[1] == "=" and val.isupper() and toks[i - 1][0] == "id" and depth == top.depth:
            return make(i, "constant", "value")
        return None

    def _unended(self, i: int, stack: list[_Scope], in_type_body: bool, make) -> tuple[Definition, str] | None:
        """Kotlin's, Swift's and Scala's declarations: `fun`/`func`/`def`, their types (Swift's `extension` too),
        type aliases, a Kotlin or Scala constant (`const val`, `val MAX`, `val MaxItems`) and a Swift property with a
        body (`var body: some View {`). None inside a function: a local function is no place a task's change is
        looked for."""
        if any(s.d is not None and s.kind in ("function", "method", "property") for s in stack):
            return None
        toks, n = self.toks, len(self.toks)
        val, prev = toks[i][1], toks[i - 1][1] if i > 0 else None
        nxt = toks[i + 1] if i + 1 < n else ("", "", 0)
        named = nxt[0] in ("id", "bq")
        if val in ("fun", "func"):
            # the last name outside `<...>` before `(`: past a receiver (`fun <T> List<T>.second()`), not a
            # generic's (`func map<T>(`); `fun interface` is the interface's
            j, angle, name = i + 1, 0, None
            while j < n and j < i + 40 and not (angle == 0 and toks[j][1] == "("):
                t = toks[j]
                if t[1] in ("{", "}", "=", ";") or angle == 0 and t[1] == ":":
                    return None
                angle += (t[1] == "<") - (t[1] == ">")
                if angle == 0 and t[0] in ("id", "bq"):
                    name = j
                j += 1
            if name is None or j >= n or toks[name][1] == "interface":
                return None
            return make(name, "method" if in_type_body else "function")
        if self.family == "scala":
            if val == "def" and named:
                return make(i + 1, "method" if in_type_body else "function")
            if val in ("class", "object", "trait", "enum") and named and prev != ".":
                return make(i + 1, val)
            if val == "type" and named:
                return make(i + 1, "type", "value")
            if val in ("val", "var") and named and stack[-1].kind != "paren" and nxt[1][:1].isupper():
                return make(i + 1, "constant", "value")   # Scala's constants are capitalised (`val MaxItems`)
            return None
        if self.family == "kotlin":
            if val in ("class", "interface", "object") and named and prev not in (".", "::"):
                return make(i + 1, "enum" if prev == "enum" else "interface" if val == "interface" else val)
            if val == "typealias" and named:
                return make(i + 1, "type", "value")
            if val in ("val", "var") and named and stack[-1].kind != "paren" and (
                    prev == "const" or len(nxt[1]) > 1 and nxt[1].isupper()):
                return make(i + 1, "constant", "value")
            return None
        if val in _SWIFT_TYPES and named and prev not in (".", "import") and nxt[1] not in _DECLARES["swift"] and nxt[1] != "func":
            j = i + 1   # `extension Foo.Bar`: the last name
            while j + 2 < n and toks[j + 1][1] == "." and toks[j + 2][0] == "id":
                j += 2
            return make(j, _SWIFT_TYPES[val])
        if val == "init" and in_type_body and nxt[1] in ("(", "?", "!", "<") and prev != ".":
            return make(i, "constructor")
        if val == "typealias" and named:
            return make(i + 1, "type", "value")
        if val == "var" and named and in_type_body and self._body_on_line(i):
            return make(i + 1, "property")
        return None

    def _past_generics(self, j: int) -> tuple[str, str, int]:
        """The token after the `<...>` opening at token `j` (Dart's `void whenListen<State>(`)."""
        toks, angle = self.toks, 0
        for k in range(j, min(j + 60, len(toks))):
            angle += (toks[k][1] == "<") - (toks[k][1] == ">")
            if angle <= 0:
                return toks[k + 1] if k + 1 < len(toks) else ("", "", 0)
        return ("", "", 0)

    def _body_on_line(self, i: int) -> bool:
        """Whether the line of token `i` ends with the `{` that opens a body: a computed property."""
        toks, lines = self.toks, self.lines
        j = i
        while j + 1 < len(toks) and lines[j + 1] == lines[i]:
            j += 1
        return toks[j][1] == "{"

    def _member(self, i: int) -> tuple[Definition, str] | None:
        """A function assigned to a member at a statement's start: Express's `res.send = function send(body) {`,
        `Router.prototype.route = function`, `exports.parse = (s) => ...`. Its parent is the object (a prototype's
        class), none for `exports`."""
        toks, j, parts = self.toks, i, [self.toks[i][1]]
        while j + 2 < len(toks) and toks[j + 1][1] == "." and toks[j + 2][0] == "id":
            parts.append(toks[j + 2][1])
            j += 2
        if j + 1 >= len(toks) or toks[j + 1][1] != "=" or parts[-1] in ("exports", "prototype") \
                or not self._function_value(j + 1):
            return None
        owner = [p for p in parts[:-1] if p not in ("module", "exports", "prototype")]
        line = self.lines[i]
        return Definition(parts[-1], "method" if owner else "function", line, line, self.sig(line), ".".join(owner)), "value"

    def _function_value(self, j: int) -> bool:
        """Whether the value assigned at token `j` (an `=`, or a `:` type annotation before one) is a
        function: `function`, `async`, `(...) =>`, `<T>(...) =>` or `x =>`."""
        toks, n = self.toks, len(self.toks)
        if toks[j][1] == ":":   # a type annotation: skip to the `=` at this nesting
            level = 0
            while j < n and not (level == 0 and toks[j][1] == "="):
                level += toks[j][1] in ("(", "[", "{", "<") and 1 or 0
                level -= toks[j][1] in (")", "]", "}", ">") and 1 or 0
                if toks[j][1] == ";":
                    return False
                j += 1
        if j + 1 >= n:
            return False
        first = toks[j + 1]
        return first[1] in ("function", "async", "(", "<") or (
            first[0] == "id" and j + 2 < n and toks[j + 2][1] == "=>")

    def _required(self, j: int) -> bool:
        """Whether the value starting at token `j` is a module: `require("x")`, `await import("x")`, with
        `.member` after it or not."""
        toks = self.toks
        j += toks[j][1] == "await" if j < len(toks) else 0
        return j + 2 < len(toks) and toks[j][1] in ("require", "import") and toks[j + 1][1] == "(" \
            and toks[j + 2][0] == "str"

    def _fn_kind(self, name: str, j: int) -> str:
        """Capitalised functions that render JSX are React components."""
        if not name[:1].isupper():
            return "function"
        if self.jsx_file:
            return "component"
        for k in range(j, min(j + 400, len(self.toks))):
            if self.toks[k][0] == "text" or (self.toks[k][1] == "<" and self.toks[k - 1][1] == "return"):
                return "component"
        return "function"


# ---------------------------------------------------------------- imports

def _unquote(s: str) -> str:
    return s[1:-1] if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"`" else s.strip("'\"`")


_IMPORT_WORDS = {"js": ("from", "import", "require"), "go": ("import",), "rust": ("use", "mod"), "java": ("import",),
                 "kotlin": ("import",), "swift": ("import",), "scala": ("import",), "dart": ("import", "export", "part")}
"""The identifiers that can start an import, per family: only the tokens with these values are looked at."""


def _imports(toks, values: list[str], family: str) -> list[str]:
    """The import specifiers of a file's tokens; `values` holds each token's text."""
    out: set[str] = set()
    n = len(toks)
    for i in _positions(values, _IMPORT_WORDS[family]):
        kind, val, _ = toks[i]
        if kind != "id":
            continue
        nxt = toks[i + 1] if i + 1 < n else ("", "", 0)
        if family == "js":
            if val in ("from", "import") and nxt[0] == "str" and (val == "import" or i > 0):
                out.add(_unquote(nxt[1]))
            elif val in ("require", "import") and nxt[1] == "(" and i + 2 < n and toks[i + 2][0] == "str":
                out.add(_unquote(toks[i + 2][1]))
        elif family == "go" and val == "import":
            j = i + 1
            if nxt[1] == "(":
                j += 1
                while j < n and toks[j][1] != ")":
                    if toks[j][0] == "str":
                        out.add(_unquote(toks[j][1]))
                    j += 1
            else:
                while j < n and toks[j][0] != "str" and j < i + 3:
                    j += 1
                if j < n and toks[j][0] == "str":
                    out.add(_unquote(toks[j][1]))
        elif family == "rust":
            if val == "use" and (i == 0 or toks[i - 1][1] in (";", "}", "{", "pub", ")") or toks[i - 1][0] == "p"):
                parts, j = [], i + 1
                while j < n and toks[j][1] not in (";", "{", "*", "as"):
                    parts.append(toks[j][1])
                    j += 1
                out.add("".join(parts).rstrip(":"))
            elif val == "mod" and nxt[0] == "id" and i + 2 < n and toks[i + 2][1] == ";":
                out.add(f"mod {nxt[1]}")
        elif family == "java" and val == "import" and (i == 0 or toks[i - 1][1] == ";"):
            parts, j = [], i + 1
            if j < n and toks[j][1] == "static":
                j += 1
            while j < n and toks[j][1] != ";":
                parts.append(toks[j][1])
                j += 1
            out.add("".join(parts))
        elif family in _UNENDED and val == "import" and (i == 0 or toks[i - 1][1] != "."):
            j = i + 1 + (family == "swift" and nxt[1] in _SWIFT_IMPORTED)   # `import struct Foo.Bar`
            parts = []
            while j < n and (toks[j][0] == "id" and (not parts or parts[-1] == ".") or toks[j][1] in (".", "*")
                             and parts and parts[-1] != "."):
                parts.append(toks[j][1])
                j += 1
            out.add("".join(parts).rstrip("."))   # Scala's `import a.b.{C, D}`
        elif family == "dart" and nxt[0] == "str" and (i == 0 or toks[i - 1][1] in (";", "}")):
            out.add(_unquote(nxt[1]))
    out.discard("")
    return sorted(out)


_SWIFT_IMPORTED = frozenset({"struct", "class", "enum", "protocol", "func", "var", "let", "typealias"})


def _positions(values: list[str], words) -> list[int]:
    """The indices of `values` that hold one of `words`, each found by `list.index` (in C)."""
    out = []
    for word in words:
        i = -1
        try:
            while True:
                i = values.index(word, i + 1)
                out.append(i)
        except ValueError:
            pass
    return out
