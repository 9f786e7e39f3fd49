"""A tool's cache never hides a new diagnostic from `rt verify`.

mypy trusts a file whose size and second of modification match its cache, and eslint `--cache` does the
same by default: an edit that keeps the file's size, made in the second in which the previous run read
the file, goes unseen. A test cannot stop the clock, so each case here puts the file's timestamp where a
same-second edit leaves it: `os.utime` gives the edited file the very timestamp the run before saw, and
that timestamp lies at or after that run's start (in the future), as it does when everything happens
within one second. Each case fails when rt runs its tool with a cache that trusts timestamps.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.checks_support import CALC, node_project, python_project, verify_md

AHEAD = 3600 * 10**9
"""How far ahead the edited file's timestamp is put, in nanoseconds: at or after any run's start."""


def rewrite_keeping_size_and_time(project, rel: str, old: str, new: str) -> None:
    """Replace `old` by `new` (of the same length) in `rel`, and give the file back its timestamp."""
    path = project.root / rel
    st = os.stat(path)
    text = project.read(rel)
    assert len(old) == len(new) and old in text
    project.write(rel, text.replace(old, new))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(path).st_size == st.st_size and os.stat(path).st_mtime_ns == st.st_mtime_ns


def stamp_ahead(project, *rels: str) -> None:
    when = time.time_ns() + AHEAD
    for rel in rels:
        os.utime(project.root / rel, ns=(when, when))


def test_mypy_sees_an_edit_that_keeps_size_and_second(project):
    python_project(project, tools="mypy")
    stamp_ahead(project, "calc.py")
    assert "- mypy: 0 diagnostic(s)" in project.rt("start", "make add return a string")
    project.rt("plan", "--edit", "calc.py")
    rewrite_keeping_size_and_time(project, "calc.py", "-> int:", "-> str:")
    out = project.rt("verify", ret=1)
    assert out.startswith("# verify: FAIL")
    assert ('- calc.py:2:12 mypy [return-value] Incompatible return value type (got "int", expected "str")'
            in verify_md(project))
    # the next run, with the timestamp still ahead, reads the file again too
    rewrite_keeping_size_and_time(project, "calc.py", "-> str:", "-> int:")
    rewrite_keeping_size_and_time(project, "calc.py", "a + b", "b + a")
    assert project.rt("verify").startswith("# verify: PASS")


def test_mypy_cache_is_rt_own_and_kept_while_no_file_changed_in_a_run(project):
    """mypy runs with its cache in `.rt/cache/mypy/` (nothing in the project's tree), which stays for the
    next run when no file it reads was modified at or after the run's start."""
    python_project(project, tools="mypy")
    for rel in ("calc.py", "legacy.py", "pyproject.toml"):
        os.utime(project.root / rel, ns=(10**18, 10**18))   # 2001: long before any run
    project.rt("start", "keep the cache")
    cache = project.root / ".rt" / "cache" / "mypy"
    assert any(p.is_file() for p in cache.rglob("*")), "the run wrote its cache there"
    assert not (project.root / ".mypy_cache").exists()
    assert project.git("status", "--porcelain") == ""
    assert project.rt("repair") == "nothing damaged in .rt/\n"   # the tool's files are not rt's records
    stamp_ahead(project, "legacy.py")
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", CALC + "\n")
    project.rt("verify")
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*")), \
        "a file stamped at or after the run's start drops the cache"


def test_pytest_never_runs_bytecode_left_in_the_tree(project):
    """A `__pycache__` another run left (the agent's own `pytest`, an editor) records calc.py's size and second;
    Python trusts it over the source. rt's pytest reads only bytecode of its own, under `.rt/cache/pytest/`."""
    python_project(project, tools="pytest", old_problem=False)
    project.write(".gitignore", "__pycache__/\n")
    project.git("add", ".gitignore")
    project.git("commit", "-qm", "ignore bytecode")
    stamp_ahead(project, "calc.py")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-c", "import calc"], cwd=project.root, env=env, check=True)
    assert list((project.root / "__pycache__").glob("calc.*.pyc")), "the other run left its bytecode"
    assert "- pytest: 0 diagnostic(s)" in project.rt("start", "make add subtract")
    project.rt("plan", "--edit", "calc.py")
    rewrite_keeping_size_and_time(project, "calc.py", "a + b", "a - b")
    project.rt("verify", ret=1)
    assert "- tests/test_calc.py:5 pytest [test_add] assert -1 == 3" in verify_md(project)
    assert not list(project.root.rglob("__pycache__/test_calc*.pyc")), "rt's runs leave no bytecode in the tree"
    cache = project.root / ".rt" / "cache" / "pytest"
    assert not cache.joinpath(*project.root.parts[1:]).exists(), "the racy run dropped the repository's bytecode"
    assert any(cache.rglob("*.pyc")), "and kept the rest (the standard library's, pytest's)"


def test_ruff_sees_an_edit_that_keeps_size_and_second(project):
    python_project(project, tools="ruff", old_problem=False)
    stamp_ahead(project, "legacy.py")
    project.rt("start", "tidy legacy")
    project.rt("plan", "--edit", "legacy.py")
    rewrite_keeping_size_and_time(project, "legacy.py", "X = 1", "X = y")
    project.rt("verify", ret=1)
    assert "- legacy.py:1:5 ruff [F821] Undefined name `y`" in verify_md(project)


def test_eslint_and_tsc_see_an_edit_that_keeps_size_and_second(project):
    node_project(project)
    tsconfig = project.read("tsconfig.json").replace('"noEmit": true', '"noEmit": true, "incremental": true')
    project.write("tsconfig.json", tsconfig)
    project.write(".gitignore", "node_modules\n*.tsbuildinfo\n")
    project.git("add", "-A")
    project.git("commit", "-qm", "incremental tsc")
    stamp_ahead(project, "src/add.ts", "src/util.js")
    out = project.rt("start", "change add")
    assert "- tsc: 0 diagnostic(s)" in out and "- eslint: 0 diagnostic(s)" in out
    project.rt("plan", "--edit", "src/add.ts", "src/util.js")
    rewrite_keeping_size_and_time(project, "src/add.ts", "return a + b;", "return `${a}`")
    rewrite_keeping_size_and_time(project, "src/util.js", "return 2 * x;", "const y = +x;")
    project.rt("verify", ret=1)
    md = verify_md(project)
    assert "- src/add.ts:2:3 tsc [TS2322] Type 'string' is not assignable to type 'number'." in md
    assert "src/util.js:2:9 eslint [no-unused-vars] 'y' is assigned a value but never used." in md


def test_the_cache_flags_go_before_a_double_dash(project):
    """`mypy -- calc.py`: flags after `--` would be read as files (mypy said there were none in .rt/cache/mypy)."""
    python_project(project, tools="mypy")
    project.write("rt.toml", '[checks.mypy]\ncommand = ["mypy", "--", "calc.py"]\n')
    project.git("add", "-A")
    project.git("commit", "-qm", "mypy on calc.py")
    for rel in ("calc.py", "legacy.py", "pyproject.toml", "rt.toml"):
        os.utime(project.root / rel, ns=(10**18, 10**18))   # 2001: the cache is kept
    assert "- mypy: 0 diagnostic(s)" in project.rt("start", "t")
    assert any(p.is_file() for p in (project.root / ".rt" / "cache" / "mypy").rglob("*"))
