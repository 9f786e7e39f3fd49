"""Running a real tool once and keeping what it printed, the way a CI log keeps it: stdout and stderr
in one stream (as `2>&1` writes them), with the exit code. Tests then read the same run in every form
the tool can print, and as CI would damage it (CRLF, colour, cut short, wrapped in other lines)."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

from rt.diagnostics.diff import Run, classify
from rt.diagnostics.parsers import parse, sniff
from tests.conftest import ROOT

CI_MODULES = ROOT / ".ci" / "node_modules"
NO_COLOUR = {"NO_COLOR": "1", "FORCE_COLOR": "0", "CARGO_TERM_COLOR": "never", "RUST_BACKTRACE": "0",
             "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "COLUMNS": "120"}


def sh(argv: list[str], cwd: Path, env: dict | None = None) -> tuple[int, str]:
    """(exit code, stdout and stderr interleaved as they were written)."""
    path = f"{CI_MODULES / '.bin'}{os.pathsep}{os.environ.get('PATH', '')}"
    proc = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                          env={**os.environ, **NO_COLOUR, "PATH": path, **(env or {})})
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


def keys(diags) -> list[tuple]:
    """What identifies a finding across forms: file, line and code (and kind, for tests)."""
    return sorted((d.file, d.line, d.code, d.kind) for d in diags)


def read(parser: str, output: str, root: Path | str | None) -> list:
    got = parse(parser, output, parser, str(root) if root else None)
    assert got is not None, f"{parser} read none of:\n{output[:2000]}"
    return got


def judged(parser: str, code: int | None, output: str, root: Path) -> Run:
    return classify(parser, parser, code, output, str(root))


def auto(output: str) -> str:
    """The parser `--parser auto` picks for a log."""
    found = sniff(output)
    return found[0] if found else ""


def crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def node_formatter(package: str, entry: str) -> str | None:
    """The absolute path of an eslint formatter package installed by .ci/run, or None."""
    path = CI_MODULES / package / entry
    return str(path) if path.is_file() else None
