"""The economy benchmark: what one task costs the model in the real Claude Code client, done three ways
with the same final change, on real tasks of real repositories (bench/economy/tasks.py).

- plain: what Claude Code's own prompt leads to without rt: a search with grep (this client has no Grep
  tool), whole-file Reads of the files to change, the Edits, and the project's checks with their whole
  output, in the same response as the Edits; the fix round the same way.
- ranged: the strong baseline: the same search, then Reads of just the definitions around each change
  (offset/limit, as the Read tool's own description asks), then the same Edits and checks.
- rt: `/runtask <task>` with rt installed, doing what skill/SKILL.md says: one response records the scope,
  Reads just the lines it changes (Edit needs a Read), edits and runs `rt verify && rt finish`; a change
  whose code the injection does not show costs a response before that, printing it with `rt slice`
  (the definition around it, or the range the injection named), except an insertion right below shown
  lines, which is anchored on them; a FAIL that does not explain itself costs a Read of the log it names.

All three chain calls in one response only where a call needs no output of the ones before it (Claude
Code runs them in order). The model is scripted: each answer is computed from the request the client
sent (what the injection showed, what the checks printed), so a flow pays for every look-up it needs.
Every request body is kept; per run the table gives requests, all request bytes, conversation bytes
(messages only), tool-result bytes, the final request's size, a cache-priced figure (1.25x the bytes not
in the previous request's prefix, 0.1x the re-sent prefix; tools, system and messages in that order,
cache markers left out) and the client's own token totals (the fake API prices each answer with
`rt.budget.estimate` on the same new/re-sent split).

    python3 bench/economy/run.py --python CLICK --typescript UFO --go CHI [--work DIR] [--only NAME ...]

CLICK, UFO and CHI are clones of github.com/pallets/click, github.com/unjs/ufo and github.com/go-chi/chi;
they are cloned again under --work, where each task's tree is checked out and its tools are installed.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))
os.environ["PATH"] = os.pathsep.join([str(ROOT / ".ci" / "node_modules" / ".bin"), os.environ.get("PATH", "")])

from bench.economy.tasks import REPOS, TASKS, Task  # noqa: E402
from bench.localize import numbered  # noqa: E402
from rt.budget import estimate  # noqa: E402
from rt.index.langs import language, parse  # noqa: E402
from tests.e2e.fakeapi import text, tool  # noqa: E402
from tests.e2e.harness import claude_binary, run_claude, seen  # noqa: E402

FLOWS = ("plain", "ranged", "rt")
SESSION_TIMEOUT = 3600
CHECK_MS = 600000
"""The checks of a large project take minutes: every flow gives its check command the Bash tool's longest
timeout."""
RANGE_MAX = 80
"""A ranged Read takes the whole definition around a change up to this many lines, else a window."""
WINDOW = 12


# ---------------------------------------------------------------- the change, as Edits

@dataclass
class Hunk:
    path: str
    old: str
    new: str
    start: int      # the first and last line of `old` in the task's tree
    end: int


def hunks(path: str, before: str, after: str) -> list[Hunk]:
    """One Edit per changed region, anchored as a person would: on the lines it replaces, or on the lines
    above an insertion, with the fewest lines above (then below) that make `old` unique where applied."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    ops = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    groups: list[list[int]] = []
    for _, i1, i2, j1, j2 in ops:
        if groups and i1 - groups[-1][1] <= 3:
            groups[-1][1], groups[-1][3] = i2, j2
        else:
            groups.append([i1, i2, j1, j2])
    out, current = [], before
    for i1, i2, j1, j2 in groups:
        tries = [(up, 0) for up in range(0 if i2 > i1 else 1, 12)] + [(up, down) for down in range(1, 12)
                                                                      for up in range(0, 12)]
        for up, down in tries:
            s, e = max(0, i1 - up), min(len(a), i2 + down)
            old = "".join(a[s:e])
            new = "".join(b[j1 - (i1 - s):j2 + (e - i2)])
            if old.strip() and current.count(old) == 1:
                break
        out.append(Hunk(path, old, new, s + 1, e))
        current = current.replace(old, new, 1)
    return out


def reanchored(h: Hunk, shown: set[int], text: str) -> Hunk:
    """An insertion anchored instead on the shown lines right above it (the fewest that are unique), as a
    model writes an Edit after code it has seen; `h` itself when it replaces lines or those are not shown."""
    old, new = h.old.splitlines(keepends=True), h.new.splitlines(keepends=True)
    up = 0
    while up < min(len(old), len(new)) and old[up] == new[up]:
        up += 1
    down = 0
    while down < len(old) - up and new[len(new) - 1 - down] == old[len(old) - 1 - down]:
        down += 1
    if up + down != len(old):
        return h
    inserted = "".join(new[up:len(new) - down])
    lines = text.splitlines(keepends=True)
    last = h.start + up - 1   # the line the insertion follows
    while last > 0 and last not in shown and inserted.endswith(lines[last - 1]):   # the same file, inserted higher
        inserted = lines[last - 1] + inserted[:-len(lines[last - 1])]
        last -= 1
    for first in range(last, 0, -1):
        if first not in shown:
            break
        anchor = "".join(lines[first - 1:last])
        if anchor.strip() and text.count(anchor) == 1:
            return Hunk(h.path, anchor, anchor + inserted, first, last)
    return h


def definition_range(path: str, text: str, h: Hunk) -> tuple[int, int]:
    """What a careful reader Reads around a change: its definition when short, else a window."""
    defs = [d for d in parse(path, language(path), text).defs if d.start <= h.start and h.end <= d.end]
    total = text.count("\n") + 1
    if defs:
        d = max(defs, key=lambda d: d.start)
        if d.end - d.start < RANGE_MAX:
            return d.start, d.end
    return max(1, h.start - WINDOW), min(total, h.end + WINDOW)


def merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[list[int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return [(a, b) for a, b in out]


# ---------------------------------------------------------------- reading what the client sent

def new_results(body: dict) -> list[dict]:
    """The tool results of the request's last user turn, in order."""
    for m in reversed(body["messages"]):
        if m["role"] == "user" and isinstance(m["content"], list) and any(
                b.get("type") == "tool_result" for b in m["content"]):
            return [b for b in m["content"] if b.get("type") == "tool_result"]
    return []


def result_text(block: dict) -> str:
    inner = block.get("content")
    return inner if isinstance(inner, str) else "".join(b.get("text", "") for b in inner or [])


def injected(body: dict) -> tuple[dict[str, set[int]], dict[str, list[tuple[int, int]]]]:
    """Lines whose code the /runtask hook showed, and the ranges it gave as Read lines, per path."""
    marker = "UserPromptSubmit hook additional context: "
    whole = seen(body)
    if marker not in whole:
        return {}, {}
    ctx = whole.split(marker, 1)[1]
    code: dict[str, set[int]] = {}
    for frag in numbered(ctx):
        code.setdefault(frag["path"], set()).update(range(frag["start"], frag["end"] + 1))
    reads: dict[str, list[tuple[int, int]]] = {}
    for p, offset, limit in re.findall(r"Read (\S+) offset=(\d+) limit=(\d+)", ctx):
        reads.setdefault(p, []).append((int(offset), int(offset) + int(limit) - 1))
    return code, reads


# ---------------------------------------------------------------- the scripted model

@dataclass
class Plan:
    task: Task
    root: Path
    texts: dict[str, str]          # the task's files as they start
    final: dict[str, str]          # and as the upstream commit leaves them
    edits: list[Hunk]
    slip_edit: int                 # which edit carries the slip
    fix_old: str
    fix_new: str
    notes: list[str] = field(default_factory=list)

    def abs(self, path: str) -> str:
        return str(self.root / path)

    def first_edits(self) -> list[dict]:
        out = []
        for i, h in enumerate(self.edits):
            new = h.new.replace(self.task.slip.right, self.task.slip.wrong, 1) if i == self.slip_edit else h.new
            out.append(tool("Edit", file_path=self.abs(h.path), old_string=h.old, new_string=new))
        return out

    def fix_edit(self) -> dict:
        return tool("Edit", file_path=self.abs(self.task.slip.path), old_string=self.fix_old, new_string=self.fix_new)

    def ranged_reads(self, hunks_: list[Hunk]) -> list[dict]:
        ranges: dict[str, list[tuple[int, int]]] = {}
        for h in hunks_:
            ranges.setdefault(h.path, []).append(definition_range(h.path, self.texts[h.path], h))
        return [tool("Read", file_path=self.abs(p), offset=a, limit=b - a + 1)
                for p in sorted(ranges) for a, b in merged(ranges[p])]


def check_call(command: str) -> dict:
    return tool("Bash", command=command, description="Run the project's checks", timeout=CHECK_MS)


def plain_flow(plan: Plan, ranged: bool):
    """Grep, Read (whole files, or just the definitions around the changes), Edit and check, fix, report."""
    task, repo = plan.task, REPOS[plan.task.repo]
    body = yield [tool("Bash", command=task.grep, description="Find the code")]
    files = list(dict.fromkeys(h.path for h in plan.edits))
    if ranged:
        body = yield plan.ranged_reads(plan.edits)
    else:
        body = yield [tool("Read", file_path=plan.abs(p)) for p in files]
        too_big = [p for p, r in zip(files, new_results(body)) if r.get("is_error")]
        if too_big:   # over the Read tool's size limit: read the parts around the changes instead
            plan.notes.append(f"whole Read refused for {', '.join(too_big)}")
            body = yield plan.ranged_reads([h for h in plan.edits if h.path in too_big])
    body = yield plan.first_edits() + [check_call(repo.checks)]
    output = result_text(new_results(body)[-1])
    if task.slip.explains not in output:
        plan.notes.append("the check output did not explain the failure")
    body = yield [plan.fix_edit(), check_call(repo.checks)]
    yield [text(task.final)]


def rt_flow(plan: Plan):
    """What skill/SKILL.md tells the model, driven by what the /runtask hook actually injected."""
    task = plan.task
    body = yield None   # the first request: read the injection before answering
    code, reads = injected(body)
    def lines(h: Hunk) -> set[int]:   # the lines the Edit anchors on, blank ones aside
        return {n for n, line in enumerate(h.old.splitlines(), h.start) if line.strip()}
    anchored = [h if lines(h) <= code.get(h.path, set()) else reanchored(h, code.get(h.path, set()), plan.texts[h.path])
                for h in plan.edits]
    if anchored != plan.edits:
        plan.notes.append(f"{sum(a is not h for a, h in zip(anchored, plan.edits))} insertion(s) anchored on shown lines above them")
        plan.edits = anchored
    shown = [h for h in plan.edits if lines(h) <= code.get(h.path, set())]
    located = [h for h in plan.edits if h not in shown and any(a <= min(lines(h)) and max(lines(h)) <= b
                                                               for a, b in reads.get(h.path, []))]
    unknown = [h for h in plan.edits if h not in shown and h not in located]
    files = sorted({h.path for h in plan.edits})
    scope = tool("Bash", command=f"rt plan --edit {' '.join(files)} --note \"{task.name}\"", description="Record the scope")
    verify = tool("Bash", command="rt verify && rt finish", description="Verify and finish", timeout=CHECK_MS)
    just_lines = [tool("Read", file_path=plan.abs(h.path), offset=h.start, limit=h.end - h.start + 1) for h in plan.edits]
    plan.notes.append(f"injection showed {len(shown)} of {len(plan.edits)} changes as code, {len(located)} as Read lines")
    first = [scope]
    if located or unknown:   # the code of the other changes, numbered, before editing them
        slices = [tool("Bash", command=f"rt slice {h.path} --lines {a}:{b}", description="Show the lines")
                  for h in located for a, b in reads[h.path] if a <= min(lines(h)) and max(lines(h)) <= b]
        for h in unknown:
            defs = [d for d in parse(h.path, language(h.path), plan.texts[h.path]).defs
                    if d.start <= h.start and h.end <= d.end and d.end - d.start < RANGE_MAX]
            if defs:
                d = max(defs, key=lambda d: d.start)
                command = f"rt slice {h.path} --symbol {d.parent + '.' if d.parent else ''}{d.name}"
            else:
                a, b = definition_range(h.path, plan.texts[h.path], h)
                command = f"rt slice {h.path} --lines {a}:{b}"
            slices.append(tool("Bash", command=command, description="Show the lines"))
        body = yield [scope] + list({json.dumps(b, sort_keys=True): b for b in slices}.values())
        first = []
    body = yield first + just_lines + plan.first_edits() + [verify]
    output = result_text(new_results(body)[-1])
    if task.slip.explains not in output:
        logs = re.findall(r"failed: .*?full output: (\S+\.log)", output)
        plan.notes.append("the FAIL report did not explain the failure: its log was Read")
        if logs:
            body = yield [tool("Read", file_path=plan.abs(logs[0]))]
    body = yield [plan.fix_edit(), verify]
    yield [text(task.final)]


class Model:
    """The scripted model for one session: a flow generator fed each request body."""

    def __init__(self, flow):
        self.flow = flow
        self.started = False

    def __call__(self, body: dict) -> list[dict]:
        try:
            blocks = self.flow.send(None) if not self.started else self.flow.send(body)
            if not self.started:
                self.started = True
                if blocks is None:   # the flow wants to see the first request before answering
                    blocks = self.flow.send(body)
            return blocks
        except StopIteration:
            return [text("done")]


# ---------------------------------------------------------------- pricing

def _strip(x):
    """Without the moving cache markers, and a text given as a string written as the one text block it
    stands for (the client sends the same message either way from one request to the next)."""
    if isinstance(x, dict):
        out = {k: _strip(v) for k, v in x.items() if k != "cache_control"}
        if isinstance(out.get("content"), str) and ("role" in out or out.get("type") == "tool_result"):
            out["content"] = [{"type": "text", "text": out["content"]}]
        return out
    if isinstance(x, list):
        return [_strip(v) for v in x]
    return x


def fixed(body: dict) -> str:
    """Tools and system: the part of every request that does not depend on the conversation."""
    return json.dumps(_strip(body.get("tools")), ensure_ascii=False) + json.dumps(_strip(body.get("system")), ensure_ascii=False)


def canonical(body: dict) -> str:
    """Tools, system and messages in the order the cache reads them."""
    return fixed(body) + json.dumps(_strip(body.get("messages")), ensure_ascii=False)


def common(a: str, b: str) -> int:
    n = min(len(a), len(b))
    lo, hi = 0, n
    while lo < hi:   # the longest common prefix, by halving
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


class Pricer:
    """The usage the fake API reports: new bytes written to the cache, the re-sent prefix read from it."""

    def __init__(self):
        self.last = ""

    def __call__(self, body: dict, blocks: list[dict]) -> dict:
        out = {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
               "output_tokens": estimate(json.dumps(blocks))}
        if not body.get("tools"):
            out["input_tokens"] = estimate(json.dumps(body.get("messages")))
            return out
        now = canonical(body)
        keep = common(self.last, now)
        self.last = now
        out["cache_creation_input_tokens"] = estimate(now[keep:])
        out["cache_read_input_tokens"] = estimate(now[:keep])
        return out


def measure(run) -> dict:
    bodies = run.turns
    prev, priced = "", 0.0
    for b in bodies:
        now = canonical(b)
        keep = common(prev, now)
        priced += 1.25 * (len(now) - keep) + 0.1 * keep
        prev = now
    last = bodies[-1] if bodies else {"messages": []}
    results = [b for m in last["messages"] if isinstance(m.get("content"), list) for b in m["content"]
               if b.get("type") == "tool_result"]
    usage = run.result.get("usage") or {}
    return {
        "requests": len(bodies),
        "other_requests": len(run.requests) - len(bodies),
        "request_bytes": sum(len(json.dumps(b, ensure_ascii=False)) for b in bodies),
        "conversation_bytes": sum(len(json.dumps(b["messages"], ensure_ascii=False)) for b in bodies),
        "tool_result_bytes": sum(len(result_text(r)) for r in results),
        "final_context": len(json.dumps(last, ensure_ascii=False)),
        "cache_priced": round(priced),
        # the same, with tools and system already in the cache from an earlier session in this project
        "cache_priced_warm": round(priced - (1.25 - 0.1) * len(fixed(bodies[0]))) if bodies else 0,
        "tokens": {k: usage.get(k, 0) for k in ("input_tokens", "cache_creation_input_tokens",
                                                "cache_read_input_tokens", "output_tokens")},
    }


# ---------------------------------------------------------------- trees and sessions

def git(cwd: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check).stdout


def sh(cwd: Path, argv: tuple[str, ...] | list[str]) -> None:
    proc = subprocess.run(list(argv), cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed in {cwd}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")


def clone(source: Path, work: Path) -> Path:
    if not (work / ".git").is_dir():
        work.parent.mkdir(parents=True, exist_ok=True)
        git(work.parent, "clone", "-q", str(source), work.name)
    exclude = work / ".git" / "info" / "exclude"
    exclude.write_text(".rt/\n.claude/\n.venv/\nnode_modules/\n")
    return work


def reset(tree: Path, base: str) -> None:
    git(tree, "checkout", "-q", "-f", "--detach", base)
    git(tree, "clean", "-q", "-fdx", "-e", ".venv", "-e", "node_modules")


def prepare(task: Task, tree: Path) -> Plan:
    """The task's tree, its tools installed, and its change as Edits."""
    reset(tree, task.base)
    diff = git(tree, "diff", f"{task.commit}^", task.commit, "--", *task.files)
    subprocess.run(["git", "apply", "-"], cwd=tree, input=diff, text=True, check=True)
    final = {p: (tree / p).read_text(encoding="utf-8") for p in task.files}
    reset(tree, task.base)
    texts = {p: (tree / p).read_text(encoding="utf-8") for p in task.files}
    stamp = tree / ".git" / "rt-bench-setup"
    key = task.base + git(tree, "rev-parse", f"{task.base}:package.json", check=False)
    if not stamp.exists() or stamp.read_text() != key:
        manager = json.loads((tree / "package.json").read_text()).get("packageManager", "") \
            if (tree / "package.json").is_file() else ""
        for argv in REPOS[task.repo].setup:
            sh(tree, [manager if a == "{packageManager}" else a for a in argv])
        stamp.write_text(key)
    edits = [h for p in task.files for h in hunks(p, texts[p], final[p])]
    slip = task.slip
    which = next(i for i, h in enumerate(edits) if h.path == slip.path and slip.right in h.new)
    after_first = dict(texts)
    for i, h in enumerate(edits):
        new = h.new.replace(slip.right, slip.wrong, 1) if i == which else h.new
        after_first[h.path] = after_first[h.path].replace(h.old, new, 1)
    fix_old, fix_new = slip.wrong, slip.right
    if after_first[slip.path].count(fix_old) != 1:
        fix_old, fix_new = edits[which].new.replace(slip.right, slip.wrong, 1), edits[which].new
    return Plan(task, tree, texts, final, edits, which, fix_old, fix_new)


def rt_command(folder: Path) -> Path:
    """A folder with an `rt` command running this checkout, as `pip install` would provide."""
    folder.mkdir(parents=True, exist_ok=True)
    wrapper = folder / "rt"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{ROOT}" exec "{sys.executable}" -m rt "$@"\n')
    wrapper.chmod(0o755)
    return folder


def session(task: Task, tree: Path, flow: str, scratch: Path) -> dict:
    plan = prepare(task, tree)
    home = scratch / f"home-{task.name}-{flow}"
    bin_dir = rt_command(scratch / "bin")
    if flow == "rt":
        subprocess.run([sys.executable, "-m", "rt", "install"], cwd=tree, check=True, capture_output=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
        model, prompt = Model(rt_flow(plan)), f"/runtask {task.text}"
    else:
        model, prompt = Model(plain_flow(plan, flow == "ranged")), task.text
    started = time.perf_counter()
    run = run_claude(tree, home, prompt, [model] * 40, args=("--allowedTools", "Bash"), path=bin_dir,
                     usage=Pricer(), timeout=SESSION_TIMEOUT)
    took = time.perf_counter() - started
    if run.code != 0:
        raise SystemExit(f"{task.name} {flow}: claude exited {run.code}: {run.stderr[-1500:]}")
    same = all((tree / p).read_text(encoding="utf-8") == plan.final[p] for p in task.files)
    state = None
    if flow == "rt":
        out = subprocess.run([sys.executable, "-m", "rt", "tasks", "--json"], cwd=tree, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        state = [t["state"] for t in json.loads(out.stdout)["tasks"]]
    return {"task": task.name, "repo": REPOS[task.repo].name, "flow": flow, "same_final_change": same,
            "rt_tasks": state, "notes": plan.notes, "wall_s": round(took, 1), **measure(run),
            "bodies": run.turns}


# ---------------------------------------------------------------- the table

def table(rows: list[dict]) -> str:
    head = ("| task | flow | requests | all request bytes | conversation bytes | tool-result bytes | final context "
            "| cache-priced | x plain | x ranged | warm prefix | x plain | x ranged | tokens in/cache-write/cache-read/out |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    out = [head]
    by = {(r["task"], r["flow"]): r for r in rows}
    for r in rows:
        plain, ranged = by.get((r["task"], "plain")), by.get((r["task"], "ranged"))
        rel = lambda base, k: f"{r[k] / base[k]:.2f}" if base else "-"   # noqa: E731
        t = r["tokens"]
        out.append(f"| {r['task']} | {r['flow']} | {r['requests']} | {r['request_bytes']:,} | {r['conversation_bytes']:,} "
                   f"| {r['tool_result_bytes']:,} | {r['final_context']:,} | {r['cache_priced']:,} "
                   f"| {rel(plain, 'cache_priced')} | {rel(ranged, 'cache_priced')} | {r['cache_priced_warm']:,} "
                   f"| {rel(plain, 'cache_priced_warm')} | {rel(ranged, 'cache_priced_warm')} "
                   f"| {t['input_tokens']:,}/{t['cache_creation_input_tokens']:,}/"
                   f"{t['cache_read_input_tokens']:,}/{t['output_tokens']:,} |")
    return "\n".join(out)


def summary(rows: list[dict]) -> str:
    """Per flow: totals over all tasks, and the ratios of the totals."""
    keys = ("requests", "request_bytes", "cache_priced", "cache_priced_warm")
    totals = {f: {k: sum(r[k] for r in rows if r["flow"] == f) for k in keys} for f in FLOWS}
    lines = ["| flow | requests | all request bytes | cache-priced | x plain | x ranged | warm prefix | x plain | x ranged |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    ratio = lambda f, base, k: f"{totals[f][k] / totals[base][k]:.2f}" if totals[base][k] else "-"   # noqa: E731
    for f in FLOWS:
        t = totals[f]
        lines.append(f"| {f} | {t['requests']} | {t['request_bytes']:,} | {t['cache_priced']:,} "
                     f"| {ratio(f, 'plain', 'cache_priced')} | {ratio(f, 'ranged', 'cache_priced')} "
                     f"| {t['cache_priced_warm']:,} | {ratio(f, 'plain', 'cache_priced_warm')} "
                     f"| {ratio(f, 'ranged', 'cache_priced_warm')} |")
    return "\n".join(lines)


def report(rows: list[dict]) -> str:
    for r in rows:   # runs saved before the warm figure existed
        if "cache_priced_warm" not in r and r.get("bodies"):
            r["cache_priced_warm"] = round(r["cache_priced"] - (1.25 - 0.1) * len(fixed(r["bodies"][0])))
    return table(rows) + "\n\n" + summary(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for kind in REPOS:
        ap.add_argument(f"--{kind}", type=Path, metavar="CLONE", help=f"a git clone of {REPOS[kind].name}")
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "rt-economy")
    ap.add_argument("--only", nargs="*", default=[], metavar="TASK")
    ap.add_argument("--flows", nargs="*", default=list(FLOWS), choices=FLOWS)
    ap.add_argument("--out", type=Path, help="write every run's figures and request bodies here (JSON)")
    ap.add_argument("--report", type=Path, metavar="JSON", help="print the tables of a run saved with --out; run nothing")
    args = ap.parse_args()
    if args.report:
        print(report(json.loads(args.report.read_text())))
        return
    missing = [f"--{kind}" for kind in REPOS if getattr(args, kind) is None]
    if missing:
        ap.error(f"the clones to work on are needed: {', '.join(missing)}")
    if not claude_binary():
        raise SystemExit("the Claude Code client is not installed: run `bash .ci/run` (or npm install --prefix .ci)")
    trees = {kind: clone(getattr(args, kind).resolve(), args.work / REPOS[kind].name) for kind in REPOS}
    rows = []
    for task in TASKS:
        if args.only and task.name not in args.only:
            continue
        for flow in args.flows:
            row = session(task, trees[task.repo], flow, args.work / "scratch")
            rows.append(row)
            print(f"{task.name} {flow}: {row['requests']} requests, {row['cache_priced']:,} cache-priced, "
                  f"same change {row['same_final_change']}, rt {row['rt_tasks']}, {row['wall_s']} s; "
                  f"{'; '.join(row['notes'])}", file=sys.stderr, flush=True)
            if args.out:   # after every session: a long run that stops keeps what it measured
                args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    print(report(rows))


if __name__ == "__main__":
    main()
