"""The model router (seed 001): which tier, `fast`, `balanced` or `powerful`, a call deserves, and why.

The raw tier of one step: `powerful` when its text names complex work (a keyword or phrase of the list,
whole words, any case, with their -s/-ed/-ing forms) or it carries more than LARGE characters of file
content or tool output; `fast` for a read-only step while the conversation is short (under
SHORT_CONVERSATION messages: in a long one a read-only step is a step of the larger task); `balanced`
otherwise. Then hysteresis: right after a `powerful` call a raw `fast` becomes `balanced`, so a
verification read in the middle of a refactor does not drop to the cheap model; the next raw `fast`
is `fast` again. `rt route` prints the decision; `rt agent` routes every call through the same class.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from rt.agent import config
from rt.core import Result, UsageError

ORIGINAL = ("refactor", "debug", "architect")
"""The old classifier's escalation words, as the seed names them."""

FAMILIES = {
    "performance": ("optimize", "performance", "memory leak", "race condition", "deadlock", "bottleneck",
                    "latency", "throughput", "concurrency"),
    "debugging": ("investigate", "diagnose", "troubleshoot", "root cause", "stack trace", "regression",
                  "intermittent", "flaky", "bisect"),
    "architecture": ("design pattern", "dependency injection", "decouple", "architecture", "abstraction",
                     "restructure", "modularize", "separation of concerns", "migrate"),
    "scope": ("implement from scratch", "build a system", "from the ground up", "end-to-end",
              "across the codebase", "rewrite", "overhaul", "multiple files"),
}
"""35 terms in the seed's four families (its twelve examples first in each), plus ORIGINAL."""

KEYWORDS = ORIGINAL + tuple(t for terms in FAMILIES.values() for t in terms)
FAMILY = {t: "original" for t in ORIGINAL} | {t: f for f, terms in FAMILIES.items() for t in terms}

LARGE = 5000
"""File content or tool output longer than this (characters) makes a step `powerful`."""
SHORT_CONVERSATION = 10
"""A read-only step is downgraded to `fast` only while the conversation has fewer messages than this."""

_ENDINGS = "(?:s|es|d|ed|ing|er|ers|ion|ions|ation|ations)?"


def _pattern(term: str) -> re.Pattern:
    """A term as whole words, any case, words joined by spaces or hyphens, the last with its usual endings
    (`refactoring`, `optimized`, `debugging`, `decoupling`)."""
    words = [w for w in re.split(r"[\s-]+", term.strip().lower()) if w]
    last = words[-1]
    stem = last[:-1] if last.endswith("e") and len(last) > 3 else last
    tail = f"{re.escape(stem)}(?:e)?(?:{re.escape(last[-1])})?{_ENDINGS}"
    body = r"[\s-]+".join([re.escape(w) for w in words[:-1]] + [tail])
    return re.compile(rf"(?<![\w-]){body}(?![\w-])", re.IGNORECASE)


@dataclass(frozen=True)
class Decision:
    tier: str
    raw: str                     # before hysteresis
    reasons: tuple[str, ...]


class Router:
    """Routes the steps of one conversation in order; remembers the last tier for hysteresis."""

    def __init__(self, keywords: tuple[str, ...] = KEYWORDS):
        self.terms = [(t, _pattern(t)) for t in keywords]
        self.previous: str | None = None

    def matches(self, text: str) -> list[str]:
        return [t for t, rx in self.terms if rx.search(text)]

    def raw(self, text: str, *, read_only: bool = False, chars: int = 0, messages: int = 0) -> tuple[str, list[str]]:
        found = self.matches(text)
        why = []
        if found:
            why.append("keyword" + ("s" if len(found) > 1 else "") + ": "
                       + ", ".join(f"{t} ({FAMILY.get(t, 'configured')})" for t in found))
        if chars > LARGE:
            why.append(f"{chars} characters of file content or tool output (over {LARGE})")
        if why:
            return "powerful", why
        if read_only and messages < SHORT_CONVERSATION:
            return "fast", [f"read-only step, short conversation ({messages} messages, under {SHORT_CONVERSATION})"]
        if read_only:
            return "balanced", [f"read-only step, but {messages} messages into the conversation "
                                f"({SHORT_CONVERSATION} or more): a step of a larger task, not downgraded"]
        return "balanced", ["no keyword, not read-only"]

    def route(self, text: str, *, read_only: bool = False, chars: int = 0, messages: int = 0) -> Decision:
        raw, why = self.raw(text, read_only=read_only, chars=chars, messages=messages)
        tier = raw
        if raw == "fast" and self.previous == "powerful":
            tier = "balanced"
            why.append("after a powerful call, fast is damped to balanced (hysteresis)")
        self.previous = tier
        return Decision(tier, raw, tuple(why))


def keywords(repo) -> tuple[str, ...]:
    """rt.toml's `[agent] keywords` when set (they replace the list), else KEYWORDS."""
    return tuple(config.table(repo).get("keywords") or KEYWORDS)


# ---------------------------------------------------------------- rt route

def args_route(p) -> None:
    p.add_argument("text", help="the message or task to route")
    p.add_argument("--explain", action="store_true", help="say why: the keywords found and the rules that applied")
    p.add_argument("--read-only", action="store_true", help="the step only reads (a search, a question, a check)")
    p.add_argument("--chars", type=int, default=0, metavar="N", help="characters of file content or tool output it carries")
    p.add_argument("--messages", type=int, default=0, metavar="N", help="messages in the conversation so far")
    p.add_argument("--after", choices=config.TIERS, help="the tier of the previous step (for hysteresis)")


def cmd_route(ctx, args) -> Result:
    if args.chars < 0 or args.messages < 0:
        raise UsageError("--chars and --messages count something: give 0 or more")
    router = Router(keywords(ctx.repo))
    router.previous = args.after
    d = router.route(args.text, read_only=args.read_only, chars=args.chars, messages=args.messages)
    text = d.tier + ("".join(f"\n- {r}" for r in d.reasons) if args.explain else "")
    return Result(text, {"tier": d.tier, "raw": d.raw, "reasons": list(d.reasons), "keywords": router.matches(args.text)})
