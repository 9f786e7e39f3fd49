"""`rt install --sandbox` inside the real Claude Code client: the agent's shell cannot write `.git/` or `.rt/`
nor reach the network, where the guard cannot see (a Python script file), while `rt ...` still runs and
writes `.rt/`. The same session without the sandbox shows the script would have done all three."""
from __future__ import annotations

import shutil
import socket
import subprocess
import threading

import pytest

from tests.e2e.fakeapi import text, tool
from tests.e2e.harness import claude_binary, run_claude, tool_results
from tests.test_e2e_task import rt_on_path

def _sandbox_works() -> bool:
    """bubblewrap and socat present, and bubblewrap able to make the namespaces it needs here."""
    if shutil.which("bwrap") is None or shutil.which("socat") is None:
        return False
    probe = ["bwrap", "--unshare-net", "--ro-bind", "/", "/", "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


pytestmark = [
    pytest.mark.skipif(claude_binary() is None, reason="the Claude Code client is not installed (`bash .ci/run`)"),
    pytest.mark.skipif(not _sandbox_works(), reason="bubblewrap and socat are not installed, or cannot make "
                                                    "namespaces here (`apt-get install bubblewrap socat`)"),
]

SCRIPT = '''import pathlib, socket, sys
if len(sys.argv) > 1:
    pathlib.Path(sys.argv[1]).write_text("x")
out = []
for store in (".git", ".rt"):
    try:
        pathlib.Path(store, "evil").write_text("x")
        out.append(store + " written")
    except OSError as e:
        out.append(store + " refused: " + e.strerror)
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
    out.append("network open")
except OSError:
    out.append("network closed")
print("; ".join(out))
'''


@pytest.fixture
def listener():
    """A TCP port on this machine's loopback that accepts connections (outside any sandbox)."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                server.accept()[0].close()
            except OSError:
                pass
    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    stop.set()
    server.close()


def _session(project, tmp_path, port: int, sandboxed: bool):
    project.write("a.py", "x = 1\n")
    project.write(".gitignore", ".claude/\nprobe.py\n")
    project.init_git()
    project.write("probe.py", SCRIPT.format(port=port))
    project.write("rt.toml", '[checks.probe]\nkind = "test"\ncommand = ["python3", "probe.py", "ran-as-check"]\n')
    project.rt("install", *(["--sandbox"] if sandboxed else []))
    project.rt("start", "probe the shell", "--no-baseline")
    script = [[tool("Bash", command="python3 probe.py", description="probe")],
              [tool("Bash", command="rt baseline", description="baseline")],
              [tool("Bash", command="rt plan --edit a.py", description="plan")], [text("done")]]
    run = run_claude(project.root, tmp_path / "home", "probe", script, path=rt_on_path(tmp_path),
                     args=("--allowedTools", "Bash"))
    assert run.code == 0, run.stderr
    probe = tool_results(run.turns[1])[-1]
    step = tool_results(run.turns[3])[-1]
    return probe, step


def test_sandbox_keeps_git_and_rt_read_only_and_the_network_closed(project, tmp_path, listener):
    probe, step = _session(project, tmp_path, listener, sandboxed=True)
    content = str(probe["content"])
    assert ".git refused: Read-only file system" in content and ".rt refused: Read-only file system" in content
    assert "network closed" in content
    assert not (project.root / ".git" / "evil").exists() and not (project.root / ".rt" / "evil").exists()
    assert not step.get("is_error"), step  # rt itself runs outside the sandbox and writes .rt/
    assert project.rt_json("status")["task"]["scope"]["edit"] == ["a.py"]
    # `rt baseline` ran outside Claude's sandbox, and ran the probe as a check within the same bounds
    assert (project.root / "ran-as-check").exists()
    assert not (project.root / ".git" / "evil").exists() and not (project.root / ".rt" / "evil").exists()


def test_without_the_sandbox_the_same_script_writes_both_stores_and_connects(project, tmp_path, listener):
    probe, _ = _session(project, tmp_path, listener, sandboxed=False)
    content = str(probe["content"])
    assert ".git written" in content and ".rt written" in content and "network open" in content
    assert (project.root / ".git" / "evil").exists()
    subprocess.run(["rm", "-f", str(project.root / ".git" / "evil")], check=True)
