"""How `parse_task` (rt/pack/rank.py) grows with task text shaped to make its patterns backtrack: blank lines before
a kind prefix, hyphen, dot and digit runs, one long word, a list of bare codes, opened image markup, and with plain
prose beside them. CPU seconds per size; a size twice the last taking four times as long is quadratic. Run it with
another checkout first on PYTHONPATH to time that one (`PYTHONPATH=OLD python3 bench/task_text.py`).

    python3 bench/task_text.py [--sizes 4000,8000,16000]
"""
from __future__ import annotations

import argparse
import time

from rt.pack.rank import parse_task

SHAPES = {
    "blank lines": lambda n: "x" + "\n" * (n - 2) + "x",
    "space, line break": lambda n: ("x" + " \n" * n)[:n - 1] + "x",
    "1-1-1-": lambda n: ("1-" * n)[:n],
    "a-a-a-": lambda n: ("a-" * n)[:n],
    "1.1.1.": lambda n: ("1." * n)[:n],
    "one long word": lambda n: "a" * n,
    "ab,ab,ab,": lambda n: ("ab," * n)[:n],
    "![![![": lambda n: ("![" * n)[:n],
    "prose": lambda n: ("Fix the save button so the draft is kept when the user leaves the page. " * n)[:n],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="4000,8000,16000")
    sizes = [int(s) for s in ap.parse_args().sizes.split(",")]
    print("| shape | " + " | ".join(f"{n:,} chars" for n in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for name, make in SHAPES.items():
        row = []
        for n in sizes:
            text = make(n)
            start = time.process_time()
            parse_task(text, lambda word: False)
            row.append(f"{time.process_time() - start:.3f} s")
        print(f"| {name} | " + " | ".join(row) + " |", flush=True)


if __name__ == "__main__":
    main()
