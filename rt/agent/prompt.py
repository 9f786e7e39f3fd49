"""Fitting one call into the model's window with `budget.can_fit()`, the rule every call follows.

The system prompt and the step's own instructions take the window's system share; what they need beyond
it is paid from the code share. The answer keeps its reserve (sent as `max_tokens`). Then folder context,
memory entries and code are placed by `can_fit()`: folder context goes first, then memory, then code is
cut. So the estimate of what is sent plus the answer's reserve never exceeds the window.
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from rt import budget
from rt.agent.client import MESSAGE_OVERHEAD, Client, EndpointError
from rt.agent.config import Settings
from rt.agent.router import Decision, Router
from rt.core import UsageError


@dataclass
class Room:
    """What one call may carry: tokens of code, the memory entries and folder context kept, what went."""
    code: int
    memory: list[str]
    folders: str
    answer: int                      # max_tokens
    dropped: list[str] = field(default_factory=list)


def room(window: int, instructions: str, *, code: int, memory: list[str], folders: str) -> Room:
    """Share out `window` for a call whose fixed text is `instructions` (system prompt, task, format)."""
    share = budget.split(window)
    fixed = budget.estimate(instructions) + 2 * MESSAGE_OVERHEAD
    over = max(0, fixed - share.system)
    memory = [budget.memory_entry(m) for m in memory]
    fit = budget.can_fit(window, code=code + over, memory=[budget.estimate(f"- {m}\n") for m in memory],
                         folders=budget.estimate(folders) if folders else 0)
    if fit.code - over < min(code, budget.MIN_CODE // 2):
        raise UsageError(f"a {window}-token window cannot hold this call: its instructions take {fixed} tokens "
                         f"and the answer keeps {share.output}; give a larger --context or a shorter request")
    dropped = [d for d in fit.dropped if not d.startswith("code beyond")]
    if fit.code < code + over:
        dropped.append(f"code beyond {fit.code - over} of {code} tokens")
    return Room(fit.code - over, memory[:fit.memory], folders if fit.folders else "", share.output, dropped)


def sent(messages: list[dict]) -> int:
    """The estimated tokens of the messages as sent."""
    return sum(budget.estimate(m["content"]) + MESSAGE_OVERHEAD for m in messages)


def within(window: int, r: Room, build: Callable[[int], list[dict]]) -> list[dict]:
    """The messages `build(code_tokens)` makes, its code cut further while the whole call (the estimate of
    the text as joined, which can differ from the sum of its parts by a few tokens) and the answer's
    reserve would exceed the window."""
    limit = r.code
    while True:
        messages = build(limit)
        excess = sent(messages) + r.answer - window
        if excess <= 0 or limit <= 0:
            return messages
        limit = max(0, limit - excess)


@dataclass(frozen=True)
class Call:
    """One model call, as the report shows it."""
    order: tuple                     # ("planner", 0, attempt) or ("task", position, attempt): the report's order
    who: str
    tier: str
    reasons: tuple[str, ...]
    model: str
    sent: int                        # estimated tokens sent
    reported: int | None             # prompt tokens as the endpoint counted them
    answer: int                      # tokens kept for the answer (max_tokens)
    window: int
    dropped: tuple[str, ...]
    error: str = ""


class Caller:
    """Makes the run's calls: routes each step (in plan order, so hysteresis is deterministic), sends it to the
    tier's model, and keeps a record of every call, also from parallel executor threads."""

    def __init__(self, client: Client, settings: Settings, router: Router):
        self.client, self.settings, self.router = client, settings, router
        self.window = settings.context
        self.calls: list[Call] = []
        self.routed = 0
        self._lock = threading.Lock()

    def route(self, text: str, *, read_only: bool = False, chars: int = 0) -> Decision:
        """The tier of the next step (called from one thread, in plan order); the conversation so far is
        two messages, a request and an answer, per step routed before."""
        decision = self.router.route(text, read_only=read_only, chars=chars, messages=2 * self.routed)
        self.routed += 1
        return decision

    def ask(self, who: str, order: tuple, decision: Decision, messages: list[dict], r: Room) -> str:
        model = self.settings.models[decision.tier]
        record = dict(order=order, who=who, tier=decision.tier, reasons=decision.reasons, model=model,
                      sent=sent(messages), answer=r.answer, window=self.window, dropped=tuple(r.dropped))
        try:
            reply = self.client.chat(model, messages, r.answer)
        except EndpointError as e:
            self._keep(Call(**record, reported=None, error=str(e)))
            raise
        self._keep(Call(**record, reported=reply.prompt_tokens))
        return reply.text

    def _keep(self, call: Call) -> None:
        with self._lock:
            self.calls.append(call)
