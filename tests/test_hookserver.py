"""The hook server and its client (`rt/claude/hook.sh`): the same answers as `rt hook <event>`, no process
started for a hook the server answers, and the fresh hook whenever the server cannot answer."""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.hooks_support import bash, edit, planned

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the hook client needs bash")

RUFF = ('[checks.ruff]\nkind = "lint"\nparser = "ruff"\n'
        'command = ["ruff", "check", "--output-format=concise", "--no-cache", "."]\n'
        'per_file = ["ruff", "check", "--output-format=concise", "--no-cache", "{file}"]\nfiles = ["*.py"]\n')


class Client:
    """The installed hook command of a project: `bash hook.sh <event>` with RT_PY a wrapper that counts the
    Python processes the hooks start (the server, started by one of them on the real interpreter, is not one)."""

    def __init__(self, project, tmp: Path, rt_root: Path = ROOT):
        self.project, self.log = project, tmp / "starts.log"
        self.wrapper = tmp / "python-counting"
        self.wrapper.write_text(f'#!/bin/sh\necho start >> "{self.log}"\nexec "{sys.executable}" "$@"\n')
        self.wrapper.chmod(0o755)
        self.script = rt_root / "rt" / "claude" / "hook.sh"
        self.env = {k: v for k, v in os.environ.items() if k not in ("RT_HOOK_SERVER", "PYTHONPATH")}
        self.env.update(RT_PY=str(self.wrapper), PYTHONPATH=str(rt_root), CLAUDE_PROJECT_DIR=str(project.root))

    def __call__(self, event: str, data: dict | str) -> tuple[int, str, str]:
        raw = data if isinstance(data, str) else json.dumps(data)
        proc = subprocess.run(["bash", str(self.script), event], input=raw, capture_output=True, text=True,
                              cwd=self.project.root, env=self.env, timeout=60)
        return proc.returncode, proc.stdout, proc.stderr

    @property
    def starts(self) -> int:
        return self.log.read_text().count("start") if self.log.exists() else 0

    def direct(self, event: str, data: dict | str) -> tuple[int, str, str]:
        """The same hook as its own process, `rt hook <event>`, without the server."""
        raw = data if isinstance(data, str) else json.dumps(data)
        env = {**self.env, "RT_HOOK_SERVER": "0"}
        proc = subprocess.run([sys.executable, "-S", "-P", "-m", "rt", "hook", event], input=raw,
                              capture_output=True, text=True, cwd=self.project.root, env=env, timeout=60)
        return proc.returncode, proc.stdout, proc.stderr


def state(project) -> list[str] | None:
    path = project.root / ".rt" / "hookserver"
    return path.read_text().split() if path.exists() else None


def wait_for_server(project, not_pid: str | None = None) -> list[str]:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        found = state(project)
        if found and found[2] != not_pid:
            try:
                socket.create_connection(("127.0.0.1", int(found[0])), timeout=1).close()
                return found
            except OSError:
                pass
        time.sleep(0.05)
    raise AssertionError("no hook server came up")


def gone(pid: int, within: float = 10) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:   # a child of ours that exited is reaped here (the server is not a child: no error either way)
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        time.sleep(0.05)
    return False


@pytest.fixture
def served(project, tmp_path):
    """A planned task (a.py in scope) with ruff as its check and its baseline, for a client whose first hook
    starts the server."""
    project.write("a.py", "x = 1\n")
    project.write("b.py", "y = 2\n")
    project.write("rt.toml", RUFF)
    project.init_git()
    project.rt("start", "change x")
    project.rt("plan", "--edit", "a.py")
    client = Client(project, tmp_path)
    yield client
    found = state(project)
    if found:
        try:
            os.kill(int(found[2]), signal.SIGTERM)
        except ProcessLookupError:
            pass


def test_the_server_answers_as_rt_hook_does_and_starts_no_process(project, served):
    calls = [("pre-tool-use", edit(project, "a.py")), ("pre-tool-use", edit(project, "b.py")),
             ("pre-tool-use", edit(project, "/etc/passwd")),
             ("pre-tool-use", bash(project, "git push --force origin main")),
             ("pre-tool-use", bash(project, "ls")),
             ("pre-tool-use", "this is not JSON"),            # fails closed: exit 2 and the reason on stderr
             ("post-tool-use", edit(project, "a.py", event="PostToolUse")),
             ("stop", {"session_id": "s1", "cwd": str(project.root), "hook_event_name": "Stop",
                       "stop_hook_active": False})]
    first = served(*calls[0])
    assert first == served.direct(*calls[0]) and served.starts == 1
    wait_for_server(project)
    project.write("a.py", "import os\nx = 1\n")   # a new ruff finding for the post-edit hook
    for event, data in calls:
        assert served(event, data) == served.direct(event, data), (event, data)
    assert served.starts == 1
    codes = {served(e, d)[0] for e, d in calls}
    assert codes == {0, 2}
    post = served(*calls[6])[1]
    assert "F401" in post and "os" in post


def test_a_server_killed_or_gone_leaves_the_hook_to_its_own_process_which_starts_another(project, served):
    data = edit(project, "b.py")
    served("pre-tool-use", data)
    port, _, pid = wait_for_server(project)
    os.kill(int(pid), signal.SIGKILL)
    assert gone(int(pid))
    assert served("pre-tool-use", data) == served.direct("pre-tool-use", data)   # the stale file's port: refused
    assert served.starts == 2
    assert wait_for_server(project, not_pid=pid)[2] != pid
    served("pre-tool-use", data)
    assert served.starts == 2


def test_the_server_exits_when_its_state_file_or_the_store_goes(project, served):
    served("pre-tool-use", edit(project, "a.py"))
    pid = int(wait_for_server(project)[2])
    (project.root / ".rt" / "hookserver").unlink()
    assert gone(pid)
    served("pre-tool-use", edit(project, "a.py"))
    pid = int(wait_for_server(project)[2])
    os.kill(pid, signal.SIGTERM)   # stopped: gone, its state file with it
    assert gone(pid) and state(project) is None
    served("pre-tool-use", edit(project, "a.py"))
    pid = int(wait_for_server(project)[2])
    shutil.rmtree(project.root / ".rt")
    assert gone(pid)
    assert served("pre-tool-use", edit(project, "a.py")) == (0, "", "")   # rt not in use here: no answer


def test_a_request_not_for_the_server_is_retried_by_the_client_itself(project, served, tmp_path):
    served("pre-tool-use", edit(project, "a.py"))
    port, token, pid = wait_for_server(project)

    def ask(head: str, body: str) -> bytes:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as s:
            s.sendall(f"{head}\n{served.wrapper}\n{ROOT}\n{project.root}\n{os.environ['PATH']}\n{body}\0".encode())
            return s.makefile("rb").read().split(b"\n", 1)[1]

    good = json.dumps(edit(project, "b.py"))
    assert ask(f"RT-HOOK 1 {token} pre-tool-use", good).startswith(b"0\n{")
    assert ask(f"RT-HOOK 1 {'0' * 32} pre-tool-use", good) == b"retry\n"      # another token
    assert ask(f"RT-HOOK 1 {token} no-such-event", good) == b"retry\n"
    with socket.create_connection(("127.0.0.1", int(port)), timeout=5) as s:   # another interpreter
        s.sendall(f"RT-HOOK 1 {token} pre-tool-use\n/usr/bin/python9\n{ROOT}\n{project.root}\n/bin\n{good}\0".encode())
        assert s.makefile("rb").read() == f"RT-HOOK-SERVER {pid}\nretry\n".encode()
    other = tmp_path / "other"   # a session whose task lives in another repository: that repository's answer
    other.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=other, check=True)
    subprocess.run([sys.executable, "-m", "rt", "start", "another task", "--no-baseline"], cwd=other, check=True,
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    theirs = edit(project, str(other / "c.py")) | {"cwd": str(other)}
    starts = served.starts
    answer = served("pre-tool-use", theirs)
    assert answer == served.direct("pre-tool-use", theirs) and "another-task" in answer[1]
    assert served.starts == starts + 1


def test_rt_code_changed_since_the_server_started_means_a_new_server(project, tmp_path):
    planned(project)
    copy = tmp_path / "rtcopy"
    shutil.copytree(ROOT / "rt", copy / "rt", ignore=shutil.ignore_patterns("__pycache__"))
    client = Client(project, tmp_path, rt_root=copy)
    data = edit(project, "b.py")
    client("pre-tool-use", data)
    pid = wait_for_server(project)[2]
    client("pre-tool-use", data)
    assert client.starts == 1
    hooks_py = copy / "rt" / "claude" / "hooks.py"
    later = hooks_py.stat().st_mtime_ns + 5_000_000_000
    os.utime(hooks_py, ns=(later, later))
    assert client("pre-tool-use", data) == client.direct("pre-tool-use", data)
    assert client.starts == 2 and gone(int(pid))
    new = wait_for_server(project, not_pid=pid)
    os.kill(int(new[2]), signal.SIGTERM)


def test_no_server_where_rt_hook_server_is_0(project, served):
    served.env["RT_HOOK_SERVER"] = "0"
    for _ in range(2):
        served("pre-tool-use", edit(project, "a.py"))
    time.sleep(0.5)
    assert state(project) is None and served.starts == 2


@pytest.mark.skipif(shutil.which("claude") is None, reason="needs claude (the Claude Code client): `bash .ci/run` installs it")
def test_the_real_client_gets_the_servers_answers(project, tmp_path, monkeypatch):
    """`rt install`'s hooks in a real session: after the first hooks the server answers the rest (no Python
    started for them), and the model still sees the post-edit finding and the scope's denial."""
    import shlex
    from tests.e2e.fakeapi import text, tool
    from tests.e2e.harness import run_claude, seen, tool_results
    monkeypatch.delenv("RT_HOOK_SERVER")
    project.write("pyproject.toml", '[project]\nname = "demo"\n\n[tool.ruff]\nline-length = 100\n')
    project.write("app.py", "def total(xs):\n    return sum(xs)\n")
    project.write("util.py", "def helper():\n    return 1\n")
    project.write(".gitignore", ".claude/\n")
    project.init_git()
    project.rt("install")
    client = Client(project, tmp_path)
    settings = project.root / ".claude" / "settings.json"
    text_ = settings.read_text()
    assert f"RT_PY={shlex.quote(sys.executable)} " in text_
    settings.write_text(text_.replace(f"RT_PY={shlex.quote(sys.executable)} ", f"RT_PY={client.wrapper} "))
    project.rt("start", "tidy the app")
    project.rt("plan", "--edit", "app.py")
    path = str(project.root / "app.py")
    script = [[tool("Read", file_path=path)],
              [tool("Edit", file_path=path, old_string="def total", new_string="import os\n\n\ndef total")],
              [tool("Edit", file_path=path, old_string="sum(xs)", new_string="sum(xs) + 0")],
              [tool("Edit", file_path=str(project.root / "util.py"), old_string="return 1", new_string="return 2")],
              [text("done")]]
    try:
        run = run_claude(project.root, tmp_path / "home", "tidy the app", script)
    finally:
        found = state(project)
        if found:
            os.kill(int(found[2]), signal.SIGTERM)
    assert run.code == 0, run.stderr
    assert "F401" in seen(run.turns[2])
    assert "util.py is outside the approved scope" in tool_results(run.turns[4])[-1]["content"]
    # SessionStart, UserPromptSubmit, 3 PreToolUse, 2 PostToolUse, Stop: 8 hooks; the first one or two
    # (before the server is up) start Python
    assert found is not None and client.starts <= 3, client.starts


def test_each_hook_runs_the_checks_found_on_its_own_path(project, served, tmp_path):
    """The server was started from one hook's environment; a later hook with another PATH (a session in
    another virtual environment) runs the programs that PATH finds, as its own process would."""
    served("pre-tool-use", edit(project, "a.py"))
    wait_for_server(project)
    other = tmp_path / "otherbin"
    other.mkdir()
    fake = other / "ruff"
    fake.write_text('#!/bin/sh\nfor a; do f=$a; done\necho "$f:1:1: F999 a finding of the other ruff"\nexit 1\n')
    fake.chmod(0o755)
    post = edit(project, "a.py", event="PostToolUse")
    project.write("a.py", "import os\nx = 1\n")
    first = served("post-tool-use", post)
    assert "F401" in first[1] and "F999" not in first[1]
    served.env["PATH"] = f"{other}{os.pathsep}{served.env['PATH']}"
    second = served("post-tool-use", post)
    assert second == served.direct("post-tool-use", post)
    assert "F999" in second[1], second
    assert served.starts == 1


def test_a_port_now_another_programs_gets_no_token_and_the_hook_is_answered(project, served):
    """A state file left by a server that died, whose port another program now listens on: that program is
    sent nothing (it does not greet as the server named in the file), and the hook answers all the same."""
    data = edit(project, "b.py")
    served("pre-tool-use", data)
    pid = wait_for_server(project)[2]
    os.kill(int(pid), signal.SIGKILL)
    assert gone(int(pid))
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen(1)
    token = "f" * 32
    (project.root / ".rt" / "hookserver").write_text(f"{squatter.getsockname()[1]} {token} {pid}\n")
    served.env["RT_HOOK_SERVER"] = "0"   # the fallback starts no new server: the squatter stays the file's
    start = time.monotonic()
    assert served("pre-tool-use", data) == served.direct("pre-tool-use", data)
    conn, _ = squatter.accept()
    conn.settimeout(1)
    assert conn.recv(100) == b""   # the client said nothing and hung up
    conn.close()
    squatter.close()
    assert time.monotonic() - start < 10


def test_runtask_through_the_server_gives_the_same_injection(project, tmp_path):
    """`/runtask` (the task started, the index built, the manifest and pack injected) answered by the server
    equals `rt hook user-prompt-submit` in a copy of the same repository."""
    from tests.conftest import Project
    for i in range(12):
        project.write(f"pkg/mod{i}.py", f"def helper_{i}(total):\n    return total * {i}\n")
    project.write("pkg/billing.py", "def grand_total(items):\n    return sum(i.price for i in items)\n")
    project.init_git()
    project.rt("index")   # .rt/ in use, as after an earlier look-up
    twin = Project((tmp_path / "twin").resolve())
    shutil.copytree(project.root, twin.root, symlinks=True)
    (tmp_path / "twin-client").mkdir()
    served, direct = Client(project, tmp_path), Client(twin, tmp_path / "twin-client")
    served("session-start", {"session_id": "s1", "cwd": str(project.root), "hook_event_name": "SessionStart",
                             "source": "startup"})
    pid = wait_for_server(project)[2]
    answers = []
    try:
        for prompt in ("/runtask make grand_total skip items without a price", "/runtask double helper_3"):
            for repo in (project, twin):   # a second /runtask: the server's kept index, no task left active
                shutil.rmtree(repo.root / ".rt" / "tasks", ignore_errors=True)
                (repo.root / ".rt" / "state.json").unlink(missing_ok=True)
            ours = served("user-prompt-submit", {"session_id": "s1", "cwd": str(project.root),
                                                 "hook_event_name": "UserPromptSubmit", "prompt": prompt})
            theirs = direct.direct("user-prompt-submit", {"session_id": "s1", "cwd": str(twin.root),
                                                          "hook_event_name": "UserPromptSubmit", "prompt": prompt})
            assert ours == theirs, prompt
            answers.append(ours[1])
    finally:
        os.kill(int(pid), signal.SIGTERM)
    assert served.starts == 1
    assert "pkg/billing.py" in answers[0] and "grand_total" in answers[0]
    assert "pkg/mod3.py" in answers[1] and "helper_3" in answers[1]


def rt_cli(project, *args: str, cwd: Path | None = None, env: dict | None = None, served: bool = True):
    """`python -S -m rt ARGS` as its own process: (exit code, stdout, stderr, whether it imported rt.cli)."""
    base = {k: v for k, v in os.environ.items() if k != "RT_HOOK_SERVER"}
    base.update({"PYTHONPATH": str(ROOT), **(env or {})})
    if not served:
        base["RT_HOOK_SERVER"] = "0"
    proc = subprocess.run([sys.executable, "-S", "-X", "importtime", "-m", "rt", *args], cwd=cwd or project.root,
                          capture_output=True, text=True, env=base, timeout=60)
    lines = proc.stderr.splitlines()
    err = "\n".join(line for line in lines if not line.startswith("import time:"))
    return proc.returncode, proc.stdout, err, any(line.endswith(" rt.cli") for line in lines)


def test_look_ups_from_the_command_line_are_answered_by_the_server(project, served):
    project.write("pkg/helpers.py", "def shared_helper(x):\n    return x + 1\n\n\nclass Basket:\n    pass\n")
    project.write("pkg/use.py", "from pkg.helpers import shared_helper\n\nprint(shared_helper(2))\n")
    project.git("add", "-A")
    project.git("commit", "-qm", "more")
    served("pre-tool-use", edit(project, "a.py"))
    wait_for_server(project)
    lines = [("refs", "shared_helper"), ("symbol", "Basket"), ("find", "shared_helper"), ("outline", "pkg/helpers.py"),
             ("slice", "pkg/helpers.py", "--lines", "1-2"), ("pack", "shared helper"), ("delta",), ("status",),
             ("refs", "shared_helper", "--json"), ("slice", "pkg/nope.py", "--lines", "1-2"), ("slice", "x")]
    for args in lines:
        here = rt_cli(project, *args, served=False)
        there = rt_cli(project, *args)
        assert there[:3] == here[:3], args
        assert here[3] and not there[3], args   # the served run never imported the command line
    assert rt_cli(project, "slice", "pkg/nope.py", "--lines", "1-2")[0] != 0   # errors keep their exit codes
    sub = project.root / "pkg"   # relative paths from a subfolder
    assert rt_cli(project, "slice", "helpers.py", "--lines", "1-2", cwd=sub)[:3] == \
        rt_cli(project, "slice", "helpers.py", "--lines", "1-2", cwd=sub, served=False)[:3]
    project.write("pkg/later.py", "def added_after_the_server_started():\n    return 3\n")   # the kept index follows
    got = rt_cli(project, "symbol", "added_after_the_server_started")
    assert got[0] == 0 and "pkg/later.py" in got[1] and not got[3]
    assert rt_cli(project, "tasks")[3]   # not a look-up: run here


def test_find_through_the_server_answers_as_a_fresh_process_after_locale_files_change(project, served):
    """The server keeps what `rt find` derived from each file between look-ups: a locale file rewritten in place
    with the same size and its mtime put back, or rewritten again within the same second, is read again."""
    from tests.test_find_kept import DE, EN, QUERIES, same_size_rewrite
    project.write("locales/en.json", json.dumps(EN, indent=2) + "\n")
    project.write("locales/de.json", json.dumps(DE, indent=2) + "\n")
    project.write("src/share.tsx", 'export const Share = () => <p>{t("share.copied")}</p>;\n')
    project.git("add", "-A")
    project.git("commit", "-qm", "locales")
    served("pre-tool-use", edit(project, "a.py"))
    wait_for_server(project)
    time.sleep(1.1)   # the files settled: the server keeps them from the next look-up on
    for args in QUERIES + QUERIES:
        there = rt_cli(project, *args)
        assert there[:3] == rt_cli(project, *args, served=False)[:3] and not there[3], args
    time.sleep(0.05)
    same_size_rewrite(project.root / "locales/de.json", "Link kopiert", "Lenk kopiert")
    for text in ("Lenk kopiert", "Link kopiert"):
        there = rt_cli(project, "find", text)
        assert there[:3] == rt_cli(project, "find", text, served=False)[:3] and not there[3], text
    assert "locales/de.json:3" in rt_cli(project, "find", "Lenk kopiert")[1]
    same_size_rewrite(project.root / "locales/de.json", "Lenk kopiert", "Lonk kopiert")   # the same second
    there = rt_cli(project, "find", "Lonk kopiert", "--json")
    assert there[:3] == rt_cli(project, "find", "Lonk kopiert", "--json", served=False)[:3] and not there[3]
    assert json.loads(there[1])["hits"][0]["path"] == "locales/de.json"


def test_a_command_line_not_for_the_server_runs_where_it_was_typed(project, served, tmp_path):
    served("pre-tool-use", edit(project, "a.py"))
    wait_for_server(project)
    nested = project.root / "vendor" / "lib"   # a repository of its own inside, without .rt/
    nested.mkdir(parents=True)
    (nested / "mod.py").write_text("def only_in_nested():\n    return 1\n")
    subprocess.run(["git", "init", "-q"], cwd=nested, check=True)
    got = rt_cli(project, "symbol", "only_in_nested", cwd=nested)
    assert got[3] and got[:3] == rt_cli(project, "symbol", "only_in_nested", cwd=nested, served=False)[:3]
    copy = tmp_path / "rtcopy"   # another rt than the server's
    shutil.copytree(ROOT / "rt", copy / "rt", ignore=shutil.ignore_patterns("__pycache__"))
    assert rt_cli(project, "status", env={"PYTHONPATH": str(copy)})[3]
    assert rt_cli(project, "status", served=False)[3]


def _ctrl_c_as_a_terminal_has_it() -> None:
    """SIGINT at its default in the child: a suite started in the background (`cmd &` in a script) runs with
    SIGINT ignored, which the child inherits, so it would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_the_server_works_ends_the_look_up_as_rt_does(project, tmp_path):
    """A server that greets and then takes its time: Ctrl-C in the waiting command line gives rt's own one-line
    error and exit code (as `rt.cli.main` gives them), no traceback."""
    project.write("a.py", "x = 1\n")
    project.init_git()
    project.rt("index")
    slow = socket.socket()
    slow.bind(("127.0.0.1", 0))
    slow.listen(1)
    (project.root / ".rt" / "hookserver").write_text(f"{slow.getsockname()[1]} {'a' * 32} 4242\n")
    env = {k: v for k, v in os.environ.items() if k != "RT_HOOK_SERVER"} | {"PYTHONPATH": str(ROOT)}
    for json_out in (False, True):
        proc = subprocess.Popen([sys.executable, "-S", "-m", "rt", "refs", "x"] + (["--json"] if json_out else []),
                                cwd=project.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=_ctrl_c_as_a_terminal_has_it)
        conn, _ = slow.accept()
        conn.sendall(b"RT-HOOK-SERVER 4242\n")
        conn.settimeout(10)
        request = b""
        while not request.endswith(b"\0"):
            request += conn.recv(1 << 16)
        assert b' cli\n' in request.split(b"\n", 1)[0] + b"\n" and b'"argv": ["refs", "x"' in request
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
        conn.close()
        assert (proc.returncode, err) == (2, "rt: error: interrupted\n")
        assert json.loads(out) == {"error": "interrupted", "exit": 2} if json_out else out == ""
    slow.close()


def test_doctor_tells_whether_the_server_is_up_and_uninstall_stops_it(project, served, monkeypatch):
    from rt.claude.hookserver import status
    project.rt("install")
    monkeypatch.delenv("RT_HOOK_SERVER")
    assert status(str(project.root)) == "not running: the next hook starts it"
    served("pre-tool-use", edit(project, "a.py"))
    pid = wait_for_server(project)[2]
    assert f"hook server: up (process {pid})" in project.rt("doctor")
    monkeypatch.setenv("RT_HOOK_SERVER", "0")
    assert "hook server: off (RT_HOOK_SERVER=0)" in project.rt("doctor")
    out = project.rt("install", "--uninstall")
    assert "stopped the hook server" in out and gone(int(pid)) and state(project) is None


def test_a_hook_arriving_while_the_server_is_busy_runs_in_its_own_process(project, tmp_path):
    """The server answers one request at a time: while a slow post-edit check runs in it, the next hook does not
    wait for it (no greeting in time: it runs as `rt hook` itself), and both answers are right."""
    project.write("a.py", "x = 1\n")
    project.write("b.py", "y = 2\n")
    project.write("rt.toml", '[checks.slow]\nkind = "lint"\nparser = "ruff"\ncommand = ["sh", "-c", "true"]\n'
                             'per_file = ["sh", "-c", "sleep 4", "{file}"]\nfiles = ["*.py"]\n')
    project.init_git()
    project.rt("start", "change x")
    project.rt("plan", "--edit", "a.py")
    client = Client(project, tmp_path)
    gate = edit(project, "b.py")
    client("pre-tool-use", gate)
    pid = wait_for_server(project)[2]
    try:
        post = json.dumps(edit(project, "a.py", event="PostToolUse"))
        slow = subprocess.Popen(["bash", str(client.script), "post-tool-use"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=project.root,
                                env=client.env)
        slow.stdin.write(post)
        slow.stdin.close()
        time.sleep(1)   # the server is in the check now
        starts = client.starts
        assert client("pre-tool-use", gate) == client.direct("pre-tool-use", gate)
        assert client.starts == starts + 1   # answered by its own process, not after the check
        assert slow.wait(timeout=60) == 0 and "could not" not in slow.stdout.read()
        assert slow.returncode == 0
    finally:
        os.kill(int(pid), signal.SIGTERM)


def test_a_payload_slow_to_arrive_is_judged_not_let_through(project, served):
    """The client read its stdin only after the server greeted it, and the server gives a request 2 s: a payload
    that took longer to arrive (a Write of a large file: bash reads a pipe a byte at a time, 16 MB in about 4 s)
    had the server hang up and the client die of SIGPIPE, answering nothing, and Claude Code ran the out-of-scope
    edit. The payload is read first; the server's answer is the fresh hook's."""
    data = edit(project, "b.py")
    served("pre-tool-use", data)
    pid = wait_for_server(project)[2]
    try:
        raw = json.dumps(data)
        proc = subprocess.Popen(["bash", str(served.script), "pre-tool-use"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=project.root,
                                env=served.env)
        proc.stdin.write(raw[:20])
        proc.stdin.flush()
        time.sleep(3)   # Claude Code still writing a large payload
        out, err = proc.communicate(raw[20:], timeout=60)
        assert (proc.returncode, out, err) == served.direct("pre-tool-use", data)
        assert "outside the approved scope" in out
        assert served.starts == 1 and state(project)[2] == pid   # the server answered it
    finally:
        os.kill(int(pid), signal.SIGTERM)


def test_a_server_that_hangs_up_mid_request_leaves_the_hook_to_its_own_process(project, served):
    """A server that dies or drops the connection while the client sends (killed, out of memory) killed the
    client with SIGPIPE: no answer, and Claude Code ran the edit the gate denies. The client runs the hook itself."""
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    (project.root / ".rt" / "hookserver").write_text(f"{port} t0ken {os.getpid()}\n")

    def hang_up():
        conn, _ = listener.accept()
        conn.sendall(f"RT-HOOK-SERVER {os.getpid()}\n".encode())
        conn.recv(1)
        conn.close()
    import threading
    thread = threading.Thread(target=hang_up, daemon=True)
    thread.start()
    data = edit(project, "b.py")
    data["tool_input"]["new_string"] = "y = 3\n" * 200_000
    served.env["RT_HOOK_SERVER"] = "0"
    try:
        assert served("pre-tool-use", data) == served.direct("pre-tool-use", data)
        assert "outside the approved scope" in served("pre-tool-use", data)[1]
    finally:
        listener.close()
        (project.root / ".rt" / "hookserver").unlink()   # names this process: not for the fixture to stop


@pytest.mark.parametrize("kind", ["fifo", "folder"])
def test_a_server_file_that_is_no_file_leaves_the_hook_to_its_own_process(project, served, kind):
    """A FIFO where the server's file goes hung every hook (bash's `read`, then the hook's own look for a server,
    waited for a writer); a folder printed bash's read error on each. Neither is a server's: the hook runs in its
    own process."""
    path = project.root / ".rt" / "hookserver"
    os.mkfifo(path) if kind == "fifo" else path.mkdir()
    data = edit(project, "b.py")
    try:
        code, out, err = served("pre-tool-use", data)
        assert (code, out) == served.direct("pre-tool-use", data)[:2] and "outside the approved scope" in out
        assert err == "", err
    finally:
        path.unlink() if kind == "fifo" else path.rmdir()
