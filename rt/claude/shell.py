"""Reading a Bash command as bash reads it, without running anything: the words of each simple command,
their redirections and heredocs, and the command substitutions inside them (for the git guard).

A word keeps what is only known at run time: `Word.pat` is the word with quotes removed, every character
that was quoted or escaped preceded by a backslash (so a glob or brace left bare is told from a quoted
one), and every expansion (`$x`, `${x}`, `$(...)`, backticks, `$((...))`, `<(...)`) replaced by DYN.
Comments, line continuations, `$'...'`, heredocs and process substitutions are read as bash reads them.
Text that is not balanced (an unclosed quote or bracket) raises ValueError: the caller fails closed.
"""
from __future__ import annotations

DYN = "\x00"
"""Stands in a word for an expansion whose value is only known when the command runs."""

OPERATORS = ("&&", "||", ";;&", ";;", ";&", "|&", ";", "&", "|", "(", ")", "\n")
REDIRECTS = ("<<<", "<<-", "&>>", "<<", ">>", "<>", "<&", ">&", ">|", "&>", "<", ">")
_OP_START = frozenset(";&|()<>\n")
_BLANK = frozenset(" \t\r")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")
_GLOB = frozenset("*?[")
_ANSI = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "e": "\x1b", "E": "\x1b",
         "\\": "\\", "'": "'", '"': '"', "?": "?"}
MAX_BRACE_WORDS = 256
"""A brace expansion making more words than this is treated as unknown instead of being spelled out."""


class Word:
    """One shell word. `subs` are the scripts of the command substitutions inside it (they run too)."""
    __slots__ = ("pat", "split", "ansi", "subs", "heredoc", "heredoc_quoted")

    def __init__(self) -> None:
        self.pat = ""
        self.split = False    # an unquoted expansion: may become several words, or options
        self.ansi = False     # `$'...'`: static, but spelled in escapes
        self.subs: list[Script] = []
        self.heredoc: str | None = None   # the body, when this word is a heredoc's delimiter
        self.heredoc_quoted = False

    @property
    def text(self) -> str:
        """The word's value as far as it is known: quotes and escapes removed, DYN for each expansion."""
        return unescape(self.pat)

    @property
    def static(self) -> bool:
        """Plain text: no expansion, no `$'...'`, no glob, no brace expansion."""
        return DYN not in self.pat and not self.ansi and not self.glob and not has_brace(self.pat)

    @property
    def glob(self) -> bool:
        return has_glob(self.pat)

    def __repr__(self) -> str:  # for test failures
        return f"Word({self.text!r})"


class Script:
    """The tokens of one piece of shell text: Words and operator strings (redirection operators included,
    each followed by its target Word)."""
    __slots__ = ("tokens",)

    def __init__(self, tokens: list) -> None:
        self.tokens = tokens


def parse(text: str) -> Script:
    """The tokens of `text`; ValueError when quotes or brackets are left open."""
    lexer = _Lexer(text)
    tokens = lexer.tokens(stop=None)
    if lexer.pending:
        raise ValueError("heredoc without its body")
    return Script(tokens)


def unescape(pat: str) -> str:
    out, i, n = [], 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "\\" and i + 1 < n:
            out.append(pat[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def has_glob(pat: str) -> bool:
    return find_bare(pat, "*?[") != -1


def has_brace(pat: str) -> bool:
    return "{" in pat and _braces(pat) != [pat]


def expand_braces(pat: str) -> list[str]:
    """Bash's brace expansion of a word pattern: `{a,b}` and `{1..3}` (bare braces only), nested; a word
    that would make more than MAX_BRACE_WORDS words is returned unexpanded with DYN in it."""
    out = _braces(pat)
    if len(out) > MAX_BRACE_WORDS:
        return [DYN]
    return [w for w in out if w != ""] if len(out) > 1 else out


def _braces(pat: str) -> list[str]:
    start = find_bare(pat, "{")
    while start != -1:
        depth, i, commas = 0, start, []
        while i < len(pat):
            c = pat[i]
            if c == "\\":
                i += 2
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            elif c == "," and depth == 1:
                commas.append(i)
            i += 1
        else:
            return [pat]
        pre, body, post = pat[:start], pat[start + 1:i], pat[i + 1:]
        if commas:
            cuts = [start, *commas, i]
            alternatives = [pat[a + 1:b] for a, b in zip(cuts, cuts[1:])]
        else:
            alternatives = _sequence(body)
        if alternatives is not None:
            tails = _braces(post)
            out = []
            for alt in alternatives:
                for a in _braces(alt):
                    out.extend(pre + a + t for t in tails)
                    if len(out) > MAX_BRACE_WORDS:
                        return out
            return out
        start = find_bare(pat, "{", start + 1)
    return [pat]


def _sequence(body: str) -> list[str] | None:
    parts = body.split("..")
    if len(parts) not in (2, 3) or "\\" in body:
        return None
    a, b = parts[0], parts[1]
    step = abs(int(parts[2])) if len(parts) == 3 and parts[2].lstrip("-").isdigit() else 1
    if len(parts) == 3 and not parts[2].lstrip("-").isdigit():
        return None
    step = step or 1
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit():
        x, y = int(a), int(b)
        if abs(y - x) // step > MAX_BRACE_WORDS:
            return [DYN] * (MAX_BRACE_WORDS + 1)
        return [str(v) for v in (range(x, y + 1, step) if x <= y else range(x, y - 1, -step))]
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        x, y = ord(a), ord(b)
        return [chr(v) for v in (range(x, y + 1, step) if x <= y else range(x, y - 1, -step))]
    return None


def find_bare(pat: str, chars: str, start: int = 0) -> int:
    """Index of the first of `chars` at or after `start` that is not quoted or escaped in a word pattern, or -1."""
    i = start
    while i < len(pat):
        c = pat[i]
        if c == "\\":
            i += 2
            continue
        if c in chars:
            return i
        i += 1
    return -1


# ---------------------------------------------------------------- the lexer

class _Lexer:
    def __init__(self, text: str):
        self.s = text
        self.i = 0
        self.pending: list[tuple[Word, bool]] = []  # heredoc delimiters (and `<<-`) whose bodies follow the next newline

    def tokens(self, stop: str | None) -> list:
        """Tokens up to the end, or up to the unmatched `stop` character (`)` of a `$(`)."""
        s, out = self.s, []
        depth = 0  # parentheses opened inside this substitution
        word_end = -1  # where the last word ended: a redirection right after digits makes them its fd
        while True:
            self._blanks()
            if self.i >= len(s):
                if stop is not None:
                    raise ValueError("unclosed substitution")
                return out
            c = s[self.i]
            if c == "#":
                nl = s.find("\n", self.i)
                self.i = len(s) if nl == -1 else nl
                continue
            if c in _OP_START and not (c in "<>" and s.startswith("(", self.i + 1)):
                if c == ")" and stop == ")" and depth == 0:
                    self.i += 1
                    return out
                at = self.i
                op = self._operator()
                if op in REDIRECTS and at == word_end and _is_fd(out[-1]):
                    out.pop()  # `2>`, `{fd}>`: the number names a descriptor, not an argument
                if op == "(":
                    depth += 1
                elif op == ")":
                    depth -= 1
                out.append(op)
                if op == "\n" and self.pending:
                    self._heredoc_bodies()
                if op in ("<<", "<<-"):
                    self._blanks()
                    delim = self._word()
                    if delim is None:
                        raise ValueError("heredoc without a delimiter")
                    delim.heredoc_quoted = "\\" in delim.pat
                    delim.heredoc = ""
                    self.pending.append((delim, op == "<<-"))
                    out.append(delim)
                continue
            word = self._word()
            if word is None:
                raise ValueError(f"cannot read {s[self.i:self.i + 10]!r}")
            out.append(word)
            word_end = self.i

    def _blanks(self) -> None:
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in _BLANK:
                self.i += 1
            elif c == "\\" and s.startswith("\n", self.i + 1):
                self.i += 2
            else:
                break

    def _operator(self) -> str:
        s, i = self.s, self.i
        for op in REDIRECTS + OPERATORS:
            if s.startswith(op, i):
                self.i = i + len(op)
                return op
        raise ValueError("unknown operator")

    def _heredoc_bodies(self) -> None:
        s = self.s
        for delim, strip in self.pending:
            end_text = delim.text
            lines = []
            while True:
                if self.i >= len(s):
                    break  # bash reads to the end, with a warning
                nl = s.find("\n", self.i)
                line = s[self.i:] if nl == -1 else s[self.i:nl]
                self.i = len(s) if nl == -1 else nl + 1
                if strip:
                    line = line.lstrip("\t")
                if line == end_text:
                    break
                lines.append(line)
            delim.heredoc = "\n".join(lines) + ("\n" if lines else "")
            if not delim.heredoc_quoted:
                delim.subs.extend(expansions(delim.heredoc))
        self.pending = []

    # ------------------------------------------------------------ words
    def _word(self) -> Word | None:
        s, n = self.s, len(self.s)
        w = Word()
        pat: list[str] = []
        start = self.i
        while self.i < n:
            c = s[self.i]
            if c in _BLANK:
                break
            if c in _OP_START:
                if c == "(" and pat and self._word_paren(w, pat):
                    continue
                if c in "<>" and s.startswith("(", self.i + 1):  # process substitution
                    self.i += 2
                    w.subs.append(Script(self._sub_tokens()))
                    pat.append(DYN)
                    w.split = True
                    continue
                break
            if c == "\\":
                if s.startswith("\n", self.i + 1):
                    self.i += 2
                    continue
                if self.i + 1 < n:
                    pat.append("\\" + s[self.i + 1])
                self.i += 2
                continue
            if c == "'":
                end = s.find("'", self.i + 1)
                if end == -1:
                    raise ValueError("unclosed quote")
                pat.append(_quote(s[self.i + 1:end]))
                self.i = end + 1
                continue
            if c == '"':
                self.i += 1
                self._double(w, pat)
                continue
            if c == "$":
                self._dollar(w, pat, quoted=False)
                continue
            if c == "`":
                self._backtick(w, pat, quoted=False)
                continue
            pat.append(c)
            self.i += 1
        if self.i == start:
            return None
        w.pat = "".join(pat)
        return w

    def _word_paren(self, w: Word, pat: list[str]) -> bool:
        """`name=(...)` (an array) or `@(...)`-style extglob: the parentheses belong to the word."""
        so_far = "".join(pat)
        name = so_far[:-1].removesuffix("+")
        if so_far.endswith("=") and name and (name.split("[", 1)[0]).isidentifier():
            self.i += 1
            for token in self._sub_tokens():
                if isinstance(token, Word):
                    w.subs.extend(token.subs)
            pat.append(DYN)
            w.split = True
            return True
        if so_far and so_far[-1] in "@!+*?" and not so_far.endswith("\\" + so_far[-1]):
            self.i += 1
            pat.append("(")
            w.subs.append(Script(self._sub_tokens()))
            pat.append(")")
            return True
        return False

    def _double(self, w: Word, pat: list[str]) -> None:
        s, n = self.s, len(self.s)
        while self.i < n:
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < n and s[self.i + 1] in '$`"\\\n':
                if s[self.i + 1] != "\n":
                    pat.append("\\" + s[self.i + 1])
                self.i += 2
                continue
            if c == "$":
                self._dollar(w, pat, quoted=True)
                continue
            if c == "`":
                self._backtick(w, pat, quoted=True)
                continue
            pat.append("\\" + c)
            self.i += 1
        raise ValueError("unclosed double quote")

    def _dollar(self, w: Word, pat: list[str], quoted: bool) -> None:
        s, i = self.s, self.i
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "(":
            if s.startswith("((", i + 1):
                end = _closing_arith(s, i + 3)
                w.subs.extend(expansions(s[i + 3:end]))
                self.i = end + 2
            else:
                self.i = i + 2
                w.subs.append(Script(self._sub_tokens()))
        elif nxt == "[":
            end = _matching(s, i + 2, "[", "]")
            w.subs.extend(expansions(s[i + 2:end]))
            self.i = end + 1
        elif nxt == "{":
            end = _matching(s, i + 2, "{", "}")
            w.subs.extend(expansions(s[i + 2:end]))
            self.i = end + 1
        elif nxt == "'" and not quoted:
            value, self.i = _ansi(s, i + 2)
            pat.append(_quote(value))
            w.ansi = True
            return
        elif nxt == '"' and not quoted:
            self.i = i + 2
            self._double(w, pat)
            return
        elif nxt in _NAME_CHARS and not nxt.isdigit():
            j = i + 1
            while j < len(s) and s[j] in _NAME_CHARS:
                j += 1
            self.i = j
        elif nxt and nxt in _SPECIAL_PARAMS:
            self.i = i + 2
        else:
            pat.append("\\$" if quoted else "$")
            self.i = i + 1
            return
        pat.append(DYN)
        w.split = w.split or not quoted

    def _backtick(self, w: Word, pat: list[str], quoted: bool) -> None:
        script, self.i = _backquoted(self.s, self.i + 1)
        w.subs.append(script)
        pat.append(DYN)
        w.split = w.split or not quoted

    def _sub_tokens(self) -> list:
        """The tokens of a `$(`, `<(`, `>(` or `(`-group whose opening bracket was just read."""
        inner = _Lexer(self.s)
        inner.i = self.i
        tokens = inner.tokens(stop=")")
        if inner.pending:
            raise ValueError("heredoc without its body")
        self.i = inner.i
        return tokens


def _backquoted(s: str, i: int) -> tuple[Script, int]:
    """The script of a backquoted substitution whose text starts at `i` (`\\``, `\\$`, `\\\\` unescaped), and the
    index after its closing backquote."""
    inner = []
    while i < len(s) and s[i] != "`":
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in "`$\\":
            inner.append(s[i + 1])
            i += 2
            continue
        inner.append(s[i])
        i += 1
    if i >= len(s):
        raise ValueError("unclosed backtick")
    return parse("".join(inner)), i + 1


def _is_fd(token) -> bool:
    if not isinstance(token, Word) or DYN in token.pat:
        return False
    p = token.pat
    return p.isdigit() or (p.startswith("{") and p.endswith("}") and p[1:-1].isidentifier())


def _quote(text: str) -> str:
    return "".join("\\" + c for c in text)


def _ansi(s: str, i: int) -> tuple[str, int]:
    """The value of `$'...'` whose text starts at `i`, and the index after its closing quote."""
    out = []
    while i < len(s):
        c = s[i]
        if c == "'":
            return "".join(out), i + 1
        if c != "\\" or i + 1 >= len(s):
            out.append(c)
            i += 1
            continue
        e = s[i + 1]
        i += 2
        if e in _ANSI:
            out.append(_ANSI[e])
        elif e in "xuU":
            size = {"x": 2, "u": 4, "U": 8}[e]
            digits = ""
            while len(digits) < size and i < len(s) and s[i] in "0123456789abcdefABCDEF":
                digits += s[i]
                i += 1
            out.append(chr(int(digits, 16)) if digits else "\\" + e)
        elif e in "01234567":
            digits = e
            while len(digits) < 3 and i < len(s) and s[i] in "01234567":
                digits += s[i]
                i += 1
            out.append(chr(int(digits, 8) & 0xFF))
        elif e == "c" and i < len(s):
            out.append(chr(ord(s[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + e)
    raise ValueError("unclosed $'")


def _matching(s: str, i: int, open_: str, close: str) -> int:
    """Index of the `close` that balances an `open_` just before `i`, skipping quoted text."""
    depth = 1
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and open_ != "[":
            end = s.find("'", i + 1)
            if end == -1:
                raise ValueError("unclosed quote")
            i = end + 1
            continue
        if c == '"':
            i = _end_double(s, i + 1)
            continue
        if c == "$" and s.startswith("(", i + 1):
            i = _matching(s, i + 2, "(", ")") + 1
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"unclosed {open_}")


def _end_double(s: str, i: int) -> int:
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        if c == "$" and s.startswith("(", i + 1):
            i = _matching(s, i + 2, "(", ")") + 1
            continue
        if c == "`":
            end = s.find("`", i + 1)
            if end == -1:
                raise ValueError("unclosed backtick")
            i = end + 1
            continue
        i += 1
    raise ValueError("unclosed double quote")


def _closing_arith(s: str, i: int) -> int:
    """Index of the `))` closing a `$((` whose text starts at `i`."""
    end = _matching(s, i, "(", ")")  # the inner `)` of `))`
    if not s.startswith(")", end + 1):
        raise ValueError("unclosed arithmetic")
    return end


def expansions(text: str) -> list[Script]:
    """The command substitutions in text read as inside double quotes (a heredoc body, `${...}`, `$((...))`)."""
    out: list[Script] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "$" and text.startswith("(", i + 1) and not text.startswith("((", i + 1):
            lexer = _Lexer(text)
            lexer.i = i + 2
            out.append(Script(lexer._sub_tokens()))
            i = lexer.i
            continue
        if c == "$" and text.startswith("((", i + 1):
            end = _closing_arith(text, i + 3)
            out.extend(expansions(text[i + 3:end]))
            i = end + 2
            continue
        if c == "$" and text.startswith("{", i + 1):
            end = _matching(text, i + 2, "{", "}")
            out.extend(expansions(text[i + 2:end]))
            i = end + 1
            continue
        if c == "`":
            script, i = _backquoted(text, i + 1)
            out.append(script)
            continue
        i += 1
    return out
