"""Helpers for the hook tests: payloads as Claude Code sends them, and reading the hook's answer."""
from __future__ import annotations

import json

GIT_DENY = [f"Bash(git {op}:*)" for op in (
    "commit", "push", "reset --hard", "rebase", "clean -f", "clean -fd", "clean -fdx", "checkout --", "restore",
    "branch -D", "stash drop", "stash clear")]
"""The deny rules `rt install` writes: every git operation that commits, publishes or throws work away."""


def payload(project, event: str, **fields) -> dict:
    base = {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": str(project.root),
            "hook_event_name": event}
    return base | fields


def edit(project, path: str, tool: str = "Edit", event: str = "PreToolUse", **extra) -> dict:
    key = "notebook_path" if tool == "NotebookEdit" else "file_path"
    file_path = path if path.startswith("/") else str(project.root / path)
    return payload(project, event, tool_name=tool, tool_input={key: file_path, "old_string": "a", "new_string": "b"},
                   tool_use_id="toolu_1", **extra)


def bash(project, command: str, event: str = "PreToolUse") -> dict:
    return payload(project, event, tool_name="Bash", tool_input={"command": command}, tool_use_id="toolu_2")


def hook(project, event: str, data: dict | str, env: dict | None = None):
    """Run `rt hook <event>` as a real process; return (exit code, parsed stdout or None, stderr)."""
    raw = data if isinstance(data, str) else json.dumps(data)
    proc = project.rt_proc("hook", event, input=raw, env=env)
    out = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, out, proc.stderr


def permission(out: dict | None) -> tuple[str | None, str]:
    """(permissionDecision, reason) of a PreToolUse answer; (None, '') when the hook let the tool run."""
    if out is None:
        return None, ""
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == "PreToolUse"
    return spec["permissionDecision"], spec["permissionDecisionReason"]


def context_text(out: dict | None, event: str) -> str:
    if out is None:
        return ""
    spec = out["hookSpecificOutput"]
    assert spec["hookEventName"] == event
    return spec["additionalContext"]


def planned(project, edit: tuple[str, ...] = ("a.py",), create: tuple[str, ...] = ()) -> None:
    """A git repository with a.py and b.py and a task planned to edit `edit` (no checks configured)."""
    project.write("a.py", "x = 1\n")
    project.write("b.py", "y = 2\n")
    project.init_git()
    project.rt("start", "change x", "--no-baseline")
    args = ["plan"] + (["--edit", *edit] if edit else []) + (["--create", *create] if create else [])
    project.rt(*args)
