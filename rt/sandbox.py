"""Claude Code's sandbox for the agent's shell, and the same bounds for the checks rt runs outside it.

`rt install --sandbox` turns on Claude Code's sandbox (bubblewrap on Linux): the agent's Bash commands run
with `.git/` and `.rt/` read-only and no network. rt's own commands must write `.rt/`, so they run outside
it (`excludedCommands`), and with them the project's checks `rt verify` runs: code the agent may have
edited. So when the install says the sandbox is on, rt runs those checks within the same bounds itself.
"""
from __future__ import annotations

import errno
import json
import os
from pathlib import Path

SETTINGS = {"enabled": True, "failIfUnavailable": True, "allowUnsandboxedCommands": False}
"""Claude Code `sandbox` settings rt sets: on, never silently off, no way for a command to leave it."""

LISTS = {("excludedCommands",): ["rt:*"], ("filesystem", "denyWrite"): [".git", ".rt"]}
"""List settings rt adds to: rt's commands run outside (they write `.rt/`); `.git/` and `.rt/` read-only."""

RECORD = "rt-install.json"
"""What `rt install` added, beside the settings it changed (see rt/claude/install.py)."""


def is_on(root: Path) -> bool:
    """Whether an `rt install --sandbox` (of this project, or the user's) is in place."""
    for base in (root / ".claude", Path.home() / ".claude"):
        try:
            record = json.loads((base / RECORD).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(record, dict) and record.get("sandbox"):
            return True
    return False


def bounded(root: Path, argv: list[str], writable: tuple[Path, ...] = ()) -> list[str]:
    """`argv` run as the agent's shell runs under the sandbox: the repository writable but its `.git/` and
    `.rt/` (except the `writable` folders under them: a tool's cache rt keeps, `rt.checks.CACHED`), /tmp
    writable, the rest read-only, no network. FileNotFoundError (naming the program) when bubblewrap or the
    program is missing: the check does not run, and is never run unbounded."""
    if not is_on(root):
        return argv
    import shutil   # here: every check and formatter run passes through, mostly with the sandbox off
    bwrap = shutil.which("bwrap")
    program = os.path.join(root, argv[0]) if "/" in argv[0] else shutil.which(argv[0])
    for name, found in (("bwrap", bwrap), (argv[0], program)):
        if not found or not os.access(found, os.X_OK):
            raise FileNotFoundError(errno.ENOENT, "not found", name)
    top = str(root)
    box = [bwrap, "--die-with-parent", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
           "--bind", "/tmp", "/tmp", "--bind", top, top]
    for store in (".git", ".rt"):
        path = os.path.join(top, store)
        if os.path.lexists(path):
            box += ["--ro-bind", path, path]
    for folder in writable:
        box += ["--bind", str(folder), str(folder)]
    return [*box, "--", *argv]
