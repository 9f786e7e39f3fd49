"""Okapi BM25 over short documents, and the tokenizer every ranking in rt shares.

Identifiers are split the way people write them: `parseHTTPRequest`, `parse_http_request` and
`parse-http-request` all give `parse http request`.
"""
from __future__ import annotations

import math
import re
from collections import Counter

_WORD = re.compile(r"[A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def tokens(text: str) -> list[str]:
    """Lower-case word pieces of `text`, identifiers split at case changes and separators."""
    out = []
    for word in _WORD.findall(text):
        parts = _CAMEL.findall(word)
        out.extend(p.lower() for p in parts)
        if len(parts) > 1:
            out.append(word.lower())  # the whole identifier too, so exact names rank first
    return out


class BM25:
    """Rank documents (lists of tokens) against a query; k1 and b are the usual defaults."""

    def __init__(self, docs: list[list[str]], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.tfs = [Counter(d) for d in docs]
        self.lens = [len(d) for d in docs]
        self.avg = (sum(self.lens) / len(docs)) if docs else 0.0
        df: Counter = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def score(self, query: list[str], i: int) -> float:
        tf, length, s = self.tfs[i], self.lens[i], 0.0
        for t in set(query):
            f = tf.get(t)
            if f:
                s += self.idf[t] * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * length / (self.avg or 1)))
        return s

    def rank(self, query: list[str]) -> list[tuple[int, float]]:
        """(document index, score) for every document that matches, best first, ties by index."""
        scored = [(i, self.score(query, i)) for i in range(len(self.tfs))]
        return sorted([x for x in scored if x[1] > 0], key=lambda x: (-x[1], x[0]))
