"""Token estimates and the one rule for fitting material into a small context window.

The estimator needs no tokenizer: it counts the pieces a BPE tokenizer tends to keep whole. A word
of letters (with its leading space) costs one token per 7 letters, a run of up to 3 digits one, a
line break with its indentation one, a run of spaces one, punctuation one per 3 characters, any
other character (accents, CJK, emoji) one. `bench/tokens.py` measures it against Claude's
tokenizer: off by 10% per file on average on the files its constants were chosen on (Python, JS,
Vue, Markdown, locale JSON), 13% on files it never saw (npm packages); in total it errs high on
code, by 4-13%, which keeps budgets on the safe side. Locale JSON in other scripts can be 40% low.
Figures: `bench/RESULTS.md`, "Token estimates".

`can_fit()` is the accounting every budgeted output follows: out of the window come first the
system prompt and instructions, then the output reserved for the answer, then memory entries, and
the rest is for code. When the material does not fit, folder context is dropped first, then memory
entries (last first), and only then is code cut.
"""
from __future__ import annotations

import re

from rt.core import UsageError

SYSTEM = 1000
"""Tokens kept for the system prompt and instructions (at most; an eighth of a smaller window)."""
OUTPUT = 2000
"""Tokens kept for the answer (at most; a quarter of a smaller window)."""
MEMORY_ENTRIES = 4
MEMORY_EACH = 90
"""Memory entries kept and the tokens each may take; a longer entry is cut to this."""
MIN_CODE = 200
"""A window leaving less than this for code is refused."""

_PIECE = re.compile(r"( ?[A-Za-z]+)|[0-9]{1,3}|\n[ \t]*|[ \t]+|([\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]+)|[^\x00-\x7f]")
"""The pieces, in order: a word (its leading space free), digits, a line break with its indentation, spaces,
punctuation, any other character. Words and punctuation are captured: `findall` gives each piece as (word,
punctuation), both empty for the pieces of one token, in C."""
_LETTERS_PER_TOKEN = 7
_PUNCT_PER_TOKEN = 3


def estimate(text: str) -> int:
    """Estimated tokens in `text` (see the module's docstring for the rule and its measured error)."""
    n = 0
    for word, punct in _PIECE.findall(text):
        if word:
            n += -(-(len(word) - (word[0] == " ")) // _LETTERS_PER_TOKEN)
        elif punct:
            n += -(-len(punct) // _PUNCT_PER_TOKEN)
        else:
            n += 1
    return n


class Split:
    """How a window is shared out before any material is placed. (Plain classes here, not dataclasses:
    the `/runtask` hook imports this module, and `dataclasses` imports `inspect`, `ast` and `dis`.)"""

    __slots__ = ("window", "system", "output", "memory_entries", "memory_each")

    def __init__(self, window: int, system: int, output: int, memory_entries: int, memory_each: int):
        self.window, self.system, self.output = window, system, output
        self.memory_entries, self.memory_each = memory_entries, memory_each

    @property
    def memory(self) -> int:
        return self.memory_entries * self.memory_each

    @property
    def code(self) -> int:
        return self.window - self.system - self.output - self.memory


def split(window: int, option: str = "--budget") -> Split:
    """The share-out of a `window`-token context; refuses a window with no room left for code (the error
    names `option`, the command's flag that gave the window)."""
    s = Split(window, min(SYSTEM, window // 8), min(OUTPUT, window // 4), MEMORY_ENTRIES, MEMORY_EACH)
    if s.code < MIN_CODE:
        least = next(w for w in range(max(window, 1), 1 << 20) if w - min(SYSTEM, w // 8) - min(OUTPUT, w // 4)
                     - MEMORY_ENTRIES * MEMORY_EACH >= MIN_CODE)
        raise UsageError(f"{option} {window}: too small; after the system prompt, the answer and memory "
                         f"there is no room for code (give at least {least})")
    return s


class Fit:
    """What may go in: tokens of code, how many memory entries, whether folder context stays, what went."""

    __slots__ = ("code", "memory", "folders", "dropped")

    def __init__(self, code: int, memory: int, folders: bool):
        self.code, self.memory, self.folders = code, memory, folders
        self.dropped: list[str] = []


def can_fit(window: int, *, code: int, memory: list[int], folders: int) -> Fit:
    """Fit `code` tokens, memory entries of the given sizes and `folders` tokens of folder context.

    The room is the window less the system prompt and the answer. Folder context goes first, then
    memory entries from the last, and only then is code cut to what is left. `dropped` says what
    went, in that order, for the output to tell the reader.
    """
    s = split(window)
    room = s.window - s.system - s.output
    memory = [min(m, s.memory_each) for m in memory[:s.memory_entries]]
    fit = Fit(code, len(memory), folders > 0)
    if code + sum(memory) + folders <= room:
        return fit
    if folders:
        fit.folders = False
        fit.dropped.append(f"folder context ({folders} tokens)")
    while fit.memory and code + sum(memory[:fit.memory]) > room:
        fit.memory -= 1
    if fit.memory < len(memory):
        fit.dropped.append(f"{len(memory) - fit.memory} of {len(memory)} memory entries")
    left = room - sum(memory[:fit.memory])
    if code > left:
        fit.code = left
        fit.dropped.append(f"code beyond {left} of {code} tokens")
    return fit


def cut_to(text: str, tokens: int, *, words: bool = False) -> str:
    """The longest start of `text` that fits in `tokens`, cut after a whole line (or word)."""
    out, used = [], 0
    for piece in (re.findall(r"\S+\s*", text) if words else text.splitlines(keepends=True)):
        cost = estimate(piece)
        if used + cost > tokens:
            break
        out.append(piece)
        used += cost
    return "".join(out)


def memory_entry(note: str) -> str:
    """A note as one memory entry: on one line, cut after a whole word to MEMORY_EACH tokens."""
    return cut_to(" ".join(note.split()), MEMORY_EACH, words=True)


def fit_lines(window: int, lines: list[str]) -> tuple[int, list[str]]:
    """How many of `lines`, from the first, fit the code share of `window`, and what had to go."""
    fit = can_fit(window, code=sum(estimate(line + "\n") for line in lines), memory=[], folders=0)
    if not fit.dropped:
        return len(lines), []
    return max(1, cut_to("".join(line + "\n" for line in lines), fit.code).count("\n")), fit.dropped
