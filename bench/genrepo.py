"""Generate a deterministic synthetic repository of N files (default 20,000) for the benchmarks.

Mixed Python, TypeScript, Go and Markdown in nested packages, with imports between modules and a few
locale files, committed to git so `git status` has real work to do.

    python3 bench/genrepo.py DEST [--files 20000]
"""
from __future__ import annotations

import argparse
import os
import random
import subprocess
from pathlib import Path

WORDS = ("alpha beta gamma delta order invoice user account cart price total render button label "
         "session token cache index query parse format report export import client server route").split()


def generate(dest: Path, n: int, seed: int = 7) -> None:
    rng = random.Random(seed)
    dest.mkdir(parents=True, exist_ok=True)
    per_dir = 50
    names = []
    for i in range(n):
        d = f"pkg{i // (per_dir * 20)}/mod{(i // per_dir) % 20}"
        w1, w2 = rng.choice(WORDS), rng.choice(WORDS)
        kind = i % 10
        if kind < 5:
            rel = f"{d}/{w1}_{w2}_{i}.py"
            other = names[rng.randrange(len(names))] if names else None
            imp = f"from {other[:-3].replace('/', '.')} import {w2}_helper_{int(other.rsplit('_', 1)[1][:-3])}\n" if other and other.endswith(".py") else ""
            body = (f'"""{w1} {w2} module {i}."""\n{imp}\n\nclass {w1.title()}{w2.title()}{i}:\n'
                    f'    def {w1}_{w2}(self, value):\n        return value + {i}\n\n\n'
                    f'def {w2}_helper_{i}(x):\n    """Helper for {w1}."""\n    return x * {i % 13}\n')
        elif kind < 8:
            rel = f"{d}/{w1}{w2.title()}{i}.ts"
            body = (f"import {{ helper }} from './util';\n\nexport function {w1}{w2.title()}{i}(x: number): number {{\n"
                    f"  return helper(x) + {i};\n}}\n\nexport class {w2.title()}View{i} {{\n  render() {{ return '{w1} {w2}'; }}\n}}\n")
        elif kind < 9:
            rel = f"{d}/{w1}_{i}.go"
            body = f"package mod\n\n// {w1.title()}{i} does {w2}.\nfunc {w1.title()}{i}(x int) int {{\n\treturn x + {i}\n}}\n"
        else:
            rel = f"{d}/NOTES_{i}.md"
            body = f"# {w1} {w2}\n\nNotes about {w1} and {w2} number {i}.\n"
        p = dest / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(body)
        names.append(rel)
    for d in {os.path.dirname(n) for n in names if n.endswith(".ts")}:
        (dest / d / "util.ts").write_text("export function helper(x: number): number { return x * 2; }\n")
    (dest / "locales").mkdir(exist_ok=True)
    (dest / "locales" / "en.json").write_text('{"cart": {"checkout": "Proceed to checkout", "empty": "Your cart is empty"}}\n')
    env = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@b", GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@b")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "generated"]):
        subprocess.run(["git", *args], cwd=dest, env=env, check=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dest", type=Path)
    ap.add_argument("--files", type=int, default=20000)
    a = ap.parse_args()
    generate(a.dest, a.files)
    print(f"generated {a.files} files in {a.dest}")
