"""Commits usable as localisation tasks: the message is the task, the changed non-test source files the answer."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from rt.pack.rank import CODE_LANGS, is_test
from rt.index.langs import language

MAX_SOURCE_FILES = 5
_TRAILER = re.compile(r"^(co-authored-by|signed-off-by|reviewed-by|change-id|cc):", re.IGNORECASE)


def is_source(path: str) -> bool:
    return language(path) in CODE_LANGS and not is_test(path)


def task_text(message: str) -> str:
    """The commit message without trailers and pull-request numbers: what a person asked for."""
    lines = [line for line in message.splitlines() if not _TRAILER.match(line.strip())]
    return re.sub(r"\(#\d+\)|#\d+", " ", "\n".join(lines)).strip()


def eligible_commits(clone: Path, n: int, window: int) -> list[dict]:
    """`n` commits spread evenly over the newest `window` eligible ones, newest first.

    History is read from the cloned repository's tip (`origin/HEAD`), wherever the scratch checkout is.
    """
    out = subprocess.run(["git", "log", "origin/HEAD", "--no-merges", "--first-parent", "-M", "--name-status",
                          "--format=%x1e%H %P%x1f%B%x1f"], cwd=clone, capture_output=True, text=True,
                         errors="replace", check=True).stdout
    found = []
    for order, record in enumerate(out.split("\x1e")[1:]):
        head, message, changes = record.split("\x1f", 2)
        shas = head.split()
        if len(shas) != 2 or not task_text(message):
            continue
        touched, answer = set(), set()
        for line in changes.strip().splitlines():
            parts = line.split("\t")
            status, paths = parts[0], parts[1:]
            for p in paths:
                if is_source(p):
                    touched.add(p)
            if status[0] in "MDR" and is_source(paths[0]):   # modified, deleted, or renamed from
                answer.add(paths[0])
        if answer and len(touched) <= MAX_SOURCE_FILES:
            found.append({"sha": shas[0], "parent": shas[1], "message": message.strip(),
                          "answer": sorted(answer), "order": -order})
        if len(found) >= window:
            break
    step = max(1, len(found) // n)
    return found[::step][:n]
