"""Test base: every test gets a real temporary repository and a `rt(...)` helper that checks the exit code.

Which tests run: the contract is the README's test command after `bash .ci/run`, which installs every
program the tests drive (the linters, type checkers and test runners, node and the Claude Code client,
go, bubblewrap ...). On a machine without one of them, a test that drives it is skipped, never failed,
with the reason `needs <program>: not installed here (`bash .ci/run` installs it)` (`needs()` below), and
the run ends with one line per missing program saying how many tests it cost."""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rt.cli import main  # noqa: E402

GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_NOSYSTEM": "1"}


def needs(*programs: str) -> None:
    """Skip the calling test, naming what is missing, unless every program it drives is on PATH."""
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)}: not installed here (`bash .ci/run` installs it)")


def pytest_terminal_summary(terminalreporter) -> None:
    """One line per program the machine lacks, with the number of tests skipped for it."""
    wanting: Counter = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if "bash .ci/run" in reason:
            named = re.match(r"(?:Skipped: )?needs (.+?): not installed here", reason)
            wanting.update(named.group(1).split(", ") if named else [reason.removeprefix("Skipped: ")])
    if wanting:
        terminalreporter.section("missing here, so tests were skipped (`bash .ci/run` installs them)")
        for what, count in sorted(wanting.items()):
            terminalreporter.write_line(f"{what}: {count} test(s) skipped")


def assert_error_line(stderr: str) -> None:
    """The README's promise for a failed command (exit 2 USAGE, 4 INTERNAL): it ends with one line on stderr,
    `rt: error: ...`, and nothing of a traceback (a check's progress lines may come before it)."""
    assert stderr.endswith("\n") and "Traceback" not in stderr, stderr
    last = stderr.rstrip("\n").rsplit("\n", 1)[-1]
    assert last.startswith("rt: error: ") and len(last) > len("rt: error: ") + 10, stderr
    assert stderr.count("rt: error: ") == 1, stderr


class Project:
    """A throwaway repository: write files, run git, run rt in-process or as a real process."""

    def __init__(self, root: Path):
        self.root = root

    def write(self, rel: str, content: str | bytes = "") -> Path:
        p = self.root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8")
        return p

    def read(self, rel: str) -> str:
        return (self.root / rel).read_text(encoding="utf-8")

    def git(self, *args: str) -> str:
        out = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True,
                             env={**os.environ, **GIT_ENV}, check=True)
        return out.stdout

    def init_git(self, commit: bool = True) -> None:
        self.git("init", "-q", "-b", "main")
        if commit:
            self.git("add", "-A")
            self.git("commit", "-q", "--allow-empty", "-m", "init")

    def rt(self, *args: str, ret: int = 0, cwd: Path | None = None) -> str:
        """Run rt in-process from `cwd` (default: the root); assert the exit code; return stdout."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.chdir(cwd or self.root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
        self.last_err = err.getvalue()
        assert code == ret, f"rt {' '.join(args)} exited {code}, wanted {ret}\nstdout:\n{out.getvalue()}\nstderr:\n{err.getvalue()}"
        if code in (2, 4) and args:
            assert_error_line(self.last_err)
        return out.getvalue()

    def rt_json(self, *args: str, ret: int = 0) -> dict:
        return json.loads(self.rt(*args, "--json", ret=ret))

    def rt_proc(self, *args: str, input: str | None = None, env: dict | None = None,
                cwd: Path | None = None) -> subprocess.CompletedProcess:
        """Run rt as a real process, as a hook or a user would."""
        return subprocess.run([sys.executable, "-m", "rt", *args], cwd=cwd or self.root, input=input,
                              capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})

    def imports(self, *args: str, input: str | None = None) -> tuple[subprocess.CompletedProcess, set[str]]:
        """Run rt as the hooks run it (`python -S -P -m rt`, no site-packages) and name every module the
        process imported (`-X importtime`): the lean-start-up tests."""
        proc = subprocess.run([sys.executable, "-S", "-P", "-X", "importtime", "-m", "rt", *args], cwd=self.root,
                              input=input, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        return proc, {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
                      if line.startswith("import time:")}


@pytest.fixture
def project(tmp_path) -> Project:
    root = tmp_path / "repo"
    root.mkdir()
    return Project(root.resolve())

# the tools .ci/run installs from npm live here; put them on PATH for every test
os.environ["PATH"] = os.pathsep.join([str(ROOT / ".ci" / "node_modules" / ".bin"), os.environ.get("PATH", "")])
os.environ["RT_HOOK_SERVER"] = "0"
"""No hook server is started by the hooks the tests run (each would live on in its test's folder); the tests of
the server start theirs themselves."""
