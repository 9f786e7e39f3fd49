#!/usr/bin/env python3
"""Mutation testing of rt's core: for each module, how many small changes to its code the tests catch,
and which they do not.

    python3 -m pip install cosmic-ray==8.7.0
    python3 bench/mutation.py                      # every module in MODULES, then the named mutations
    python3 bench/mutation.py rt/state.py ...      # those modules only
    python3 bench/mutation.py --named              # only the named mutations (issue 21's, the tools' caches)

cosmic-ray (https://pypi.org/project/cosmic-ray/) makes the mutants: each is one operator swapped, a
number moved by one, a condition negated, a `True` turned `False`, an `except` that no longer catches, a
loop that never runs ... It writes a mutant into its file, runs the tests, and puts the file back, so it
works on a copy of this checkout (the working tree as it is, committed or not), one per module. Running
the whole suite for each mutant would take days on a shared 2-core machine, so each mutant runs only the
test files that cover its module (MODULES), with `pytest -x`. Where a module holds more than its core job,
only the functions named in MODULES are mutated. Operators that only make code crash (`+` -> `<<` on a
string) are left out (EXCLUDED), which keeps the count to mutants a test could plausibly miss.

The named mutations are the bugs issue 21 found surviving, and the caches of `tests/test_tool_caches.py`:
each must make its tests fail. Output: a table per module (mutants, killed, survived, timed out, score)
and every survivor with its line and diff; the whole as JSON in `--out`. Not part of CI: hours of CPU.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYTEST = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider"]


@dataclass
class Target:
    tests: list[str]
    functions: tuple[str | None, ...] = ()   # only mutations inside these (None: module level); empty: all
    why: str = ""
    sample: int = 0                          # at most this many mutants, evenly spread over the module; 0: all


MODULES: dict[str, Target] = {
    "rt/state.py": Target(["tests/test_task.py", "tests/test_hooks_gate.py", "tests/test_effects.py",
                           "tests/test_edges.py::test_a_text_of_exactly_the_cap_is_taken",
                           "tests/test_verify.py::test_fix_attempt_limit"],
                          why="the state machine", sample=30),
    "rt/claude/hooks.py": Target(
        ["tests/test_hooks_gate.py", "tests/test_hooks_events.py"],
        ("main", "respond", "_failed", "_payload", "_text", "_object", "_cwd", "_where", "_store_root",
         "pre_tool_use", "_edit_gate"), why="the edit gate and the hooks' error policy", sample=20),
    "rt/context.py": Target(["tests/test_context.py"], (None, "build_pack", "_pack_files", "manifest_for",
                                                        "section_folders", "memory_entries"),
                            why="the manifest's and the pack's caps", sample=20),
    "rt/index/freshness.py": Target(["tests/test_index.py", "tests/test_lookup.py"], why="is the index current",
                                    sample=15),
    "rt/snapshot.py": Target(["tests/test_changes.py", "tests/test_store.py", "tests/test_paths.py", "tests/test_effects.py"],
                             why="content hashes, stat cache, racy timestamps", sample=20),
    "rt/claude/gitguard.py": Target(["tests/test_gitguard.py", "tests/test_shell.py"], why="the git guard", sample=40),
    "rt/claude/gitrules.py": Target(["tests/test_gitguard.py", "tests/test_shell.py"], why="the git allow-list",
                                    sample=25),
    "rt/claude/shell.py": Target(["tests/test_shell.py", "tests/test_gitguard.py"], why="reading bash for the guard",
                                 sample=30),
    "rt/diagnostics/diff.py": Target(["tests/test_diagdiff.py", "tests/test_difflogs.py",
                                      "tests/test_parsers.py::test_classify_rules"],
                                     why="new vs old diagnostics, the verdict", sample=50),
    "rt/budget.py": Target(["tests/test_budget.py", "tests/test_budget_slice.py",
                            "tests/test_context.py::test_budget_drops_folders_then_memory_then_code_and_says_so"],
                           why="token estimates, can_fit", sample=50),
}
"""Module -> the test files that cover it, the functions mutated where the module holds more than its core
job, and how many mutants are drawn where running them all would take hours (the draw is fixed: every
k-th in the order of the source)."""

EXCLUDED = [
    # a binary operator swapped for anything but its natural counterpart mostly makes code crash at once
    r"core/ReplaceBinaryOperator_(?!Add_Sub$|Sub_Add$|Mul_Div$|Div_Mul$|FloorDiv_Mul$|BitOr_BitAnd$|BitAnd_BitOr$)",
    # comparisons: each one's boundary and negation are kept, the cross-kind swaps (== -> is, < -> is not) not
    (r"core/ReplaceComparisonOperator_(Eq_(Lt|LtE|Gt|GtE|Is|IsNot)|NotEq_(Lt|LtE|Gt|GtE|Is|IsNot)"
     r"|(Lt|LtE|Gt|GtE)_(Eq|NotEq|Is|IsNot)|Is_(Eq|NotEq|Lt|LtE|Gt|GtE)|IsNot_(Eq|NotEq|Lt|LtE|Gt|GtE))$"),
    r"core/ReplaceUnaryOperator_(UAdd|Invert|Delete_Invert|USub_Invert)",
    r"core/RemoveDecorator$",
]


@dataclass
class Named:
    name: str
    path: str
    old: str
    new: str
    tests: list[str]


NAMED = [
    Named("ready may move to building", "rt/state.py", '"ready": ("planned", "blocked"),',
          '"ready": ("planned", "building", "blocked"),', ["tests/test_task.py"]),
    Named("the scope matched by prefix", "rt/claude/hooks.py", "    if rel in scope:\n",
          "    if any(rel.startswith(s) for s in scope):\n", ["tests/test_hooks_gate.py"]),
    Named("the pack's cap raised to 24,000", "rt/context.py", "PACK_CHARS = 18000", "PACK_CHARS = 24000",
          ["tests/test_context.py"]),
    Named("the pack's cap raised to 40,000", "rt/context.py", "PACK_CHARS = 18000", "PACK_CHARS = 40000",
          ["tests/test_context.py"]),
    Named("the edit gate catches only rt's own errors", "rt/claude/hooks.py", "    except Exception as e:  # every",
          "    except RtError as e:  # every", ["tests/test_hooks_gate.py"]),
    Named("mypy's cache kept after a run that read a racy file", "rt/checks.py",
          "                shutil.rmtree(cache.joinpath(*repo.root.parts[1:]) if mirror else cache, ignore_errors=True)",
          "                pass",
          ["tests/test_tool_caches.py"]),
    Named("mypy run with its own default cache", "rt/checks.py", '    "mypy": (["--cache-dir", "{cache}"], {}, False),\n',
          "", ["tests/test_tool_caches.py"]),
    Named("pytest run on the tree's own bytecode", "rt/checks.py",
          '    "pytest": ([], {"PYTHONPYCACHEPREFIX": "{cache}", "PYTHONDONTWRITEBYTECODE": ""}, True),\n', "",
          ["tests/test_tool_caches.py"]),
    Named("ruff run with its cache", "rt/diagnostics/parsers/__init__.py", '"--output-format=concise", "--no-cache"]',
          '"--output-format=concise"]', ["tests/test_tool_caches.py"]),
    Named("eslint run with its cache", "rt/diagnostics/parsers/__init__.py", '"eslint": ["--format", "json"]',
          '"eslint": ["--format", "json", "--cache"]', ["tests/test_tool_caches.py"]),
    Named("the store's lock removed", "rt/store.py", "            fcntl.flock(fd, fcntl.LOCK_EX)\n",
          "            pass\n", ["tests/test_task.py"]),
    Named("`git reset --hard` dropped from the deny rules", "rt/claude/install.py",
          '"commit", "push", "reset --hard", "rebase"', '"commit", "push", "rebase"', ["tests/test_install.py"]),
]


def copy_checkout(dest: Path) -> None:
    """The working tree as it is (tracked and untracked files git does not ignore), without bytecode;
    the CI's node tools linked, not copied."""
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, check=True,
                            capture_output=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file() and not src.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    modules = ROOT / ".ci" / "node_modules"
    if modules.exists():
        (dest / ".ci").mkdir(exist_ok=True)
        (dest / ".ci" / "node_modules").symlink_to(modules.resolve(), target_is_directory=True)


def run_tests(work: Path, tests: list[str], timeout: float | None = None) -> tuple[int | None, float, str]:
    """(exit code or None on timeout, CPU seconds of the run and its children, the output's tail)."""
    before = os.times()
    try:
        proc = subprocess.run([*PYTEST, *tests], cwd=work, capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"), check=False)
        code, out = proc.returncode, proc.stdout + proc.stderr
    except subprocess.TimeoutExpired:
        code, out = None, "timeout"
    after = os.times()
    return code, (after.children_user - before.children_user) + (after.children_system - before.children_system), out[-2000:]


def named(base: Path) -> list[dict]:
    results = []
    for m in NAMED:
        work = base / "named"
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        copy_checkout(work)
        path = work / m.path
        text = path.read_text() if path.is_file() else ""
        if text.count(m.old) != 1:
            results.append({"name": m.name, "outcome": "not applicable: the code it changes is gone or moved"})
            continue
        path.write_text(text.replace(m.old, m.new))
        code, cpu, out = run_tests(work, m.tests)
        failed = [ln for ln in out.splitlines() if ln.startswith("FAILED")]
        results.append({"name": m.name, "outcome": "killed" if code not in (0, 5) else "SURVIVED",
                        "by": failed[:3], "cpu": round(cpu, 1)})
        print(f"named: {m.name}: {results[-1]['outcome']} {failed[:1]}", file=sys.stderr, flush=True)
    return results


def mutate_module(base: Path, module: str, target: Target, per_mutant: float | None) -> dict:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult
    print(f"mutating {module} ...", file=sys.stderr, flush=True)
    work = base / module.replace("/", "_")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    copy_checkout(work)
    code, cpu, out = run_tests(work, target.tests)
    if code != 0:
        return {"module": module, "error": f"the tests fail before any mutation:\n{out}"}
    timeout = per_mutant or max(120.0, 4 * cpu + 60)
    config = work / "cosmic-ray.toml"
    config.write_text(f"[cosmic-ray]\nmodule-path = {json.dumps(module)}\ntimeout = {timeout}\nexcluded-modules = []\n"
                      f"test-command = {json.dumps(shlex.join([*PYTEST, *target.tests]))}\n\n"
                      f'[cosmic-ray.distributor]\nname = "local"\n')
    session = work / "session.sqlite"
    log = (work / "cosmic-ray.log").open("w")
    subprocess.run(["cosmic-ray", "init", str(config), str(session)], cwd=work, check=True, stdout=log, stderr=log)
    excluded = re.compile("|".join(f"(?:{e})" for e in EXCLUDED))
    with use_db(str(session), WorkDB.Mode.open) as db:
        kept, skipped = [], []
        hints = annotations(work / module)
        for item in db.pending_work_items:
            spec = item.mutations[0]
            outside = target.functions and spec.definition_name not in target.functions
            hint = any(start <= tuple(spec.start_pos) < end for start, end in hints)
            (skipped if excluded.match(spec.operator_name) or outside or hint else kept).append(item)
        kept.sort(key=lambda i: (i.mutations[0].start_pos, i.mutations[0].operator_name, i.mutations[0].occurrence))
        population = len(kept)
        if target.sample and population > target.sample:
            step = population / target.sample
            drawn = {int(k * step) for k in range(target.sample)}
            skipped += [item for n, item in enumerate(kept) if n not in drawn]
        for item in skipped:
            db.set_result(item.job_id, WorkResult(output="filtered", worker_outcome=WorkerOutcome.SKIPPED))
    started = time.monotonic()
    subprocess.run(["cosmic-ray", "exec", str(config), str(session)], cwd=work, check=True, stdout=log, stderr=log)
    wall = time.monotonic() - started
    return {"module": module, "why": target.why, "tests": target.tests, "wall": round(wall), "population": population,
            "baseline_cpu": round(cpu, 1), **tally(session, work / module)}


def recheck(base: Path, earlier: Path, module: str, target: Target, per_mutant: float | None) -> dict:
    """The mutants that survived in `earlier` (a previous run's folder for `module`), run again against the
    tests as they are now: which of them the tests added since kill."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkItem
    with use_db(str(earlier / "session.sqlite"), WorkDB.Mode.open) as db:
        survivors = [WorkItem(mutations=item.mutations, job_id=item.job_id) for item, result in db.completed_work_items
                     if result.worker_outcome == WorkerOutcome.NORMAL and result.test_outcome == TestOutcome.SURVIVED]
    hints = annotations(ROOT / module)   # an earlier run may have mutated them: equivalent, not run again
    in_hints = [w for w in survivors if any(a <= tuple(w.mutations[0].start_pos) < b for a, b in hints)]
    survivors = [w for w in survivors if w not in in_hints]
    work = base / ("recheck_" + module.replace("/", "_"))
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    copy_checkout(work)
    config = work / "cosmic-ray.toml"
    config.write_text(f"[cosmic-ray]\nmodule-path = {json.dumps(module)}\ntimeout = {per_mutant or 900}\n"
                      f"excluded-modules = []\ntest-command = {json.dumps(shlex.join([*PYTEST, *target.tests]))}\n\n"
                      f'[cosmic-ray.distributor]\nname = "local"\n')
    session = work / "session.sqlite"
    with use_db(str(session), WorkDB.Mode.create) as db:
        db.clear()
        db.add_work_items(survivors)
    with (work / "cosmic-ray.log").open("w") as log:
        subprocess.run(["cosmic-ray", "exec", str(config), str(session)], cwd=work, check=True, stdout=log, stderr=log)
    return {"module": module, "why": target.why, "tests": target.tests, "population": len(survivors),
            "in_annotations": len(in_hints), **tally(session, work / module)}


def annotations(source: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) of every type annotation: under `from __future__ import annotations` they are never
    evaluated, so a mutant there (`int | None` -> `int & None`) is equivalent by construction."""
    import ast
    spans = []
    for node in ast.walk(ast.parse(source.read_text())):
        hint = getattr(node, "annotation", None) if isinstance(node, (ast.arg, ast.AnnAssign)) else \
            getattr(node, "returns", None) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if hint is not None:
            spans.append(((hint.lineno, hint.col_offset), (hint.end_lineno, hint.end_col_offset)))
    return spans


def tally(session: Path, source: Path) -> dict:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome
    lines = source.read_text().splitlines()
    counts = {"mutants": 0, "killed": 0, "survived": 0, "timeout": 0, "incompetent": 0}
    survivors = []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            counts["mutants"] += 1
            spec = item.mutations[0]
            if result.worker_outcome != WorkerOutcome.NORMAL:
                counts["incompetent"] += 1
            elif result.test_outcome == TestOutcome.SURVIVED:
                counts["survived"] += 1
                line = spec.start_pos[0]
                survivors.append({"line": line, "operator": spec.operator_name.removeprefix("core/"),
                                  "function": spec.definition_name, "code": lines[line - 1].strip(),
                                  "diff": "\n".join(d for d in (result.diff or "").splitlines()
                                                    if d.startswith(("+", "-")) and not d.startswith(("+++", "---")))})
            elif result.output == "timeout":
                counts["timeout"] += 1
                counts["killed"] += 1
            else:
                counts["killed"] += 1
    scored = counts["killed"] + counts["survived"]
    counts["score"] = round(100 * counts["killed"] / scored, 1) if scored else None
    return counts | {"survivors": sorted(survivors, key=lambda s: s["line"])}


def report(results: list[dict], named_results: list[dict]) -> str:
    out = ["| module | what | mutants run (of) | killed | survived | timed out | score |",
           "|---|---|---|---|---|---|---|"]
    for r in results:
        if "error" in r:
            out.append(f"| `{r['module']}` | {r['error'].splitlines()[0]} | | | | | |")
            continue
        out.append(f"| `{r['module']}` | {r['why']} | {r['mutants']} ({r['population']}) | {r['killed']} | "
                   f"{r['survived']} | {r['timeout']} | {r['score']}% |")
    for r in results:
        for s in r.get("survivors", []):
            out.append(f"\n{r['module']}:{s['line']} {s['operator']} in {s['function']}: {s['code']}\n{s['diff']}")
    if named_results:
        out += ["", "| named mutation | outcome |", "|---|---|"]
        out += [f"| {n['name']} | {n['outcome']} {', '.join(n.get('by', []))} |" for n in named_results]
    return "\n".join(out)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("modules", nargs="*", help=f"modules to mutate (default: {', '.join(MODULES)})")
    p.add_argument("--named", action="store_true", help="only the named mutations")
    p.add_argument("--no-named", action="store_true", help="skip the named mutations")
    p.add_argument("--timeout", type=float, help="seconds per mutant (default: from the baseline run)")
    p.add_argument("--jobs", type=int, default=1, help="modules mutated at once (each in its own copy)")
    p.add_argument("--sample", type=int, help="at most this many mutants per module (default: each module's own)")
    p.add_argument("--recheck", type=Path, metavar="RUN",
                   help="run only the survivors of an earlier run's --out folder again, against the tests as they are now")
    p.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "rt-mutation",
                   help="where the copies, sessions and results.json go")
    args = p.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    modules = [] if args.named else (args.modules or list(MODULES))
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        p.error(f"not in MODULES: {', '.join(unknown)}")
    targets = {m: Target(t.tests, t.functions, t.why, min(t.sample or args.sample, args.sample) if args.sample else t.sample)
               for m, t in MODULES.items()}
    if args.recheck:
        modules = [m for m in modules if (args.recheck / m.replace("/", "_") / "session.sqlite").is_file()]
        jobs = [(recheck, args.out, args.recheck / m.replace("/", "_"), m) for m in modules]
    else:
        jobs = [(mutate_module, args.out, m) for m in modules]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(*job, targets[job[-1]], args.timeout) for job in jobs]
        for done in as_completed(futures):   # each module's figures kept as it ends: a stopped run keeps them
            module = done.result()
            print(report([module], []), file=sys.stderr, flush=True)
            (args.out / f"{module['module'].replace('/', '_')}.json").write_text(json.dumps(module, indent=1))
        results = [f.result() for f in futures]
    named_results = [] if args.no_named else named(args.out)
    (args.out / "results.json").write_text(json.dumps({"modules": results, "named": named_results}, indent=1))
    print(report(results, named_results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
