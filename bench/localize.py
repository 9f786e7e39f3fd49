"""Localisation quality on real history: does `rt pack` find, and show, the code a real commit changed?

For each sampled commit of a repository, the commit's message is the task (trailers and PR numbers
stripped) and the answer is what `bench/localize_history.py` says: the non-test source files it
modified, and the English locale file when it touched that. The parent is checked out in a scratch
clone and judged two ways over the same files (rt's index), in the same run:

- rt: `rt pack`'s ranked list and the fragments of code its pack holds;
- BM25 over whole file contents plus paths (rt's tokenizer, all task words), and a BM25 pack: the
  30-line best-scoring window of each file in BM25 order until the pack's character budget is full.

Per task: recall@1/5/10 of the ranked list; whether each answer file's code is in the pack (a
fragment of it, not its path named); the share of the commit's edited lines (from its diff against
the parent) that the pack's fragments hold; the pack's size and whether it is over budget; time. Per
answer file, the edited lines held, so the report says where the missed ones are: in files given code
(other fragments would hold them) or in the others (the ranking's miss).
Results are grouped per set and language group (python, go, rust, ts-web) and for locale tasks
(commits touching the English locale file), also per repository. An even sample holds few locale
tasks, so --locale-commits more are sampled evenly from those alone; they count for the locale group
only, never for a language group or a repository's row.

Repositories and split, fixed before any tuning (the TUNE set is where ranking changes may be
tried; figures that count are the HELD-OUT set's). Nothing is tuned per repository.

    TUNE      encode/httpx (python), junegunn/fzf, gofiber/fiber, labstack/echo, traefik/traefik,
              prometheus/prometheus (go; the last four added later, Go servers and libraries like caddy),
              sharkdp/bat (rust), excalidraw/excalidraw, louislam/uptime-kuma, documenso/documenso
              (ts-web; the last added later, a Next.js app with a lingui `en/web.po`), usememos/memos,
              mealie-recipes/mealie, jellyfin/jellyfin-web, Kareadita/Kavita, linkwarden/linkwarden (ts-web,
              added later: web apps with an English locale file and a Go, Python or C# server beside some),
              gogs/gogs (go, added later: Go templates and an INI locale file)
    HELD-OUT  pallets/click (python), caddyserver/caddy (go), BurntSushi/ripgrep (rust),
              outline/outline, hoppscotch/hoppscotch, toeverything/AFFiNE (ts-web; AFFiNE the monorepo)

Reproduce: fetch each repository (`fetch github:owner/name`; the tool prints its git directory under
/work/.mirror/), then

    python3 bench/localize.py [GIT_DIR ...] [--commits 60] [--locale-commits 20] [--quick] [--json OUT]
    python3 bench/localize.py --report OUT [OUT ...] [--misses N]   # the tables (and rt's worst misses) again
    python3 bench/localize.py [GIT_DIR ...] --pin OUT --json OUT2    # another rt on the same tasks as OUT

With no GIT_DIR, every repository above is read from /work/.mirror/owner+name/repo. History is read
from the tip commit recorded in REPOS (so a newer snapshot gives the same tasks); a git directory
without that commit is refused unless --any-tip. Fetched code is cloned into --work, never committed.
A full run samples 60 tasks (and 20 more locale tasks) per repository; --quick a quarter of that, about 17
minutes for the first 21 repositories on this machine (1,033 s, two runs side by side on two cores).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.localize_history import RT, edited_lines, eligible_commits, is_test, task_text  # noqa: E402

REPOS = {
    "encode/httpx": ("python", "tune", "ae1b9f66238f75ced3ced5e4485408435de10768"),
    "junegunn/fzf": ("go", "tune", "956562daaa82ddf55ea8f7aeab56883377b742c6"),
    "gofiber/fiber": ("go", "tune", "c344047e102861ac2b7f0259ea3dd3af4b03ad63"),
    "labstack/echo": ("go", "tune", "05489dc1730161df26b72d1ae2a3ba6fb8178fc7"),
    "traefik/traefik": ("go", "tune", "fd5a576df2e8aeb0bfc8a96b6ef6e60a61f7ec0a"),
    "prometheus/prometheus": ("go", "tune", "d15adb9ad7e5d9fbde3a9a8f30200593a5a14d86"),
    "sharkdp/bat": ("rust", "tune", "2ba8db9c14e5794572f5ea338c2b90404c9769cb"),
    "excalidraw/excalidraw": ("ts-web", "tune", "4872083c044491b6d5c96ae134a75464f96d6831"),
    "louislam/uptime-kuma": ("ts-web", "tune", "6398a9581d1c3c427a7536559f47ccf45dac08b4"),
    "documenso/documenso": ("ts-web", "tune", "75330166cc00b29c14399bc2e391e4b4d8080c00"),
    "usememos/memos": ("ts-web", "tune", "76a762924306e782871204f131f4033be5e8e41a"),
    "mealie-recipes/mealie": ("ts-web", "tune", "b5643a9399465d8b4ea339e7a6639df2d697741b"),
    "jellyfin/jellyfin-web": ("ts-web", "tune", "f330b7bc8b6fc9c0d937659919fa82a9564e2ec0"),
    "Kareadita/Kavita": ("ts-web", "tune", "ed7e9d4a6e85c2ec04803ca86fb3d2b5ca15581a"),
    "linkwarden/linkwarden": ("ts-web", "tune", "7550ebb8907e0cd22e8b3e0785bf3da03ab96e3a"),
    "gogs/gogs": ("go", "tune", "eb1054e5432fc8397678372f08613429be233d7c"),
    "pallets/click": ("python", "held-out", "2c8cd3ac958a7eb316d67f2d316c27086c4c0369"),
    "caddyserver/caddy": ("go", "held-out", "0cf03d32f7d99cf160d5375e8a40fbe3d910d515"),
    "BurntSushi/ripgrep": ("rust", "held-out", "3fce3b5bb0236da2df6d99672afb8a719642eca7"),
    "outline/outline": ("ts-web", "held-out", "d77dcdf853868c5d5fe125c895c9b71f0eff5c68"),
    "hoppscotch/hoppscotch": ("ts-web", "held-out", "afc2cf181c16e56647b099e5d18cfe55710c6cdd"),
    "toeverything/AFFiNE": ("ts-web", "held-out", "10963da706358355a1ec3e6ffbf8e0ee8b4800e3"),
}
GROUPS = ("python", "go", "rust", "ts-web", "locale")
KS = (1, 5, 10)
WINDOW = 30
RANKERS = {"rt": "rt pack", "inject": "rt /runtask injection", "bm25": "BM25 (content + paths)",
           "oracle": "rt pack, answer files ranked first (a bound)", "alone": "rt pack, the answer files alone (a bound)"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
                          errors="replace").stdout


def repo_name(git_dir: Path) -> str:
    """`owner/name` from a fetched git directory (/work/.mirror/owner+name/repo)."""
    return git_dir.parent.name.replace("+", "/", 1)


def scratch_clone(git_dir: Path, work: Path) -> Path:
    dest = work / git_dir.parent.name
    if not (dest / ".git").is_dir():
        work.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(git_dir), str(dest)], check=True)
    git(dest, "config", "core.sparseCheckout", "true")   # see checkout()
    return dest


def checkout(clone: Path, commit: str) -> dict[str, str]:
    """Check `commit` out clean and return its blob id per path.

    A fetched snapshot lacks files of 4 MiB and more (fonts, archives, lock files): those are left out of
    the checkout and of git's index, so the tree looks as if they were never there.
    """
    blobs = {}
    for line in git(clone, "-c", "core.quotePath=false", "ls-tree", "-r", "-z", commit).split("\0"):
        meta, _, path = line.partition("\t")
        if meta.split()[1:2] == ["blob"]:
            blobs[path] = meta.split()[2]
    check = subprocess.run(["git", "cat-file", "--batch-check=%(objectname)"], cwd=clone, capture_output=True,
                           text=True, input="\n".join(blobs.values()) + "\n").stdout
    gone = {line.split()[0] for line in check.splitlines() if line.endswith(" missing")}
    missing = sorted(p for p, b in blobs.items() if b in gone)
    (clone / ".git/info").mkdir(exist_ok=True)
    (clone / ".git/info/sparse-checkout").write_text("/*\n" + "".join(f"!/{p}\n" for p in missing))
    git(clone, "checkout", "-q", "-f", commit)
    git(clone, "clean", "-q", "-fd")
    if missing:
        git(clone, "update-index", "--force-remove", "--", *missing)
    return {p: b for p, b in blobs.items() if b not in gone}


# ---------------------------------------------------------------- the BM25 baseline

class Baseline:
    """BM25 over each file's path and contents, tokens cached per blob so a checkout re-reads only what changed."""

    def __init__(self):
        self.cache: dict[str, tuple[dict, int]] = {}   # blob id -> (term counts, length)

    def load(self, clone: Path, commit: str, paths: list[str], blobs: dict[str, str]) -> None:
        self.paths, tfs, lens = [], [], []
        for p in paths:
            key = blobs.get(p) or f"{p}@{commit}"
            if key not in self.cache:
                toks = RT.tokens(p) + RT.tokens((clone / p).read_text(errors="replace"))
                counts: dict[str, int] = {}
                for t in toks:
                    counts[t] = counts.get(t, 0) + 1
                self.cache[key] = (counts, len(toks))
            counts, n = self.cache[key]
            self.paths.append(p)
            tfs.append(counts)
            lens.append(n)
        bm = RT.BM25([])
        bm.tfs, bm.lens, bm.avg = tfs, lens, (sum(lens) / len(lens)) if lens else 0.0
        df: dict[str, int] = {}
        for tf in tfs:
            for t in tf:
                df[t] = df.get(t, 0) + 1
        bm.idf = {t: math.log(1 + (len(tfs) - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self.bm = bm

    def rank(self, query: list[str]) -> list[str]:
        return [self.paths[i] for i, _ in self.bm.rank(query)]

    def pack(self, clone: Path, text: str, query: list[str], ranked: list[str]) -> tuple[int, list[dict]]:
        """(characters, fragments) of the BM25 pack: each ranked file's best window while the budget lasts,
        the last one cut after a whole line, rendered as rt renders a fragment."""
        used = len(f"# Task pack\ntask: {text[:300]}\n\n## Code\n")
        frags = []
        for path in ranked:
            lines = (clone / path).read_text(errors="replace").splitlines(keepends=True)
            if not lines:
                continue
            a = self.best_window(lines, set(query))
            body = [line if line.endswith("\n") else line + "\n" for line in lines[a - 1:a - 1 + WINDOW]]
            head = f"### {path} (partial: lines {a}-{a + len(body) - 1} of {len(lines)}; best window)\n```\n"
            room = RT.PACK_CHARS - used - len(head) - len("```\n\n")
            keep = 0
            while keep < len(body) and len(body[keep]) <= room:
                room -= len(body[keep])
                keep += 1
            if keep:
                frags.append({"path": path, "start": a, "end": a + keep - 1})
                used += len(head) + sum(map(len, body[:keep])) + len("```\n\n")
            if keep < len(body):
                break
        return used, frags

    def best_window(self, lines: list[str], query: set[str]) -> int:
        """First line of the WINDOW lines scoring best: each task word's idf, saturating with its count."""
        per_line = [[t for t in RT.tokens(line) if t in query] for line in lines]
        counts: dict[str, int] = {}
        best, best_at = -1.0, 1

        def score() -> float:
            return sum(self.bm.idf.get(t, 0.0) * c / (c + self.bm.k1) for t, c in counts.items() if c)
        for i, hits in enumerate(per_line):
            for t in hits:
                counts[t] = counts.get(t, 0) + 1
            if i >= WINDOW:
                for t in per_line[i - WINDOW]:
                    counts[t] -= 1
            if i >= min(WINDOW, len(lines)) - 1:
                s = score()
                if s > best:
                    best, best_at = s, max(1, i - WINDOW + 2)
        return best_at


# ---------------------------------------------------------------- judging one task

def numbered(text: str) -> list[dict]:
    """The code an injection shows, as fragments: its runs of lines numbered as Read numbers them."""
    out: list[dict] = []
    path = None
    for line in text.splitlines():
        head = re.match(r"### (\S+) \d+-\d+ of \d+", line)
        if head:
            path = head.group(1)
            continue
        m = re.match(r"(\d+)\t", line)
        if m and path:
            n = int(m.group(1))
            if out and out[-1]["path"] == path and out[-1]["end"] == n - 1:
                out[-1]["end"] = n
            else:
                out.append({"path": path, "start": n, "end": n})
        elif not line.strip() or line.startswith("## "):
            path = None
    return out


def read_lines(text: str) -> dict[str, list[dict]]:
    """The places an injection gives as `Read path offset=N limit=M` lines, by the section they are in."""
    out: dict[str, list[dict]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
        m = re.match(r"Read (\S+) offset=(\d+) limit=(\d+)", line)
        if m:
            start = int(m.group(2))
            out.setdefault(section, []).append({"path": m.group(1), "start": start, "end": start + int(m.group(3)) - 1,
                                                "chars": len(line) + 1})
    return out


def changed_tests(clone: Path, parent: str, sha: str) -> list[str]:
    """The test files a commit changed (`localize_history.is_test`), which the answer leaves out."""
    out = subprocess.run(["git", "diff", "--name-only", "--no-renames", parent, sha], cwd=clone, capture_output=True,
                         text=True, check=True).stdout
    return sorted(p for p in out.splitlines() if is_test(p))


def named_tests(text: str) -> list[str]:
    """The test files an injection names: as numbered code under a `### path` heading or on a Read line."""
    named = re.findall(r"^### (\S+) \d+-\d+ of \d+: ", text, re.MULTILINE) + re.findall(r"^Read (\S+) offset=", text, re.MULTILINE)
    return sorted({p for p in named if is_test(p)})


def test_lines(results: list[dict]) -> str:
    """For tasks whose commit changed a test file: how often the injection names one of those files (as code or
    as a Read line), and how many test files it names in all."""
    out = []
    for which, group, rows in grouped(results):
        tested = [r["inject"]["tests"] for r in rows if r["inject"].get("tests", {}).get("changed")]
        if tested:
            hit = sum(bool(set(t["changed"]) & set(t["named"])) for t in tested)
            named = sum(len(t["named"]) for t in tested)
            out.append(f"{which} {group}, rt /runtask injection: of {len(tested)} tasks whose commit changed a test "
                       f"file, {hit} name one of those files; {named} test files named in all")
    return "\n".join(out)


def located(text: str, edits: dict) -> dict:
    """Per section of Read lines: their characters, and whether they point at an edited line."""
    return {section: {"chars": sum(r["chars"] for r in reads),
                      "hit": any(a <= n <= b for r in reads for p, spans in edits.items() if p == r["path"]
                                 for a, b in spans for n in range(r["start"], r["end"] + 1))}
            for section, reads in read_lines(text).items()}


def judge(ranked: list[str], frags: list[dict], chars: int, answer: list[str], edits: dict, sizes: dict,
          budget: int | None = None) -> dict:
    """Recall@k, code of each answer file in the pack, share of edited lines the fragments hold, size
    (over `budget`, the pack's by default)."""
    shown: dict[str, set[int]] = {}
    for f in frags:
        shown.setdefault(f["path"], set()).update(range(f["start"], f["end"] + 1))
    wanted = {(p, n) for p, spans in edits.items() for a, b in spans
              for n in range(max(1, min(a, sizes[p])), max(1, min(b, sizes[p])) + 1)}
    out = {f"r@{k}": len(set(answer) & set(ranked[:k])) / len(answer) for k in KS}
    out["code"] = sum(p in shown for p in answer) / len(answer)
    out["all_code"] = all(p in shown for p in answer)
    out["lines"] = (sum(n in shown.get(p, ()) for p, n in wanted) / len(wanted)) if wanted else None
    out["chars"] = chars
    out["per_file"] = {p: [sum(n in shown.get(p, ()) for q, n in wanted if q == p), sum(q == p for q, n in wanted), p in shown]
                       for p in answer}   # edited lines held, edited lines, code shown
    out["gaps"] = {p: [len(shown[p]), sizes[p], [min(abs(n - m) for m in shown[p]) for q, n in wanted
                                                 if q == p and n not in shown[p]]]
                   for p in answer if p in shown and p in sizes}   # lines shown, lines, each missed edited line's distance
    out["over"] = chars > (budget or RT.PACK_CHARS)
    out["ranks"] = {p: (ranked.index(p) + 1 if p in ranked else None) for p in answer}
    return out


def cpu_time() -> float:
    """CPU seconds of this process and of its finished children (rt runs git)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def rt_task(text: str) -> SimpleNamespace:
    """rt's view and pack for `text` in the current directory, and the time taken: bringing the index up
    to date (wall) apart from ranking and packing (wall and CPU); asked again as rt's commands are where the
    index was replaced under it or damaged (`rt.index.index.retried`)."""
    try:
        return _rt_task(text)
    except RT.IndexDamaged as e:
        return RT.index.retried(RT.Ctx(False), lambda: _rt_task(text), e)


def _rt_task(text: str) -> SimpleNamespace:
    ctx = RT.Ctx(False)
    t0 = time.perf_counter()
    RT.index.load(ctx)
    t1, c1 = time.perf_counter(), cpu_time()
    view = RT.view(ctx, text, [])
    pack = RT.build_pack(view)
    t2, c2 = time.perf_counter(), cpu_time()
    injected = RT.injection(view, "bench", {}, (".rt/tasks/bench/manifest.md", ".rt/tasks/bench/pack.md"))
    t3, c3 = time.perf_counter(), cpu_time()
    return SimpleNamespace(view=view, pack=pack, injected=injected, index_s=t1 - t0, s=t2 - t1, cpu=c2 - c1,
                           inject_s=t3 - t2, inject_cpu=c3 - c2)


def oracle_pack(text: str, answer: list[str], base, alone: bool = False) -> SimpleNamespace:
    """rt's pack with the answer files ranked first (in rt's own order among them), the rest after them as
    rt ranks them (`base`: rt's view of the task, its index and ranking reused): what rt's fragments would
    show with a perfect ranking (an upper bound for the ranking's part of "all answer code" and "edited
    lines"; the fragments' part stays). `alone`: no other file after them, so the answer files have all the
    room: what rt's fragments hold when the ranking is perfect and sure of it."""
    view = RT.view(RT.Ctx(False), text, [], base.index)
    r = base.ranking
    ranked = {f.path: f for f in r.files}
    top = max((f.score for f in r.files), default=1.0)
    first = [RT.Ranked(p, top, ranked[p].why if p in ranked else ["answer"]) for p in
             sorted((p for p in answer if p in view.indexed), key=lambda p: r.files.index(ranked[p]) if p in ranked else 1 << 30)]
    view._ranking = RT.Ranking(first + ([] if alone else [f for f in r.files if f.path not in answer]), r.terms,
                               r.informative or ["answer"], r.weights)
    t0, c0 = time.perf_counter(), cpu_time()
    pack = RT.build_pack(view)
    return SimpleNamespace(view=view, pack=pack, s=time.perf_counter() - t0, cpu=cpu_time() - c0)


def pinned_commits(clone: Path, rows: list[dict]) -> list[dict]:
    """The tasks of an earlier run (`--pin`), as `eligible_commits` gives them: its commits, answers and flags, so
    another rt, whose reading of locale files may choose other commits, is judged on the same ones."""
    return [{"sha": r["commit"], "parent": git(clone, "rev-parse", r["commit"] + "^").strip(),
             "message": git(clone, "log", "-1", "--format=%B", r["commit"]).strip(), "answer": r["answer"],
             "locale": r["locale"], "order": -i, "extra": r["extra"]} for i, r in enumerate(rows)]


def evaluate(git_dir: Path, n: int, n_locale: int, window: int, work: Path, any_tip: bool,
             pinned: list[dict] | None = None) -> dict:
    name = repo_name(git_dir)
    group, which, tip = REPOS.get(name, ("other", "other", None))
    clone = scratch_clone(git_dir, work)
    if tip is None or subprocess.run(["git", "cat-file", "-e", f"{tip}^{{commit}}"], cwd=clone,
                                     capture_output=True).returncode:
        if not any_tip:
            sys.exit(f"localize: {git_dir}: tip {tip} of {name} not present (fetch it, or pass --any-tip)")
        tip = git(clone, "rev-parse", "origin/HEAD").strip()
    shutil.rmtree(clone / ".rt", ignore_errors=True)   # a fresh index, whatever rt version left one
    commits = pinned_commits(clone, pinned) if pinned is not None else eligible_commits(clone, tip, n, window, n_locale)
    base, rows, start, old = Baseline(), [], time.monotonic(), os.getcwd()
    try:
        for c in sorted(commits, key=lambda c: c["order"]):   # oldest first: the index updates in small steps
            blobs = checkout(clone, c["parent"])
            text = task_text(c["message"])
            os.chdir(clone)
            rt = rt_task(text)
            oracle = oracle_pack(text, c["answer"], rt.view)
            alone = oracle_pack(text, c["answer"], rt.view, alone=True)
            os.chdir(old)
            ranked = [f.path for f in rt.view.ranking.files]
            edits = edited_lines(clone, c["parent"], c["sha"], c["answer"])
            sizes = {p: len((clone / p).read_text(errors="replace").splitlines()) for p in edits}
            t0 = time.perf_counter()
            base.load(clone, c["parent"], [p for p, e in rt.view.index.files.items() if e.lines], blobs)
            t1, c1 = time.perf_counter(), cpu_time()
            query = RT.tokens(text)
            b_ranked = base.rank(query)
            b_chars, b_frags = base.pack(clone, text, query, b_ranked)
            t2, c2 = time.perf_counter(), cpu_time()
            rows.append({
                "commit": c["sha"][:12], "task": text, "answer": c["answer"], "locale": c["locale"], "extra": c["extra"],
                "edited": sum(b - a + 1 for spans in edits.values() for a, b in spans),
                "vague": rt.view.ranking.vague, "terms": rt.view.ranking.terms,
                "top": [[f.path, f.score, "; ".join(f.why)] for f in rt.view.ranking.files[:10]],
                "rt": {**judge(ranked, rt.pack.fragments, len(rt.pack.text), c["answer"], edits, sizes),
                       "s": round(rt.s, 3), "cpu": round(rt.cpu, 3), "index_s": round(rt.index_s, 3),
                       "files": len(rt.pack.files)},
                "inject": {**judge(ranked, numbered(rt.injected), len(rt.injected), c["answer"], edits, sizes,
                                   RT.INJECT_CHARS),
                           "s": round(rt.inject_s, 3), "cpu": round(rt.inject_cpu, 3), "index_s": 0.0,
                           "files": len({f["path"] for f in numbered(rt.injected)}),
                           "reads": located(rt.injected, edits),
                           "tests": {"changed": changed_tests(clone, c["parent"], c["sha"]),
                                     "named": named_tests(rt.injected)}},
                "bm25": {**judge(b_ranked, b_frags, b_chars, c["answer"], edits, sizes),
                         "s": round(t2 - t1, 3), "cpu": round(c2 - c1, 3), "index_s": round(t1 - t0, 3),
                         "files": len({f["path"] for f in b_frags})},
                "oracle": {**judge([f.path for f in oracle.view.ranking.files], oracle.pack.fragments, len(oracle.pack.text),
                                   c["answer"], edits, sizes),
                           "s": round(oracle.s, 3), "cpu": round(oracle.cpu, 3), "index_s": 0.0,
                           "files": len(oracle.pack.files)},
                "alone": {**judge([f.path for f in alone.view.ranking.files], alone.pack.fragments, len(alone.pack.text),
                                  c["answer"], edits, sizes),
                          "s": round(alone.s, 3), "cpu": round(alone.cpu, 3), "index_s": 0.0, "files": len(alone.pack.files)},
                "bm25_top": b_ranked[:10],
                "kinds": [[f["what"], f["end"] - f["start"] + 1, f["path"] in c["answer"],
                           sum(f["start"] <= n <= f["end"] for a, b in edits.get(f["path"], []) for n in range(a, b + 1))]
                          for f in rt.pack.fragments],   # rt pack's fragments: what, lines, of an answer file, edited lines held
            })
    finally:
        os.chdir(old)
    return {"repo": name, "group": group, "set": which, "tip": tip, "commits": sum(not r["extra"] for r in rows),
            "seconds": round(time.monotonic() - start, 1), "rows": rows}


# ---------------------------------------------------------------- summaries

def rankers(rows: list[dict]) -> list[tuple[str, str]]:
    """(key, label) of the rankers the rows were judged for (a run before the oracle has none)."""
    return [(who, label) for who, label in RANKERS.items() if rows and who in rows[0]]


def summary(rows: list[dict], who: str) -> dict:
    n = max(1, len(rows))
    lines = [r[who]["lines"] for r in rows if r[who]["lines"] is not None]
    times = sorted(r[who]["s"] for r in rows)
    cpu = [r[who]["cpu"] for r in rows if r[who].get("cpu") is not None]
    return {**{f"r@{k}": sum(r[who][f"r@{k}"] for r in rows) / n for k in KS},
            "all_code": sum(r[who]["all_code"] for r in rows) / n,
            "code": sum(r[who]["code"] for r in rows) / n,
            "lines": statistics.mean(lines) if lines else 0.0,
            "over": sum(r[who]["over"] for r in rows),
            "chars": statistics.median(r[who]["chars"] for r in rows) if rows else 0,
            "max_chars": max((r[who]["chars"] for r in rows), default=0),
            "s": statistics.median(times) if times else 0.0,
            "p90": times[int(0.9 * (len(times) - 1))] if times else 0.0,
            "cpu": statistics.median(cpu) if cpu else float("nan")}


def grouped(results: list[dict]) -> list[tuple[str, str, list[dict]]]:
    """(set, group, rows) for every set and group with tasks; `locale` gathers locale tasks of any group."""
    out = []
    for which in ("tune", "held-out", "other"):
        res = [r for r in results if r["set"] == which]
        for group in GROUPS:
            rows = [row for r in res for row in r["rows"]
                    if (row["locale"] if group == "locale" else r["group"] == group and not row["extra"])]
            if rows:
                out.append((which, group, rows))
    return out


HEADER = ("| set | group | tasks | ranker | recall@1 | recall@5 | recall@10 | all answer code in pack | "
          "edited lines in pack | over budget | median chars | median s (CPU) |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")


def table(results: list[dict]) -> str:
    lines = [HEADER]
    for which, group, rows in grouped(results):
        for who, label in rankers(rows):
            s = summary(rows, who)
            lines.append(f"| {which} | {group} | {len(rows)} | {label} | {s['r@1']:.3f} | {s['r@5']:.3f} | "
                         f"{s['r@10']:.3f} | {s['all_code']:.3f} | {s['lines']:.3f} | {s['over']} | "
                         f"{s['chars']:.0f} | {s['s']:.2f} ({s['cpu']:.2f}) |")
    return "\n".join(lines)


def repo_table(results: list[dict]) -> str:
    lines = ["| repository | set | group | tip | tasks (locale + more locale) | rt vague | recall@5 rt / BM25 | "
             "all code in pack rt / BM25 | edited lines rt / BM25 | rt over budget | rt s median / p90 (CPU median) | run s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for res in results:
        rows = [r for r in res["rows"] if not r["extra"]]
        rt, bm = summary(rows, "rt"), summary(rows, "bm25")
        loc = f"{sum(bool(r['locale']) for r in rows)} + {len(res['rows']) - len(rows)}"
        lines.append(f"| {res['repo']} | {res['set']} | {res['group']} | {res['tip'][:10]} | {res['commits']} ({loc}) | "
                     f"{sum(r['vague'] for r in rows)} | "
                     f"{rt['r@5']:.3f} / {bm['r@5']:.3f} | {rt['all_code']:.3f} / {bm['all_code']:.3f} | "
                     f"{rt['lines']:.3f} / {bm['lines']:.3f} | {rt['over']} | {rt['s']:.2f} / {rt['p90']:.2f} ({rt['cpu']:.2f}) | "
                     f"{res['seconds']} |")
    return "\n".join(lines)


def locale_lines(results: list[dict]) -> str:
    """For locale tasks: how often the English locale file itself is ranked in the top 10 and given code."""
    out = []
    for which, group, rows in grouped(results):
        if group != "locale":
            continue
        for who, label in rankers(rows):
            top = sum(all((r[who]["ranks"][p] or 99) <= 10 for p in r["locale"]) for r in rows)
            out.append(f"{which}, {label}: English locale file in the top 10 in {top} of {len(rows)} locale tasks")
    return "\n".join(out)


def missed_lines(results: list[dict]) -> str:
    """Where the edited lines the pack misses are: in answer files it gives code to (other fragments of
    them would hold them) or in the others (the ranking's miss); lines of all tasks pooled."""
    out = []
    for which, group, rows in grouped(results):
        for who, label in rankers(rows):
            files = [v for r in rows for v in r[who].get("per_file", {}).values()]
            edited = sum(want for _, want, _ in files)
            if not edited:
                continue
            held = sum(hit for hit, _, _ in files)
            in_shown = sum(want - hit for hit, want, shown in files if shown)
            out.append(f"{which} {group}, {label}: of {edited} edited lines, held {held / edited:.2f}, missed in files "
                       f"given code {in_shown / edited:.2f}, in files not given code {(edited - held - in_shown) / edited:.2f}")
    return "\n".join(out)


GAPS = ((4, "1-4"), (8, "5-8"), (16, "9-16"), (40, "17-40"), (float("inf"), ">40"))


def near_misses(results: list[dict]) -> str:
    """rt pack's missed edited lines in the answer files it gives code to, by distance to the nearest shown
    line (would wider windows hold them?), and its fragments by kind: lines shown and edited lines held."""
    out = []
    for which, group, rows in grouped(results):
        gaps = [g for r in rows for _, _, far in r["rt"].get("gaps", {}).values() for g in far]
        shown = sum(n for r in rows for n, _, _ in r["rt"].get("gaps", {}).values())
        size = sum(n for r in rows for _, n, _ in r["rt"].get("gaps", {}).values())
        if size:
            bins = Counter(next(label for most, label in GAPS if g <= most) for g in gaps)
            out.append(f"{which} {group}, rt pack: answer files given code, {shown / size:.2f} of their lines shown; "
                       f"missed edited lines by distance to a shown line: "
                       + ", ".join(f"{label} {bins[label]}" for _, label in GAPS))
        kinds: dict[str, list[int]] = {}
        for r in rows:
            for what, n, _, held in r.get("kinds", []):
                k = kinds.setdefault(fragment_kind(what), [0, 0])
                k[0] += n
                k[1] += held
        if kinds:
            out.append(f"{which} {group}, rt pack fragments (lines shown / edited lines held): "
                       + "; ".join(f"{k} {n} / {h}" for k, (n, h) in sorted(kinds.items())))
    return "\n".join(out)


def fragment_kind(what: str) -> str:
    """A fragment's label as a kind: whole file, imports, start of file, lines with task words, a definition,
    lines in a definition."""
    first = what.split(", ")[0]
    for kind in ("whole file", "imports", "start of file", "lines with task words"):
        if first.startswith(kind):
            return kind
    return "in a definition" if first.startswith("in ") else "a definition"


def targets(results: list[dict]) -> str:
    """Issue 10's targets per set and group, rt's figure against each: met or missed."""
    out = []
    for which, group, rows in grouped(results):
        rt, bm = summary(rows, "rt"), summary(rows, "bm25")
        checks = [(f"recall@5 {rt['r@5']:.3f} >= BM25 {bm['r@5']:.3f} + 0.10", rt["r@5"] >= bm["r@5"] + 0.10),
                  (f"all code in pack {rt['all_code']:.3f} >= 0.70", rt["all_code"] >= 0.70),
                  (f"edited lines {rt['lines']:.3f} >= 0.60", rt["lines"] >= 0.60),
                  (f"over budget {rt['over']} = 0", rt["over"] == 0),
                  (f"median s {rt['s']:.2f} < 1", rt["s"] < 1)]
        if group == "locale":
            checks.insert(1, (f"recall@5 {rt['r@5']:.3f} >= 0.60", rt["r@5"] >= 0.60))
        out.append(f"{which} {group}: " + "; ".join(f"{text} {'met' if ok else 'MISSED'}" for text, ok in checks))
    return "\n".join(out)


def misses(results: list[dict], n: int) -> str:
    """rt's misses on TS web apps and locale tasks, worst first: the task, the answer's ranks, what outranked it."""
    out = []
    rows = [(res["repo"], r) for res in results for r in res["rows"]
            if (res["group"] == "ts-web" or r["locale"]) and r["rt"]["r@5"] < 1]
    rows.sort(key=lambda x: (x[1]["rt"]["r@5"] - x[1]["bm25"]["r@5"], x[1]["rt"]["r@10"], x[0], x[1]["commit"]))
    for repo, r in rows[:n]:
        out.append(f"## {repo} {r['commit']} (rt r@5 {r['rt']['r@5']:.2f}, BM25 {r['bm25']['r@5']:.2f})")
        out.append("task: " + " ".join(r["task"].split())[:300])
        for p in r["answer"]:
            out.append(f"  answer {p}: rt #{r['rt']['ranks'][p]}, BM25 #{r['bm25']['ranks'][p]}"
                       + (" (locale)" if p in r["locale"] else ""))
        out.append("  words: " + ", ".join(r["terms"]))
        for i, (p, score, why) in enumerate(r["top"][:6], 1):
            out.append(f"  rt {i}. {p} {score:.2f} ({why[:160]})")
        out.append("  BM25: " + ", ".join(r["bm25_top"][:5]))
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("git_dirs", nargs="*", type=Path,
                    help="fetched git directories (read only); default: every repository above under --mirror")
    ap.add_argument("--mirror", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--commits", type=int, default=60, help="tasks per repository")
    ap.add_argument("--locale-commits", type=int, default=20, help="more tasks per repository touching its English locale file")
    ap.add_argument("--quick", action="store_true", help="15 tasks (and 5 more locale tasks) per repository")
    ap.add_argument("--window", type=int, default=1000, help="sample from this many newest eligible commits")
    ap.add_argument("--work", type=Path, default=Path("/tmp/rt-localize"), help="scratch clones go here")
    ap.add_argument("--any-tip", action="store_true", help="read history from the snapshot's tip if the recorded one is absent")
    ap.add_argument("--json", type=Path, help="write every task's result here")
    ap.add_argument("--pin", type=Path, metavar="JSON", help="judge the tasks of this earlier run (its --json), not a new sample")
    ap.add_argument("--misses", type=int, default=0, metavar="N", help="print rt's N worst TS-web and locale misses")
    ap.add_argument("--report", type=Path, nargs="+", metavar="JSON",
                    help="print the tables of runs saved with --json (of one rt commit, taken together); run nothing")
    a = ap.parse_args()
    if a.report:
        saved = [json.loads(f.read_text()) for f in a.report]
        if len({s["rt"] for s in saved}) > 1:
            sys.exit("localize: --report: runs of different rt commits: " + ", ".join(sorted({s["rt"] for s in saved})))
        return report(saved[0]["rt"], [r for s in saved for r in s["results"] if r["rows"]], a.misses)
    dirs = a.git_dirs or [a.mirror / name.replace("/", "+", 1) / "repo" for name in REPOS]
    for d in dirs:
        if not d.is_dir():
            sys.exit(f"localize: {d}: no git directory (fetch github:{repo_name(d)} first)")
    pins = {r["repo"]: r["rows"] for r in json.loads(a.pin.read_text())["results"]} if a.pin else {}
    results = []
    rt_commit = git(Path(__file__).resolve().parent, "log", "-1", "--format=%h", "--", "../rt").strip()   # rt's code, not the bench's
    for d in dirs:
        if a.pin and repo_name(d) not in pins:
            sys.exit(f"localize: --pin: {a.pin} holds no task of {repo_name(d)}")
        results.append(evaluate(d.resolve(), 15 if a.quick else a.commits, 5 if a.quick else a.locale_commits,
                                a.window, a.work, a.any_tip, pins.get(repo_name(d))))
        print(f"{results[-1]['repo']}: {results[-1]['commits']} tasks, {results[-1]['seconds']} s", file=sys.stderr)
        if a.json:   # after each repository: a run cut short keeps what it measured
            a.json.write_text(json.dumps({"rt": rt_commit, "results": results}, indent=1, sort_keys=True))
    report(rt_commit, results, a.misses)


def report(rt_commit: str, results: list[dict], n_misses: int) -> None:
    print(f"rt {rt_commit}; pack budget {RT.PACK_CHARS} characters\n")
    print(table(results), "", repo_table(results), "", locale_lines(results), "", test_lines(results), "", missed_lines(results), "", near_misses(results), "",
          targets(results), sep="\n")
    if n_misses:
        print("\n" + misses(results, n_misses))


if __name__ == "__main__":
    main()
