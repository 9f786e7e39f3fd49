"""Running the real tools on small generated projects, the way part B's checks run them.

Each tool runs with `parsers.RECOMMENDED_ARGS` and `RECOMMENDED_ENV`; a missing program gives exit None,
as a check that could not start.
"""
from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from conftest import needs

from rt.core import run
from rt.diagnostics.diff import Run, classify
from rt.diagnostics.parsers import RECOMMENDED_ARGS, RECOMMENDED_ENV

TOOL_ARGV = {
    "ruff": ["ruff", *RECOMMENDED_ARGS["ruff"], "."],
    "flake8": ["flake8", *RECOMMENDED_ARGS["flake8"], "."],
    "pylint": ["pylint", *RECOMMENDED_ARGS["pylint"], "--recursive=y", "."],
    "mypy": ["mypy", *RECOMMENDED_ARGS["mypy"], "."],
    "pytest": [sys.executable, "-m", "pytest", *RECOMMENDED_ARGS["pytest"]],
    "tsc": ["tsc", *RECOMMENDED_ARGS["tsc"], "-p", "."],
    "eslint": ["eslint", *RECOMMENDED_ARGS["eslint"], "."],
    "vitest": ["vitest", *RECOMMENDED_ARGS["vitest"], "--globals"],
    "cargo": ["cargo", "check", "--offline", "--quiet", *RECOMMENDED_ARGS["cargo"]],
    "go": ["go", "build", *RECOMMENDED_ARGS["go"], "./..."],   # go vet stops at the first type error
    "go-test": ["go", "test", *RECOMMENDED_ARGS["go"], "./..."],
    "cargo-test": ["cargo", "test", "--offline", "--quiet"],
}
PARSER_OF = {"cargo-test": "cargo", "go-test": "go"}


def programs(tool: str) -> tuple[str, ...]:
    """What must be installed to run `tool` as TOOL_ARGV runs it (node's tools need node too)."""
    program = os.path.basename(TOOL_ARGV[tool][0])
    if program == os.path.basename(sys.executable):
        return ()
    return ("node", program) if program in ("tsc", "eslint", "vitest") else (program,)


def run_tool(tool: str, root: Path, path: str | None = None) -> tuple[int | None, str]:
    """Exit code (None when the program cannot start) and stdout followed by stderr. Without a `path` of
    its own (a run that is meant to miss its program), the calling test is skipped when the tool is missing."""
    if path is None:
        needs(*programs(tool))
    argv = TOOL_ARGV[tool]
    env = dict(RECOMMENDED_ENV)
    if path is not None:
        env["PATH"] = path
    # each case's mypy keeps its cache in its own folder (`.mypy_cache`): cases run three at a time, and
    # mypy's cache is not safe for two runs at once; pytest skips this machine's unrelated plugins
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        proc = run(argv, root, timeout=300, env=env)
    except FileNotFoundError:
        return None, f"{argv[0]}: program not found on PATH"
    return proc.returncode, proc.stdout.decode("utf-8", "replace") + proc.stderr.decode("utf-8", "replace")


def check_run(tool: str, root: Path, path: str | None = None) -> tuple[Run, str]:
    code, output = run_tool(tool, root, path)
    return classify(tool, PARSER_OF.get(tool, tool), code, output, str(root)), output


def write_tree(root: Path, files: dict[str, str | None]) -> None:
    """Write files (None deletes one)."""
    for rel, text in files.items():
        p = root / rel
        if text is None:
            if p.exists():
                p.unlink()
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


def have(program: str) -> bool:
    return shutil.which(program) is not None
