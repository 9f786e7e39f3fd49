"""The ten intent commands as shipped: one file each, a one-line description, kept from the model, and no
name taken by a Claude Code built-in except /stop, which a project command overrides (tests/test_e2e_intent.py
types it in the real client)."""
from __future__ import annotations

import mmap
import os
import re
from pathlib import Path

import pytest

from rt.claude.install import shipped_files
from rt.claude.intent import COMMANDS
from tests.e2e.harness import claude_binary

ROOT = Path(__file__).resolve().parent.parent
OVERRIDDEN = {"stop"}
"""Built-in names rt's commands knowingly take over: the client's /stop stops a background session."""


def frontmatter(path: Path) -> tuple[dict[str, str], str]:
    head, body = path.read_text(encoding="utf-8").split("---\n", 2)[1:]
    return dict(line.split(": ", 1) for line in head.splitlines()), body


def test_one_skill_file_per_command_with_its_one_line_description():
    folders = sorted(p.name for p in (ROOT / "skill/intent").iterdir())
    assert folders == sorted(COMMANDS)
    for name, meaning in COMMANDS.items():
        fields, body = frontmatter(ROOT / "skill/intent" / name / "SKILL.md")
        assert fields["name"] == name
        assert fields["description"] == meaning.summary and "\n" not in meaning.summary
        assert ": " not in meaning.summary  # a plain YAML scalar
        assert fields["disable-model-invocation"] == "true"  # the user's command, never the model's
        assert body.strip() and len(body) < 450, name  # sent on every use: short


def test_install_ships_them_as_project_commands():
    files = shipped_files(intent=True)
    assert sorted(r for r in files if r.startswith("commands/")) == sorted(f"commands/{n}.md" for n in COMMANDS)
    assert files["commands/go.md"] == (ROOT / "skill/intent/go/SKILL.md").read_bytes()
    assert not any(r.startswith("commands/") for r in shipped_files())


def builtin_names(binary: str) -> set[str]:
    """Command names and aliases in the client's own command table (`type:"local"|"local-jsx"|"prompt",
    name:"..."`, with `aliases:[...]` near each), read from its executable."""
    with open(os.path.realpath(binary), "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        names = set()
        for hit in re.finditer(rb'type:"(?:local|local-jsx|prompt)",name:"([\w:.-]+)"', m):
            names.add(hit.group(1).decode())
            near = m[hit.end():hit.end() + 600]
            aliases = re.search(rb"aliases:\[([^\]]*)\]", near)
            if aliases:
                names |= {a.decode() for a in re.findall(rb'"([\w:.-]+)"', aliases.group(1))}
    return names


@pytest.mark.skipif(claude_binary() is None, reason="needs claude (the Claude Code client): not installed here (`bash .ci/run` installs it)")
def test_no_name_is_a_builtin_command_but_stop():
    builtins = builtin_names(claude_binary())
    assert {"compact", "clear", "goal", "stop", "quit"} <= builtins, "the client's command table was not found"
    assert set(COMMANDS) & builtins == OVERRIDDEN
