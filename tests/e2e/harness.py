"""Run the real Claude Code client in a test repository against the fake API, and read what the model saw.

The client gets its own HOME (nothing of the user's `~/.claude` is read or written) and talks only to
127.0.0.1. `ClaudeRun.requests` are the request bodies the fake API received, in order.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.e2e.fakeapi import FakeAPI

TIMEOUT = 120


def claude_binary() -> str | None:
    return shutil.which("claude")


@dataclass
class ClaudeRun:
    code: int
    events: list[dict]          # the stream-json lines
    requests: list[dict]        # every request body the fake API received
    turns: list[dict]           # the bodies that took a scripted turn (the model's turns)
    stderr: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def result(self) -> dict:
        return next((e for e in reversed(self.events) if e.get("type") == "result"), {})

    @property
    def session_id(self) -> str:
        return self.result.get("session_id", "")


def run_claude(repo: Path, home: Path, prompt: str | list[str], script: list, *, args: tuple[str, ...] = (),
               permission_mode: str = "acceptEdits", path: Path | None = None, usage=None,
               timeout: int = TIMEOUT) -> ClaudeRun:
    """One `claude -p` session in `repo`: the fake API answers with `script`, one turn per model request.

    A list of prompts is sent as consecutive user messages of one session (stream-json input), e.g.
    `["/compact", "go on"]`; they are written at once, so a prompt that arrives while a turn runs is folded
    into that turn (same prompt_id). For one turn per message, run again with `args=("--continue",)`.
    `path` goes first on the client's PATH (e.g. a folder with an `rt` command).
    `usage` prices each answer (see `FakeAPI`); `timeout` bounds the whole session, in seconds.
    """
    binary = claude_binary()
    assert binary, "the claude client is not on PATH"
    home.mkdir(parents=True, exist_ok=True)
    if isinstance(prompt, str):
        argv, stdin = ["-p", prompt], None
    else:
        argv = ["-p", "--input-format", "stream-json"]
        stdin = "".join(json.dumps({"type": "user", "message": {"role": "user", "content": p}}) + "\n"
                        for p in prompt)
    with FakeAPI(script, usage=usage) as api:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CLAUDE"))}
        env.update(HOME=str(home), ANTHROPIC_BASE_URL=api.url, ANTHROPIC_API_KEY="test-key",
                   DISABLE_TELEMETRY="1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
                   DISABLE_AUTOUPDATER="1")
        if path:
            env["PATH"] = os.pathsep.join([str(path), env.get("PATH", "")])
        proc = subprocess.run([binary, *argv, "--output-format", "stream-json", "--verbose",
                               "--permission-mode", permission_mode, *args],
                              cwd=repo, env=env, input=stdin, capture_output=True, text=True, timeout=timeout,
                              check=False)
    events = []
    for line in proc.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    return ClaudeRun(proc.returncode, events, api.requests, api.turns, proc.stderr)


def texts(message: dict) -> list[str]:
    """Every piece of text in one message: text blocks, tool_result contents, plain string content."""
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    out = []
    for block in content or []:
        if block.get("type") == "text":
            out.append(block["text"])
        elif block.get("type") == "tool_result":
            inner = block.get("content")
            out.extend([inner] if isinstance(inner, str) else [b.get("text", "") for b in inner or []])
    return out


def seen(body: dict) -> str:
    """All text of a request's messages, joined: what the model was shown (bar the system prompt)."""
    return "\n".join(t for m in body.get("messages", []) for t in texts(m))


def tool_results(body: dict) -> list[dict]:
    """The tool_result blocks of a request, in order."""
    return [b for m in body.get("messages", []) if isinstance(m.get("content"), list)
            for b in m["content"] if b.get("type") == "tool_result"]
