"""A prompt-cache model for the fake API: each answer's usage priced from the request the client really sent.

The Messages API caches a request's prefix (tools, then system, then messages, block by block) at the
blocks the client marks with `cache_control`; a later request whose prefix up to such a mark is
byte-identical reads it from the cache. This model does the same with exact bytes: a request reads
the longest prefix some earlier request wrote at one of its marks, writes every mark after that, and
pays plain input for what follows its last mark. Tokens are characters / 4 (an estimate, the same for
every scenario); entries do not expire (a bench session lasts well under the 5-minute lifetime) and the
API's 20-block look-back is not modelled (any earlier mark may be read). So a
hit ratio measured through it says how much of each request repeated an earlier one byte for byte.
"""
from __future__ import annotations

import hashlib
import json


BILLING = "x-anthropic-billing-header:"
"""Client 2.1.332 opens `system` with a block `x-anthropic-billing-header: cc_version=2.1.332.<3 hex>; ...`
whose suffix changes with the conversation's first message (so after every compaction). Taken for what
its name says, a header the API reads off, it is left out of the cached prefix here (an assumption: the
real API's handling of it was not observable offline)."""


def _blocks(body: dict) -> list[dict]:
    """The request's blocks in cache order: every tool, every system block, every message's content block."""
    out = list(body.get("tools") or [])
    system = body.get("system") or []
    out += [{"type": "text", "text": system}] if isinstance(system, str) else \
        [b for b in system if not str(b.get("text", "")).startswith(BILLING)]
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):   # the same as one text block, as the API reads it
            out.append({"type": "text", "text": content, "role": message.get("role")})
        else:
            out += [dict(b, role=message.get("role")) for b in content or []]
    return out


class PromptCache:
    """`usage=PromptCache()` for `run_claude`/`FakeAPI`; one instance for the runs of one session."""

    def __init__(self) -> None:
        self.written: dict[str, int] = {}   # prefix digest -> its tokens
        self.answers: list[dict] = []       # every usage given, in order (the API's own account)

    def __call__(self, body: dict, blocks: list[dict]) -> dict:
        digest = hashlib.sha256()
        chars, marks, hits = 0, [], []
        for block in _blocks(body):
            mark = block.get("cache_control") if isinstance(block, dict) else None
            content = {k: v for k, v in block.items() if k != "cache_control"}   # the mark is no part of the prefix
            digest.update(json.dumps(content, sort_keys=True).encode())
            chars += len(json.dumps(content, ensure_ascii=False))
            tokens = chars // 4
            key = digest.hexdigest()
            if key in self.written:
                hits.append(tokens)
            if mark:
                marks.append((key, tokens, "1h" if mark.get("ttl") == "1h" else "5m"))
        total = chars // 4
        # the cache is looked up at the request's own marks (and before them), never past its last one
        read = max((t for t in hits if marks and t <= marks[-1][1]), default=0)
        write = {"5m": 0, "1h": 0}
        edge = read
        for key, tokens, ttl in marks:
            if tokens > edge:
                write[ttl] += tokens - edge
                edge = tokens
            self.written.setdefault(key, tokens)
        usage = {"input_tokens": max(total - edge, 1), "output_tokens": max(len(json.dumps(blocks)) // 4, 1),
                 "cache_read_input_tokens": read, "cache_creation_input_tokens": write["5m"] + write["1h"],
                 "cache_creation": {"ephemeral_5m_input_tokens": write["5m"], "ephemeral_1h_input_tokens": write["1h"]}}
        self.answers.append(usage)
        return usage
