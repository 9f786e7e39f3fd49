"""Conformance with the official MCP Python SDK's client (test-only dependency `mcp`, .ci/requirements.txt):
the handshake as the SDK negotiates it, the tool list, a call of every tool in a task's order, errors,
and a server killed in the middle of a call."""
from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import pytest

from rt.mcp import tools
from tests.mcp_support import ROOT, WAIT, shop

mcp = pytest.importorskip("mcp", reason="the MCP SDK is a test dependency: pip install -r .ci/requirements.txt")
anyio = pytest.importorskip("anyio")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402


def client(root: Path, command: str = sys.executable, args: tuple[str, ...] = ("-m", "rt", "mcp")) -> Client:
    return Client(StdioServerParameters(command=command, args=list(args), cwd=str(root),
                                        env={"PYTHONPATH": str(ROOT), "PATH": os.environ["PATH"]}))


def text(result) -> str:
    assert not result.is_error, result
    [block] = result.content
    return block.text


def run(main) -> None:
    async def bounded():
        with anyio.fail_after(5 * WAIT):   # a hang fails the test instead of stalling the suite
            await main()
    anyio.run(bounded)


def test_the_sdk_connects_lists_and_calls_every_tool(project):
    shop(project)
    project.write("logs/before.txt", "app.py:1:1: F401 [*] `os` imported but unused\nFound 1 error.\n")
    project.write("logs/after.txt", "app.py:1:1: F401 [*] `os` imported but unused\n"
                                    "app.py:9:5: F841 Local variable `x` is assigned to but never used\nFound 2 errors.\n")
    project.git("add", "-A")
    project.git("commit", "-qm", "logs")
    called: list[str] = []

    async def main():
        async with client(project.root) as c:
            assert c.session.protocol_version == "2025-11-25"   # `server/discover` refused, then initialize
            assert c.session.server_info.name == "rt"
            listed = (await c.list_tools()).tools
            assert [t.name for t in listed] == [t.name for t in tools.TOOLS]

            async def call(tool, /, **args):
                called.append(tool)
                return text(await c.call_tool(tool, args))

            assert await call("symbol", name="total") == "app.py:5-6  function total  def total(xs):"
            assert (await call("refs", name="twice")).startswith("twice: used in 2 files")
            assert (await call("outline", file="app.py")).startswith("app.py: 14 lines, python")
            assert (await call("slice", file="app.py", symbol="Cart")).startswith("app.py:9-11  class Cart")
            assert (await call("find", text="Proceed to checkout")).startswith("app.py:14  string literal")
            assert "app.py" in await call("manifest", task="add a discount to the cart")
            assert "def total(xs):" in await call("pack", task="change how the cart adds items", budget=3000)
            assert (await call("search_tool_bm25", query="where is a function defined")).startswith("symbol: ")
            started = await call("start", text="double the total in the cart")
            assert started.startswith("started 1-double-the-total-in-the-cart: ") and "ruff" in started
            assert (await call("status")).startswith("task 1-double-the-total-in-the-cart: ")
            assert "scope: edit app.py" in await call("plan", edit=["app.py"], note="total doubles")
            project.write("app.py", APP_EDITED)   # the agent's own edit tool does this, under the hooks
            assert await call("check", files=["app.py"]) == ("1 new diagnostic(s) after editing app.py:\n"
                                                             "  app.py:2:8 ruff [F401] `os` imported but unused")
            assert await call("step", note="total doubled") == "step 1 recorded"
            assert (await call("delta")).splitlines()[1].startswith("M app.py  +2 -1")
            assert "+    return 2 * sum(xs)" in await call("review")
            assert (await call("verify")).startswith("# verify: FAIL")
            project.write("app.py", APP_EDITED.replace("import os\n", ""))
            assert (await call("verify")).startswith("# verify: PASS")
            assert await call("claim", text="tried it by hand") == "claim 1 recorded as unverified: tried it by hand"
            assert "PASS" in await call("finish")
            assert (await call("start", text="a second task", no_baseline=True)).startswith("started 2-a-second-task")
            assert (await call("block", reason="waiting for the user")).startswith("task 2-a-second-task blocked")
            diffed = await call("diff_logs", before="logs/before.txt", after="logs/after.txt", parser="ruff")
            assert "F841" in diffed and "F401" not in diffed.split("\n", 1)[1]

    run(main)
    assert set(called) == {t.name for t in tools.TOOLS}   # every tool called


APP_EDITED = ('"""The shop."""\nimport os\nfrom util import twice\n\n\ndef total(xs):\n    return 2 * sum(xs)\n\n\n'
              'class Cart:\n    def add(self, x):\n        return twice(total([x]))\n\n\n'
              'MESSAGE = "Proceed to checkout"\n')


def test_the_sdk_sees_protocol_errors_and_tool_errors(project):
    shop(project)

    async def main():
        async with client(project.root) as c:
            with pytest.raises(MCPError) as unknown:
                await c.call_tool("delete_everything", {})
            assert unknown.value.code == -32602 and "unknown tool: delete_everything" in unknown.value.message
            missing = await c.call_tool("refs", {})
            assert missing.is_error and missing.content[0].text.startswith("rt: error: refs: missing argument 'name'")
            outside = await c.call_tool("outline", {"file": "/etc/passwd"})
            assert outside.is_error and "outside the repository" in outside.content[0].text
            state = await c.call_tool("finish", {})
            assert state.is_error and state.content[0].text.startswith("rt: error: ")
            assert text(await c.call_tool("symbol", {"name": "twice"})) == "util.py:1-2  function twice  def twice(x):"
            await c.session.send_ping()

    run(main)


def test_a_server_killed_mid_call_fails_the_call_at_once(project, tmp_path):
    """A check that blocks until the test kills the server: the pending call fails, the client does not hang."""
    shop(project)
    marker = tmp_path / "check-started"
    project.write("rt.toml", '[checks.slow]\nkind = "test"\ncommand = ["python3", "-c", '
                             f'"import os, time; open({str(marker)!r}, \'w\').write(str(os.getpid())); time.sleep(300)"]\n')
    project.git("add", "-A")
    project.git("commit", "-qm", "slow check")
    pidfile = tmp_path / "server.pid"
    wrapper = tmp_path / "serve.sh"   # the SDK starts it; it records the server's pid, then becomes the server
    wrapper.write_text(f'#!/bin/sh\necho $$ > {pidfile}\nexec {sys.executable} -m rt mcp\n')
    wrapper.chmod(0o755)
    failed: list[BaseException] = []

    async def main():
        async with client(project.root, command=str(wrapper), args=()) as c:
            async def kill_when_the_check_runs():
                while not marker.exists() or not marker.read_text():
                    await anyio.sleep(0.05)
                os.kill(int(pidfile.read_text()), signal.SIGKILL)

            async with anyio.create_task_group() as tg:
                tg.start_soon(kill_when_the_check_runs)
                try:
                    await c.call_tool("start", {"text": "a task whose baseline never ends"})
                except Exception as e:   # the SDK's way to say the connection went
                    failed.append(e)

    try:
        run(main)
    except Exception as e:   # or the client's exit, closing a dead connection, raises
        failed.append(e)
    finally:
        if marker.exists() and marker.read_text():
            try:
                os.kill(int(marker.read_text()), signal.SIGKILL)   # the check outlives the server: end it
            except ProcessLookupError:
                pass
    assert failed, "the call to a killed server did not fail"
    assert not isinstance(failed[0], TimeoutError), "the client waited for the killed server until the timeout"
