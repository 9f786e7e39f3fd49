"""`rt mcp` as a real process on raw stdio, and a small project to serve."""
from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WAIT = 60
"""Seconds to wait for one answer before the test fails (never a timing assertion: a hang guard)."""

APP = ('"""The shop."""\nfrom util import twice\n\n\ndef total(xs):\n    return sum(xs)\n\n\n'
       'class Cart:\n    def add(self, x):\n        return twice(total([x]))\n\n\n'
       'MESSAGE = "Proceed to checkout"\n')
UTIL = "def twice(x):\n    return 2 * x\n"


def shop(project) -> None:
    """app.py and util.py, ruff configured (a real check for verify), committed."""
    project.write("pyproject.toml", '[tool.ruff.lint]\nselect = ["F"]\n')
    project.write("app.py", APP)
    project.write("util.py", UTIL)
    project.init_git()


def server_env() -> dict:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


class Raw:
    """One `rt mcp` process: write lines to it, read its answers (one JSON object per line)."""

    def __init__(self, cwd: Path, *args: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "rt", "mcp", *args], cwd=cwd, env=server_env(),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.ids = 0

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, data: bytes | dict) -> None:
        raw = data if isinstance(data, bytes) else json.dumps(data).encode() + b"\n"
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def recv(self) -> dict:
        line = self.lines.get(timeout=WAIT)
        assert line is not None, "the server closed its stdout"
        return json.loads(line)

    def request(self, method: str, params: dict | None = None) -> dict:
        self.ids += 1
        msg: dict = {"jsonrpc": "2.0", "id": self.ids, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        reply = self.recv()
        assert reply["id"] == self.ids, reply
        return reply

    def initialize(self) -> dict:
        reply = self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                            "clientInfo": {"name": "test", "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def call(self, tool: str, **arguments) -> dict:
        """The result of a tools/call (a JSON-RPC error fails the test)."""
        reply = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in reply, reply
        return reply["result"]

    def text(self, tool: str, **arguments) -> str:
        result = self.call(tool, **arguments)
        assert not result.get("isError"), result
        [block] = result["content"]
        return block["text"]

    def error(self, tool: str, **arguments) -> str:
        result = self.call(tool, **arguments)
        assert result.get("isError") is True, result
        return result["content"][0]["text"]

    def close(self) -> tuple[int, str]:
        """Close stdin (the client is done); the exit code and what the server wrote to stderr."""
        self.proc.stdin.close()
        code = self.proc.wait(timeout=WAIT)
        rest = []
        while True:
            line = self.lines.get(timeout=WAIT)
            if line is None:
                break
            rest.append(line)
        assert rest == [], f"stdout after the last answer: {rest}"
        return code, self.proc.stderr.read().decode()

    def __enter__(self) -> Raw:
        return self

    def __exit__(self, *exc) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stderr):   # stdout: its reader ends at the EOF
            stream.close()
