"""`rt install --sandbox`: Claude Code's sandbox settings merged into the user's and taken out again exactly,
and the checks rt runs outside the agent's sandbox kept within the same bounds (real bubblewrap)."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys

import pytest

from rt.sandbox import bounded

MINE = {
    "model": "opus",
    "permissions": {"allow": ["Read"]},
    "sandbox": {"enabled": False, "excludedCommands": ["docker:*"], "network": {"allowedDomains": ["pypi.org"]},
                "filesystem": {"denyWrite": [".env"]}},
}


def settings(project) -> dict:
    return json.loads(project.read(".claude/settings.json"))


def test_sandbox_install_merges_and_uninstall_restores_exactly(project):
    project.init_git()
    project.write(".claude/settings.json", json.dumps(MINE, indent=1))
    out = project.rt("install", "--sandbox")
    assert "backup of the previous settings" in out and "sandbox: Bash runs with .git/ and .rt/ read-only" in out
    box = settings(project)["sandbox"]
    assert box["enabled"] is True and box["failIfUnavailable"] is True and box["allowUnsandboxedCommands"] is False
    assert box["excludedCommands"] == ["docker:*", "rt:*"]
    assert box["filesystem"]["denyWrite"] == [".env", ".git", ".rt"]
    assert box["network"] == {"allowedDomains": ["pypi.org"]}
    assert json.loads(project.read(".claude/settings.json.rt-backup")) == MINE
    assert "nothing to change" in project.rt("install", "--sandbox")
    project.rt("install", "--uninstall")
    assert settings(project) == MINE


def test_sandbox_added_to_an_existing_install_and_taken_out_with_it(project):
    project.init_git()
    project.rt("install")
    plain = settings(project)
    project.rt("install", "--sandbox")
    assert settings(project) == plain | {"sandbox": {
        "enabled": True, "failIfUnavailable": True, "allowUnsandboxedCommands": False,
        "excludedCommands": ["rt:*"], "filesystem": {"denyWrite": [".git", ".rt"]}}}
    project.rt("install", "--uninstall")   # no backup of settings that were all rt's: nothing of it is left
    assert not (project.root / ".claude").exists()


def test_sandbox_settings_of_the_wrong_shape_are_refused(project):
    project.init_git()
    project.write(".claude/settings.json", json.dumps({"sandbox": {"excludedCommands": "rt"}}))
    project.rt("install", "--sandbox", ret=2)
    assert '"sandbox" is not an object' in project.last_err
    assert json.loads(project.read(".claude/settings.json")) == {"sandbox": {"excludedCommands": "rt"}}


def test_doctor_tells_the_sandbox_is_on(project, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    project.init_git()
    project.rt("install", "--sandbox")
    out = project.rt_proc("doctor").stdout
    assert "sandbox on (.git/ and .rt/ read-only)" in out


def _bwrap_works() -> bool:
    if shutil.which("bwrap") is None:
        return False
    return subprocess.run(["bwrap", "--unshare-net", "--ro-bind", "/", "/", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _bwrap_works(), reason="needs bwrap: not installed here, or it cannot make namespaces (`bash .ci/run` installs it)")
def test_checks_run_within_the_sandbox_bounds_once_it_is_installed(project):
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("start", "t", "--no-baseline")
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    probe = [sys.executable, "-c", f"""
import pathlib, socket
for store in ('.git', '.rt', 'src'):
    try:
        pathlib.Path(store).mkdir(exist_ok=True)
        pathlib.Path(store, 'probe').write_text('x')
        print(store, 'written')
    except OSError as e:
        print(store, 'refused')
try:
    socket.create_connection(('127.0.0.1', {port}), timeout=5).close()
    print('network open')
except OSError:
    print('network closed')
"""]
    try:
        assert bounded(project.root, probe) == probe  # not installed: run as it is
        free = subprocess.run(probe, cwd=project.root, capture_output=True, text=True).stdout
        assert ".git written" in free and ".rt written" in free and "network open" in free
        for store in (".git", ".rt", "src"):
            (project.root / store / "probe").unlink()
        project.rt("install", "--sandbox")
        boxed = subprocess.run(bounded(project.root, probe), cwd=project.root, capture_output=True, text=True).stdout
    finally:
        server.close()
    assert boxed.split("\n")[:4] == [".git refused", ".rt refused", "src written", "network closed"]
    assert not (project.root / ".git" / "probe").exists()


@pytest.mark.skipif(not _bwrap_works(), reason="needs bwrap: not installed here, or it cannot make namespaces (`bash .ci/run` installs it)")
def test_a_sandboxed_check_writes_its_tool_cache_in_rt_and_nothing_else_there(project, tmp_path, monkeypatch):
    """mypy's cache is rt's (`.rt/cache/mypy/`): the sandbox keeps `.rt/` read-only but that folder."""
    from tests.checks_support import python_project
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    python_project(project, tools="mypy")
    project.rt("install", "--sandbox")
    project.write("calc.py", "def add(a: int, b: int) -> str:\n    return a + b\n")
    for rel in ("calc.py", "legacy.py"):   # long before the run, so the run keeps its cache
        os.utime(project.root / rel, ns=(10**18, 10**18))
    out = project.rt("start", "typed")
    assert "- mypy: 1 diagnostic(s)" in out
    assert any(p.is_file() for p in (project.root / ".rt" / "cache" / "mypy").rglob("*"))
    probe = [sys.executable, "-c", "open('.rt/state.json', 'a')"]
    assert subprocess.run(bounded(project.root, probe, (project.root / ".rt" / "cache" / "mypy",)),
                          cwd=project.root, capture_output=True).returncode != 0
