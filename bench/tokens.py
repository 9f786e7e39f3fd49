"""How far `rt.budget.estimate` is from a real tokenizer, per kind of file.

The reference is the Claude tokenizer (`tokenizer.json`) that older releases of the `anthropic` SDK
shipped inside the package, run with the `tokenizers` library. Both are installed for this bench
only (never imported under `rt/`), into a folder of their own, with no hub download:

    pip download anthropic==0.34.2 --no-deps -d /tmp/tok
    unzip -o /tmp/tok/anthropic-0.34.2-py3-none-any.whl anthropic/tokenizer.json -d /tmp/tok
    pip install --target /tmp/tok/site tokenizers
    python3 bench/tokens.py --tokenizer /tmp/tok/anthropic/tokenizer.json --site /tmp/tok/site DIR [DIR ...]

It reads every text file of the listed folders (up to --per-kind files of each extension), and prints
per extension: files, real tokens, the estimate's total as a share of the real one, and the mean and
90th-percentile absolute error per file.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rt.budget import estimate  # noqa: E402

KINDS = (".py", ".js", ".ts", ".tsx", ".vue", ".go", ".rs", ".json", ".md", ".yml", ".yaml", ".css", ".html")


def collect(dirs: list[Path], per_kind: int) -> dict[str, list[str]]:
    texts: dict[str, list[str]] = {}
    for d in dirs:
        for p in sorted(d.rglob("*")):
            if p.suffix not in KINDS or not p.is_file() or {"node_modules", ".git"} & set(p.relative_to(d).parts):
                continue
            if len(texts.setdefault(p.suffix, [])) >= per_kind or p.stat().st_size > 200_000:
                continue
            try:
                text = p.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            if text.strip():
                texts[p.suffix].append(text)
    return texts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--tokenizer", type=Path, required=True, help="a tokenizer.json")
    ap.add_argument("--site", type=Path, help="folder the `tokenizers` package was installed into")
    ap.add_argument("--per-kind", type=int, default=150)
    a = ap.parse_args()
    if a.site:
        sys.path.insert(0, str(a.site))
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(str(a.tokenizer))
    print("| kind | files | real tokens | estimate / real | mean abs error per file | p90 abs error |")
    print("|---|---|---|---|---|---|")
    all_real = all_est = 0
    all_errs: list[float] = []
    for kind, texts in sorted(collect(a.dirs, a.per_kind).items()):
        real = [len(tok.encode(t).ids) for t in texts]
        est = [estimate(t) for t in texts]
        errs = sorted(abs(e - r) / r for e, r in zip(est, real) if r)
        all_real += sum(real)
        all_est += sum(est)
        all_errs += errs
        print(f"| {kind} | {len(texts)} | {sum(real)} | {sum(est) / sum(real):.3f} | {statistics.mean(errs):.3f} | "
              f"{errs[int(0.9 * (len(errs) - 1))]:.3f} |")
    all_errs.sort()
    print(f"| all | {len(all_errs)} | {all_real} | {all_est / all_real:.3f} | {statistics.mean(all_errs):.3f} | "
          f"{all_errs[int(0.9 * (len(all_errs) - 1))]:.3f} |")
    print(f"| chars/4 (for comparison) | {len(all_errs)} | {all_real} | "
          f"{sum(len(t) for ts in collect(a.dirs, a.per_kind).values() for t in ts) / 4 / all_real:.3f} | | |")


if __name__ == "__main__":
    main()
