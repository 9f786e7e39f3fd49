"""Every text rt gives a model is byte-stable: the same task, worked twice under a different clock, date,
time zone, working-directory spelling and environment, gives the same bytes in every hook output, the
manifest, the pack, the handoff, the status, the verify reports, the final report and the skill.

(A date line in a prompt costs a full cache miss each day it changes; an absolute path, one per machine.)
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GIT_ENV, ROOT, Project
from tests.handoff_support import long_task

pytestmark = pytest.mark.skipif(not (shutil.which("faketime") and shutil.which("ruff") and shutil.which("pytest")),
                                reason="needs faketime, ruff and pytest (run `bash .ci/run`)")


class Under(Project):
    """The project with every rt command run as its own process under one set of conditions; each
    output is kept, under a label, in `said`."""

    def __init__(self, root: Path, cwd: str, clock: str, env: dict):
        super().__init__(root)
        self.cwd, self.clock, self.env = cwd, clock, env
        self.said: list[tuple[str, str]] = []

    def rt(self, *args: str, ret: int = 0, cwd: Path | None = None, input: str | None = None) -> str:
        proc = subprocess.run(["faketime", "-f", self.clock, sys.executable, "-m", "rt", *args], cwd=self.cwd,
                              env=self.env | {"PWD": self.cwd}, input=input, capture_output=True, text=True)
        assert proc.returncode == ret, f"rt {' '.join(args)} exited {proc.returncode}, wanted {ret}\n{proc.stderr}"
        self.said.append((" ".join(args)[:60], proc.stdout))
        return proc.stdout

    def hook(self, event: str, name: str, **fields) -> str:
        data = {"session_id": "s-1", "transcript_path": f"{self.cwd}/../s-1.jsonl", "cwd": self.cwd,
                "hook_event_name": name, **fields}
        return self.rt("hook", event, input=json.dumps(data))

    def path(self, rel: str) -> str:
        """A file's path as this session's Claude Code spells it (through its working directory)."""
        return f"{self.cwd}/{rel}"


def conditions(tmp_path: Path, which: int) -> Under:
    """Two very different worlds for the same work: another time, zone, locale, hash seed, home and
    user, and (the second) a repository reached through a symlink with `.` in its spelling."""
    root = tmp_path / ["one", "second-place/deeper"][which] / "repo"
    root.mkdir(parents=True)
    cwd = str(root)
    if which:
        link = tmp_path / "link"
        link.symlink_to(root.parent, target_is_directory=True)
        cwd = f"{link}/./repo"
    home = tmp_path / f"home{which}"
    home.mkdir()
    env = {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT), "HOME": str(home), **GIT_ENV,
           "FAKETIME_DONT_FAKE_MONOTONIC": "1",
           "TZ": ["UTC", "Pacific/Kiritimati"][which], "LANG": ["C.UTF-8", "pl_PL.UTF-8"][which],
           "PYTHONHASHSEED": str(which + 1), "USER": ["alice", "bob"][which], "COLUMNS": ["200", "40"][which],
           "TERM": ["xterm-256color", "dumb"][which], "RT_STABLE_PROBE": str(which) * (which + 1)}
    clock = ["@2031-02-03 04:05:06", "@2024-07-08 23:59:58"][which]
    return Under(root.resolve(), cwd, clock, env)


def work(p: Under) -> list[tuple[str, str]]:
    """The long task, then every other text a model may be given, from every hook and command."""
    long_task(p)
    for source in ("startup", "resume", "compact", "clear"):
        p.hook("session-start", "SessionStart", source=source)
    p.hook("pre-compact", "PreCompact", trigger="auto", custom_instructions=None)
    for args in (["status"], ["handoff"], ["manifest"], ["pack"], ["delta"], ["review"], ["tasks"], ["tasks", "--why"],
                 ["usage"], ["note"], ["checks"], ["check", "shop/money.py"], ["help", "handoff"]):
        p.rt(*args, ret=1 if args[0] == "check" else 0)
    p.rt("mcp", input=_mcp_session())
    p.hook("pre-tool-use", "PreToolUse", tool_name="Edit", tool_use_id="t1",
           tool_input={"file_path": p.path("README.md"), "old_string": "a", "new_string": "b"})
    p.hook("pre-tool-use", "PreToolUse", tool_name="Bash", tool_use_id="t2",
           tool_input={"command": "git commit -am wip && git push"})
    p.write("shop/prices.py", 'import sys\n\nPRICES = {"apple": 50, "pear": 75}\n\n\ndef price(name):\n    return PRICES[name]\n')
    p.hook("post-tool-use", "PostToolUse", tool_name="Edit", tool_use_id="t3", tool_response={},
           tool_input={"file_path": p.path("shop/prices.py"), "old_string": "a", "new_string": "b"})
    p.hook("stop", "Stop", stop_hook_active=False, last_assistant_message="done")
    p.hook("user-prompt-submit", "UserPromptSubmit", prompt="/runtask another task while one is active")
    p.rt("finish", "--incomplete")
    p.hook("user-prompt-submit", "UserPromptSubmit", prompt="/runtask show prices in euros on the receipt")
    p.hook("session-start", "SessionStart", source="compact")
    p.rt("install")
    installed = p.root / ".claude"
    shipped = sorted(installed.rglob("*.md"))
    assert shipped, "rt install wrote no skill"
    p.said += [(str(f.relative_to(installed)), f.read_text()) for f in shipped]
    p.said += [(f"verify.md {d.name}", (d / "verify.md").read_text()) for d in sorted((p.root / ".rt/tasks").iterdir())
               if (d / "verify.md").is_file()]
    return p.said


def _mcp_session() -> str:
    """What an MCP client asks `rt mcp`: the tool list, a tool search and look-ups, one JSON-RPC line each."""
    calls = [("tools/list", {}), ("tools/call", {"name": "search_tool_bm25", "arguments": {"query": "where is a name defined"}}),
             ("tools/call", {"name": "status", "arguments": {}}), ("tools/call", {"name": "symbol", "arguments": {"name": "price"}}),
             ("tools/call", {"name": "refs", "arguments": {"name": "price"}}), ("tools/call", {"name": "delta", "arguments": {}}),
             ("tools/call", {"name": "find", "arguments": {"text": "apple"}})]
    lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"}]
    lines += [{"jsonrpc": "2.0", "id": i, "method": m, "params": params} for i, (m, params) in enumerate(calls, 1)]
    return "".join(json.dumps(x) + "\n" for x in lines)


def test_every_text_for_a_model_is_the_same_under_another_clock_zone_path_and_environment(tmp_path):
    first, second = work(conditions(tmp_path, 0)), work(conditions(tmp_path, 1))
    assert [label for label, _ in first] == [label for label, _ in second]
    for (label, a), (_, b) in zip(first, second):
        assert a == b, f"`{label}` differs:\n--- first\n{a}\n--- second\n{b}"
    everything = "\n".join(text for _, text in first)
    assert str(tmp_path) not in everything and "2031" not in everything and "Kiritimati" not in everything
    said = dict(first)
    assert said["mcp"].count('"jsonrpc"') == 8 and '"isError":true' not in said["mcp"], said["mcp"]
    assert "## Error history" in said["handoff"] and "# Task pack" in said["pack"]
    assert "# verify: FAIL" in said["verify.md 1-keep-prices-and-totals-in-integer-cents"]
    assert sum(1 for label, text in first if text.strip()) >= 30
