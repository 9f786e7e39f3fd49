"""Runaway checks: a detached child holding the check's output, a timeout on the whole session, and outputs of
20 MB and 200 MB kept in bounded memory (peak RSS measured, never time)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.checks_support import commit_config, python_project
from tests.conftest import ROOT

HOLDER = 'setsid sh -c \'cat "$0" > /dev/null\' {fifo} &'
"""A child in a session of its own, so the check's process group does not hold it, that keeps the check's
stdout and stderr open until the test writes into the fifo it reads."""


def _toml_list(argv: list[str]) -> str:
    return json.dumps(argv)


def _run_rt(project, *args: str) -> subprocess.CompletedProcess:
    """rt as a real process; the timeout only keeps a hang from stopping the suite (rt would wait forever
    for a held pipe without the fix): no assertion on time is made."""
    return subprocess.run([sys.executable, "-m", "rt", *args], cwd=project.root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)


def _release(fifo) -> bool:
    """Whether the holder is still reading the fifo (so rt returned while it held the pipes); ends it."""
    try:
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:   # ENXIO: no reader any more
        return False
    os.write(fd, b"go\n")
    os.close(fd)
    return True


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "hold.fifo"
    os.mkfifo(path)
    yield path
    _release(path)


def test_a_detached_child_holding_the_output_does_not_keep_the_check_running(project, fifo):
    python_project(project, tools="ruff", old_problem=False)
    script = HOLDER.format(fifo=fifo) + " echo 'tests/test_calc.py:1: E1 left something running'; exit 1"
    commit_config(project, f'[checks.holder]\nkind = "lint"\nparser = "generic"\ncommand = {_toml_list(["sh", "-c", script])}\n')
    proc = _run_rt(project, "start", "t")
    assert _release(fifo), "rt returned only once the detached child let go of its output"
    assert proc.returncode == 0, proc.stderr
    assert "- holder: 1 diagnostic(s)" in proc.stdout


def test_the_timeout_ends_the_session_even_with_a_detached_child(project, fifo):
    python_project(project, tools="ruff", old_problem=False)
    script = HOLDER.format(fifo=fifo) + " echo starting; sleep 1000"
    commit_config(project, f'[checks.slow]\nkind = "test"\ntimeout = 1\ncommand = {_toml_list(["sh", "-c", script])}\n')
    proc = _run_rt(project, "start", "t")
    assert _release(fifo)
    assert "- slow: could not run: timed out after 1s" in proc.stdout and "    | starting" in proc.stdout


def test_a_check_leaving_a_background_child_in_its_group_gets_it_killed(project, tmp_path):
    python_project(project, tools="ruff", old_problem=False)
    pidfile = tmp_path / "child.pid"
    script = f"sleep 1000 & echo $! > {pidfile}; echo done"
    commit_config(project, f'[checks.bg]\nkind = "lint"\nparser = "generic"\ncommand = {_toml_list(["sh", "-c", script])}\n')
    proc = _run_rt(project, "start", "t")
    assert "- bg: 0 diagnostic(s)" in proc.stdout, proc.stdout + proc.stderr
    pid = int(pidfile.read_text())
    state = open(f"/proc/{pid}/stat").read().split()[2] if os.path.exists(f"/proc/{pid}/stat") else "gone"
    assert state in ("Z", "gone")   # killed with its group (a zombie until init reaps it)


GEN = """
import sys
n = int(sys.argv[1]) * 1_000_000
w = i = 0
out = sys.stdout
while w < n:
    line = f"src/m{i % 997}.py:{i % 5000 + 1}:4: E{i % 500} something is wrong here, number {i}\\n"
    out.write(line)
    w += len(line)
    i += 1
print("src/last.py:1:1: E9 the very last one")
sys.exit(1)
"""

PEAK = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""
"""Runs a command and prints its peak RSS in KiB (its own: the generator it starts is far smaller)."""


@pytest.mark.parametrize("mb", [20, 200])
def test_huge_output_is_kept_in_bounded_memory_and_said(project, mb):
    python_project(project, tools="ruff", old_problem=False)
    project.write("gen.py", GEN)
    project.git("add", "gen.py")
    project.git("commit", "-qm", "gen")
    commit_config(project, f'[checks.loud]\nkind = "lint"\nparser = "generic"\ncommand = ["python3", "gen.py", "{mb}"]\n')
    peak = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "-m", "rt", "start", "t"], cwd=project.root,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=900)
    kib = int(peak.stdout)
    assert kib < 150_000, f"rt start peaked at {kib // 1024} MiB for {mb} MB of output"
    log = project.root / ".rt" / "tasks" / "1-t" / "baseline" / "loud.log"
    assert log.stat().st_size > mb * 1_000_000    # the whole output, on disk
    assert log.read_bytes().endswith(b"src/last.py:1:1: E9 the very last one\n")
    base = json.loads((project.root / ".rt" / "tasks" / "1-t" / "baseline.json").read_text())["checks"]["loud"]
    assert any(d["file"] == "src/last.py" for d in base["diagnostics"])   # the tail was parsed
    project.rt("plan", "--edit", "calc.py")
    project.write("calc.py", "def add(a: int, b: int) -> int:\n    return a + b  # same\n")
    verify = _verify(project)
    assert "- loud (lint): passed: nothing new" in verify
    assert f"output was {mb} MB (" in verify and "only its first and last 1 MiB were read" in verify
    assert "full output: .rt/tasks/1-t/verify/loud.log" in verify


def _verify(project) -> str:
    proc = _run_rt(project, "verify")
    assert proc.returncode in (0, 1, 3), proc.stderr
    return proc.stdout


def test_a_timed_out_program_run_by_rt_itself_does_not_wait_for_a_detached_child(project, fifo):
    """`core.run` (the editing hooks' formatter, git) ends at its timeout too, whoever holds its pipes."""
    script = HOLDER.format(fifo=fifo) + " echo starting; sleep 1000"
    code = ("import subprocess, sys\nfrom rt.core import run\ntry:\n    run(['sh', '-c', sys.argv[1]], '.', timeout=1)\n"
            "except subprocess.TimeoutExpired as e:\n    print('timed out', e.output)\n")
    proc = subprocess.run([sys.executable, "-c", code, script], cwd=project.root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)   # a hang guard, not a measure
    assert _release(fifo)
    assert proc.stdout == "timed out b'starting\\n'\n", proc.stderr


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_rt_ended_by_a_signal_ends_the_check_it_runs(project, tmp_path, sig):
    """A client that cancels `rt verify` (or shuts `rt mcp` down) signals rt alone; the check's group must
    not outlive it."""
    import signal
    import time
    python_project(project, tools="ruff", old_problem=False)
    pidfile = tmp_path / "child.pid"
    script = f"sleep 1000 & echo $! > {pidfile}; wait"
    commit_config(project, f'[checks.slow]\nkind = "test"\ncommand = {_toml_list(["sh", "-c", script])}\n')
    proc = subprocess.Popen([sys.executable, "-m", "rt", "start", "t"], cwd=project.root, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    for _ in range(600):   # until the check has started its child (not a timing assertion: a wait)
        if pidfile.exists() and pidfile.read_text().strip():
            break
        time.sleep(0.1)
    pid = int(pidfile.read_text())
    proc.send_signal(getattr(signal, sig))
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and err.strip() == "rt: error: interrupted", (proc.returncode, out, err)
    state = open(f"/proc/{pid}/stat").read().split()[2] if os.path.exists(f"/proc/{pid}/stat") else "gone"
    assert state in ("Z", "gone"), "the check's child outlived rt"
