"""Helpers for the intent-mode tests: hook calls shaped as Claude Code 2.1.332 sends them (session_id and
prompt_id on every event of a turn, agent_id inside a subagent), answered by rt's own hook entry point."""
from __future__ import annotations

import json
from pathlib import Path

from rt.claude.hooks import respond

DATA = Path(__file__).resolve().parent / "data" / "intent"


def call(project, event: str, **fields) -> dict | None:
    """Answer one hook in-process (the same `respond` the `rt hook` process runs); its JSON, or None."""
    base = {"session_id": "s1", "transcript_path": str(project.root / "no-transcript.jsonl"),
            "cwd": str(project.root), "hook_event_name": {"user-prompt-submit": "UserPromptSubmit",
                                                          "pre-tool-use": "PreToolUse",
                                                          "session-start": "SessionStart"}[event]}
    reply = respond(event, json.dumps(base | fields))
    assert reply.code == 0, reply.stderr
    return json.loads(reply.stdout) if reply.stdout else None


def prompt(project, text: str, *, session: str = "s1", prompt_id: str = "p1") -> str:
    """The user sends `text`; the context the hook added for the model ('' when none)."""
    out = call(project, "user-prompt-submit", prompt=text, session_id=session, prompt_id=prompt_id)
    return out["hookSpecificOutput"]["additionalContext"] if out else ""


def tool(project, name: str, tool_input: dict, *, session: str = "s1", prompt_id: str = "p1",
         agent: str | None = None, **extra) -> tuple[str | None, str]:
    """PreToolUse for one tool call: (permissionDecision, reason), (None, '') when rt lets it run."""
    fields = {"tool_name": name, "tool_input": tool_input, "tool_use_id": "toolu_1", "session_id": session,
              "prompt_id": prompt_id, **extra}
    if agent:
        fields |= {"agent_id": agent, "agent_type": "general-purpose"}
    out = call(project, "pre-tool-use", **fields)
    if out is None:
        return None, ""
    spec = out["hookSpecificOutput"]
    return spec["permissionDecision"], spec["permissionDecisionReason"]


def edit(project, rel: str = "a.py", **kw) -> tuple[str | None, str]:
    return tool(project, "Edit", {"file_path": str(project.root / rel), "old_string": "x", "new_string": "y",
                                  "replace_all": False}, **kw)


def bash(project, command: str, **kw) -> tuple[str | None, str]:
    return tool(project, "Bash", {"command": command, "description": "run"}, **kw)


def intent_project(project, *, on: bool = True) -> None:
    """A repository with a.py and b.py, a task planned to edit a.py, git identity set, intent mode on."""
    project.write("a.py", "x = 1\n")
    project.write("b.py", "y = 2\n")
    project.init_git()
    project.git("config", "user.name", "t")
    project.git("config", "user.email", "t@t")
    project.rt("start", "change x", "--no-baseline")
    project.rt("plan", "--edit", "a.py")
    if on:
        project.rt("intent", "on")
