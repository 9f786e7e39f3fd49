"""`rt install --mcp`: the rt server merged into .mcp.json, enabled and allowed in the settings, with a
backup, and taken out again by `--uninstall`; a file rt cannot read safely is left as it is."""
from __future__ import annotations

import json
import subprocess
import sys

from tests.mcp_support import ROOT, server_env

USERS = {"mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-server"]}}, "note": "mine"}


def mcp_json(project) -> dict:
    return json.loads(project.read(".mcp.json"))


def settings(project) -> dict:
    return json.loads(project.read(".claude/settings.json"))


def test_merges_into_the_users_mcp_json_and_uninstall_puts_it_back(project):
    project.write(".mcp.json", json.dumps(USERS))
    project.write(".claude/settings.json", json.dumps({"enabledMcpjsonServers": ["docs"], "model": "opus"}))
    project.init_git()
    out = project.rt("install", "--mcp")
    assert "backup of the previous .mcp.json: .claude/mcp.json.rt-backup" in out and "updated .mcp.json" in out
    data = mcp_json(project)
    assert data["mcpServers"]["docs"] == USERS["mcpServers"]["docs"] and data["note"] == "mine"
    assert data["mcpServers"]["rt"] == {"type": "stdio", "command": sys.executable, "args": ["-S", "-P", "-m", "rt", "mcp"],
                                        "env": {"PYTHONPATH": str(ROOT)}}   # this interpreter, this rt
    assert json.loads(project.read(".claude/mcp.json.rt-backup")) == USERS
    s = settings(project)
    assert s["enabledMcpjsonServers"] == ["docs", "rt"] and "mcp__rt" in s["permissions"]["allow"]
    assert project.rt("install", "--mcp").startswith("nothing to change")   # twice: the same
    assert project.rt("install").startswith("nothing to change")   # a plain install keeps the server
    project.rt("install", "--uninstall")
    assert mcp_json(project) == USERS
    assert settings(project) == {"enabledMcpjsonServers": ["docs"], "model": "opus"}


def test_a_file_rt_created_is_removed_and_the_server_answers(project):
    project.write("app.py", "def total(xs):\n    return sum(xs)\n")
    project.init_git()
    assert "wrote .mcp.json" in project.rt("install", "--mcp")
    entry = mcp_json(project)["mcpServers"]["rt"]
    request = (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"symbol","arguments":'
               b'{"name":"total"}}}\n')
    proc = subprocess.run([entry["command"], *entry["args"]], cwd=project.root, input=request, capture_output=True,
                          env={**server_env(), **entry["env"]}, timeout=60, check=True)
    reply = json.loads(proc.stdout)
    assert reply["result"]["content"][0]["text"] == "app.py:1-2  function total  def total(xs):"
    project.rt("install", "--uninstall")
    assert not (project.root / ".mcp.json").exists()
    assert not (project.root / ".claude").exists()


def test_refusals_change_nothing(project):
    project.init_git()
    project.write(".mcp.json", '{"mcpServers": {"rt": {"command": "someone-elses-rt"}}}')
    project.rt("install", "--mcp", ret=2)
    assert "already has a server named 'rt' that rt install did not add" in project.last_err
    assert not (project.root / ".claude").exists()
    project.write(".mcp.json", '{"mcpServers": {"docs": {}},}')
    project.rt("install", "--mcp", ret=2)
    assert ".mcp.json is not valid JSON" in project.last_err
    project.write(".mcp.json", '{"mcpServers": []}')
    project.rt("install", "--mcp", ret=2)
    assert '"mcpServers" is not an object of servers' in project.last_err
    assert project.read(".mcp.json") == '{"mcpServers": []}' and not (project.root / ".claude").exists()
    project.rt("install", "--mcp", "--user", ret=2)
    assert "--mcp installs into this project's .mcp.json" in project.last_err



def test_doctor_starts_the_installed_server_and_asks_for_its_tools(project):
    project.init_git()
    assert "mcp server" not in project.rt("doctor")
    project.rt("install", "--mcp")
    assert "mcp server rt (.mcp.json): answers: 20 tools" in project.rt("doctor")
    data = mcp_json(project)
    data["mcpServers"]["rt"]["command"] = "/nonexistent/python3"
    project.write(".mcp.json", json.dumps(data))
    out = project.rt("doctor", ret=1)
    assert "mcp server rt (.mcp.json): does not answer: could not run it (FileNotFoundError)" in out
