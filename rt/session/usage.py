"""`rt usage`: the tokens each task cost, read from Claude Code's transcripts of this repository's sessions.

Claude Code writes every model response into the session's JSONL transcript (subagents into
`<session>/subagents/agent-*.jsonl`), once per content block, each copy with the response's whole
usage; so calls are counted once per message id. A task's window runs from `rt start` to its move to
finished or blocked; a call belongs to the task whose window holds its time. The transcripts do not
hold everything: the compaction summariser's own call is never written there (only a
`compact_boundary` record), so it is counted as a compaction, and the client's running total
(`cost-state`), where present, shows how many tokens the records miss.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path

from rt import state
from rt.core import Result, UsageError
from rt.session.transcripts import files, recorded
from rt.store import Store

FIELDS = ("requests", "input", "output", "cache_read", "cache_write_5m", "cache_write_1h")


@dataclass
class Tally:
    """Token counts of some model calls. Hit ratio = cache reads / (input + cache reads + cache writes)."""
    requests: int = 0
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write_5m: int = 0
    cache_write_1h: int = 0

    def add(self, other: Tally) -> None:
        for name in FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    @property
    def cache_write(self) -> int:
        return self.cache_write_5m + self.cache_write_1h

    @property
    def tokens(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    @property
    def hit_ratio(self) -> float | None:
        prompt = self.input + self.cache_read + self.cache_write
        return self.cache_read / prompt if prompt else None

    def data(self) -> dict:
        return asdict(self) | {"cache_write": self.cache_write, "tokens": self.tokens, "hit_ratio": self.hit_ratio}


@dataclass
class Call:
    id: str
    model: str
    at: float
    tally: Tally


@dataclass
class Session:
    id: str
    calls: list[Call] = field(default_factory=list)
    compactions: dict[str, float] = field(default_factory=dict)   # each compact_boundary record's uuid -> its time
    client: Tally | None = None     # the client's own running total (last cost-state), when written
    missing: bool = False           # the recorded transcript is gone


def _time(stamp) -> float | None:
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except (AttributeError, ValueError):
        return None


def _count(value) -> int:
    """A token count as a transcript should hold it, a whole number from 0 to a trillion; anything else (a
    string, NaN, a negative or absurd number: a damaged or foreign line) counts 0."""
    return value if type(value) is int and 0 <= value < 10**12 else 0


def _tally(usage: dict) -> Tally:
    split = usage.get("cache_creation")
    if isinstance(split, dict):
        five, hour = _count(split.get("ephemeral_5m_input_tokens")), _count(split.get("ephemeral_1h_input_tokens"))
    else:   # no split: the API's default lifetime, 5 minutes
        five, hour = _count(usage.get("cache_creation_input_tokens")), 0
    return Tally(1, _count(usage.get("input_tokens")), _count(usage.get("output_tokens")),
                 _count(usage.get("cache_read_input_tokens")), five, hour)


def read_session(session_id: str, transcript: str) -> Session:
    """The calls (one per message id), compactions and the client's running total of one session,
    its subagents' files included. Lines that are not JSON (a file being written) or not of the shape the client
    writes are skipped, and files that cannot be read: the figures never stop `rt finish`."""
    session = Session(session_id)
    paths = files(transcript)
    session.missing = not Path(transcript).is_file()
    calls: dict[str, Call] = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    _read_line(session, calls, line, path == paths[0] and not session.missing)
        except OSError:
            continue
    session.calls = sorted(calls.values(), key=lambda c: (c.at, c.id))
    return session


def _read_line(session: Session, calls: dict[str, Call], line: str, main: bool) -> None:
    """One transcript line into `session` (a compaction, the client's total) or `calls` (by message id)."""
    if '"assistant"' not in line and "compact_boundary" not in line and "cost-state" not in line:
        return
    try:
        rec = json.loads(line)
    except (ValueError, RecursionError):
        return
    if not isinstance(rec, dict):
        return
    kind = rec.get("type")
    if kind == "assistant":
        msg = rec.get("message")
        if not isinstance(msg, dict):
            return
        at, usage, mid, model = _time(rec.get("timestamp")), msg.get("usage"), msg.get("id"), msg.get("model")
        if isinstance(mid, str) and mid and isinstance(usage, dict) and at is not None and model != "<synthetic>":
            calls[mid] = Call(mid, model if isinstance(model, str) and model else "unknown", at, _tally(usage))
    elif kind == "system" and rec.get("subtype") == "compact_boundary":
        at = _time(rec.get("timestamp"))
        if at is not None:   # a fork repeats its source's records: one compaction, one key
            session.compactions[str(rec.get("uuid") or rec.get("timestamp"))] = at
    elif kind == "cost-state" and main:
        session.client = _client_total(rec)


def _client_total(rec: dict) -> Tally:
    total = Tally()
    usage = rec.get("modelUsage")
    for used in usage.values() if isinstance(usage, dict) else ():
        if isinstance(used, dict):
            total.add(Tally(0, _count(used.get("inputTokens")), _count(used.get("outputTokens")),
                            _count(used.get("cacheReadInputTokens")),
                            _count(used.get("cacheCreationEphemeral5mInputTokens", used.get("cacheCreationInputTokens"))),
                            _count(used.get("cacheCreationEphemeral1hInputTokens"))))
    return total


def sessions(store: Store) -> list[Session]:
    return [read_session(sid, path) for sid, path in recorded(store).items()]


def window(task: dict) -> tuple[float, float | None]:
    """From `rt start` to the move to finished or blocked (None: still open)."""
    end = next((h["at"] for h in task["history"] if h["to"] in ("finished", "blocked")), None)
    return task["created_at"], end


def _inside(at: float, span: tuple[float, float | None]) -> bool:
    return span[0] <= at and (span[1] is None or at < span[1])


@dataclass
class Usage:
    """One task's (or the calls outside any task) model calls, per model, and the compactions it saw."""
    models: dict[str, Tally] = field(default_factory=dict)
    compactions: int = 0

    @property
    def total(self) -> Tally:
        out = Tally()
        for t in self.models.values():
            out.add(t)
        return out

    def data(self) -> dict:
        return {"total": self.total.data(), "models": {m: t.data() for m, t in sorted(self.models.items())},
                "compactions": self.compactions}


def per_task(tasks: list[dict], found: list[Session]) -> tuple[dict[str, Usage], Usage]:
    """Each task's usage, and that of the calls outside every task's window."""
    spans = [(t["id"], window(t)) for t in tasks]
    out = {tid: Usage() for tid, _ in spans}
    outside = Usage()
    seen: set[str] = set()
    for session in found:
        for call in session.calls:
            if call.id in seen:   # a session copied into another (a fork) repeats its records
                continue
            seen.add(call.id)
            owner = next((out[tid] for tid, span in spans if _inside(call.at, span)), outside)
            owner.models.setdefault(call.model, Tally()).add(call.tally)
        for key, at in session.compactions.items():
            if "compact " + key not in seen:
                seen.add("compact " + key)
                next((out[tid] for tid, span in spans if _inside(at, span)), outside).compactions += 1
    return out, outside


def unseen(session: Session) -> Tally | None:
    """What the client's own running total holds beyond the session's records (the summariser's calls),
    or None when the transcript has no total or nothing is missing."""
    if session.client is None:
        return None
    seen = Tally()
    for call in session.calls:
        seen.add(call.tally)
    gap = Tally(0, *(max(0, getattr(session.client, f) - getattr(seen, f)) for f in FIELDS[1:]))
    return gap if gap.tokens else None


# ---------------------------------------------------------------- text

def _ratio(t: Tally) -> str:
    return "n/a" if t.hit_ratio is None else f"{t.hit_ratio:.0%}"


def effort(t: Tally) -> str:
    """`12 requests, 45,210 tokens, hit ratio 79%`."""
    return f"{t.requests} requests, {t.tokens:,} tokens, hit ratio {_ratio(t)}"


def detail(t: Tally) -> str:
    return (f"{t.requests} requests; input {t.input:,}, output {t.output:,}, cache reads {t.cache_read:,}, "
            f"cache writes {t.cache_write:,} (5m {t.cache_write_5m:,}, 1h {t.cache_write_1h:,}); hit ratio {_ratio(t)}")


def _block(name: str, usage: Usage) -> list[str]:
    lines = [f"{name}: {effort(usage.total)}"]
    lines += [f"  {model}: {detail(t)}" for model, t in sorted(usage.models.items())]
    if usage.compactions:
        lines.append(f"  {usage.compactions} compaction(s): the summariser's calls are not in the transcript, not counted")
    return lines


NO_SESSION = ("no Claude Code session recorded in this repository: rt's hooks record each session's transcript "
              "(`rt install`), so tokens are counted from the next session on")


def args_usage(p) -> None:
    p.add_argument("--task", metavar="ID", help="only this task")


def cmd_usage(ctx, args) -> Result:
    store = ctx.store
    tasks = state.all_tasks(store) if store.exists() else []
    if args.task:
        tasks = [t for t in tasks if t["id"] == args.task]
        if not tasks:
            raise UsageError(f"no task {args.task!r}; `rt tasks` lists them")
    found = sessions(store)
    if not found:
        return Result(NO_SESSION, {"sessions": [], "tasks": []})
    usage, outside = per_task(tasks, found)
    lines = [f"tokens per task, from {len(found)} recorded Claude Code session(s), each response counted once:"]
    for t in tasks:
        lines += _block(f"{t['id']} ({t['state']})", usage[t["id"]])
    if not args.task and (outside.models or outside.compactions):
        lines += _block("outside any task", outside)
    gone = [s for s in found if s.missing]
    gaps = [(s, g) for s in found if (g := unseen(s))]
    lines.append("not in the transcripts: the compaction summariser's calls (counted above as compactions)"
                 + "".join(f"; session {s.id[:8]}: the client's own total is {g.input:,} input and {g.output:,} output "
                           f"tokens above its records" for s, g in gaps))
    if gone:
        lines.append(f"{len(gone)} recorded transcript(s) no longer exist (`rt usage --json` names them)")
    paths = recorded(store)
    data = {"tasks": [{"id": t["id"], "state": t["state"]} | usage[t["id"]].data() for t in tasks],
            "outside": outside.data(),
            "sessions": [{"id": s.id, "transcript": paths[s.id], "missing": s.missing, "requests": len(s.calls),
                          "compactions": len(s.compactions), "unseen": g.data() if (g := unseen(s)) else None}
                         for s in found]}
    return Result("\n".join(lines), data)


def effort_line(store: Store, task: dict) -> str:
    """One line for the final report: the task's requests, tokens and hit ratio, and its fix attempts."""
    from rt.session.runs import failed_verifies, load
    fixes = f"{failed_verifies(load(store, task))} fix attempt(s) (failed verify runs)"
    found = sessions(store)
    if not found:
        return f"effort: {fixes}; tokens not known (no Claude Code session recorded here)"
    usage = per_task([task], found)[0][task["id"]]
    unseen_ = f", {usage.compactions} compaction(s) not counted" if usage.compactions else ""
    return f"effort: {effort(usage.total)}{unseen_}, {fixes}"
