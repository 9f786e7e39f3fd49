"""Readers for the output of each tool, all yielding `Diagnostic` records.

Each parser is `parse(output, check, root) -> list[Diagnostic] | None`: None when the output holds
nothing it understands, `[]` when it shows a clean run. A parser raises `ToolFailure` when the output
shows the tool itself failed (crash, configuration or usage error), so that run is never read as clean.
`root` (absolute, or None) turns absolute paths in the output into repository-relative ones.

`RECOMMENDED_ARGS` names the flags to run each tool with so its output is the stable, concise form
these parsers read; `RECOMMENDED_ENV` turns colour off (parsers strip ANSI codes anyway).
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable

from rt.diagnostics.model import ANSI, Diagnostic, ToolFailure

RECOMMENDED_ARGS: dict[str, list[str]] = {
    "ruff": ["check", "--output-format=concise", "--no-cache"],
    "flake8": [],
    "mypy": ["--no-error-summary", "--show-column-numbers", "--no-color-output", "--no-pretty"],
    "pyright": ["--outputjson"],
    "pylint": ["--output-format=text", "--score=n", "--reports=n"],
    "pytest": ["-q", "-rfE", "--tb=short", "--color=no", "-p", "no:cacheprovider", "--continue-on-collection-errors"],
    "tsc": ["--noEmit", "--pretty", "false"],
    "eslint": ["--format", "json"],
    "vitest": ["run", "--reporter=json", "--outputFile=/dev/stdout"],
    "jest": ["--json", "--ci"],
    "go": [],
    "cargo": ["--message-format=short"],
    "generic": [],
}
"""Flags per parser. `go vet`, `go build` and `go test` are read in their default form; `cargo` takes the
flag on check and clippy (`cargo test` output is read in its default form)."""

FATAL_EXIT: dict[str, frozenset[int]] = {
    "ruff": frozenset({2}),
    "eslint": frozenset({2}),
    "pytest": frozenset({2, 3, 4, 5}),
    "pylint": frozenset(n for n in range(64) if n & 33),   # bit 1 fatal, bit 32 usage error
}
"""Exit codes by which a tool says it failed itself (crash, configuration, usage, nothing collected),
whatever it printed: such a run is never read, even when the output looks like diagnostics. (mypy's
exit 2 is not here: it also means a blocking error such as a syntax error, which it reports as one.)"""

RECOMMENDED_ENV = {"NO_COLOR": "1", "FORCE_COLOR": "0", "CARGO_TERM_COLOR": "never", "RUST_BACKTRACE": "0"}

_CI_STAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z ", re.M)
"""The time a CI service (GitHub Actions, for one) writes before every line of a saved log."""


def _lines(output: str) -> list[str]:
    text = _CI_STAMP.sub("", ANSI.sub("", output).replace("\r\n", "\n").replace("\r", "\n"))
    return [ln.rstrip() for ln in text.split("\n")]


def _text(output: str) -> str:
    return "\n".join(_lines(output))


def rel_path(path: str, root: str | None) -> str:
    """A path from a tool's output as repo-relative POSIX when it lies under `root`, else as printed."""
    path = path.strip().replace("\\", "/").removeprefix("file://")
    if root:
        path = path.removeprefix(root.replace("\\", "/").rstrip("/") + "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def _found(diags: list[Diagnostic], output: str, clean: bool = False) -> list[Diagnostic] | None:
    """The parse result: the diagnostics, or `[]` for a blank or recognised-clean output, else None."""
    if diags or clean or not output.strip():
        return diags
    return None


# ---------------------------------------------------------------- file:line[:col]: message forms

_LOCATED = re.compile(r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+)(?::(?P<col>\d+))?:\s*(?P<msg>\S.*)$")


def parse_generic(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """Any `file:line[:col]: message` lines; a leading `error:`/`warning:` becomes the severity."""
    diags = []
    for ln in _lines(output):
        m = _LOCATED.match(ln)
        if not m:
            continue
        msg, severity = m["msg"], "error"
        sev = re.match(r"(error|warning|note|info)\s*:\s*(.*)", msg, re.I)
        if sev:
            severity, msg = sev[1].lower(), sev[2]
        diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"] or 0), "",
                                severity, msg))
    return _found(diags, output)


_CODED = re.compile(r"(?P<code>[A-Z]+[0-9]+|SyntaxError|invalid-syntax)(?::)?\s+(?:\[\*\]\s+)?(?P<msg>.*)")


def _coded(check: str, root: str | None, output: str) -> list[Diagnostic]:
    """`file:line:col: CODE message` lines (ruff concise, flake8)."""
    diags = []
    for ln in _lines(output):
        m = _LOCATED.match(ln)
        c = _CODED.match(m["msg"]) if m else None
        if m and c:
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"] or 0),
                                    c["code"], "error", c["msg"]))
    return diags


def parse_ruff(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    text = _text(output)
    diags = _coded(check, root, output)
    if not diags and re.search(r"^ruff failed|^error: (?!Failed to parse)", text, re.M):
        raise ToolFailure("ruff failed: " + _first_match(text, r"^(?:ruff failed|error:).*"))
    return _found(diags, output, clean="All checks passed!" in text)


def parse_flake8(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    if "Traceback (most recent call last)" in output:
        raise ToolFailure("flake8 crashed: " + _last_line(output))
    return _found(_coded(check, root, output), output)


_MYPY = re.compile(r"^(?P<file>[^:\s][^:]*?):(?:(?P<line>\d+):(?:(?P<col>\d+):)?)?\s*(?P<sev>error|warning|note):"
                   r"\s*(?P<msg>.*?)(?:\s+\[(?P<code>[a-z0-9-]+)\])?$")


def parse_mypy(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """mypy's error and warning lines; notes only explain an error already reported, so they are left out."""
    text = _text(output)
    if "INTERNAL ERROR" in text or "Traceback (most recent call last)" in text:
        raise ToolFailure("mypy crashed: " + _first_match(text, r".*INTERNAL ERROR.*|^\w*Error:.*"))
    # a config or usage error names no line; a type error such as `a.py:2: error: Invalid index type` does
    fatal = re.search(r"^(?:mypy: error:|usage: mypy|[^:\n]+: error: (?:Cannot find config|Invalid|Unrecognized option)).*",
                      text, re.M)
    if fatal:
        raise ToolFailure("mypy configuration or usage error: " + fatal[0])
    diags = []
    for ln in _lines(output):
        m = _MYPY.match(ln)
        if m and m["sev"] != "note":
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"] or 0), int(m["col"] or 0),
                                    m["code"] or "", m["sev"], m["msg"]))
    clean = bool(re.search(r"^Success: no issues found", text, re.M))
    return _found(diags, output, clean)


def parse_pyright(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """`pyright --outputjson`, or its text form `  file:line:col - error: message (rule)`."""
    data = _json_object(output, "generalDiagnostics")
    if data is not None:
        return _read_json(_pyright_report, data, check, root)
    diags = []
    rx = re.compile(r"^\s*(?P<file>\S.*?):(?P<line>\d+):(?P<col>\d+) - (?P<sev>error|warning):\s*(?P<msg>.*?)"
                    r"(?:\s+\((?P<code>report\w+)\))?$")
    for ln in _lines(output):
        m = rx.match(ln)
        if m:
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"]),
                                    m["code"] or "", m["sev"], m["msg"]))
    return _found(diags, output, clean=bool(re.search(r"\b0 errors\b", output)))


def _pyright_report(data: dict, check: str, root: str | None) -> list[Diagnostic]:
    diags = []
    for d in data["generalDiagnostics"]:
        start = d.get("range", {}).get("start", {})
        if d.get("severity", "error") != "information":
            diags.append(Diagnostic(check, rel_path(d.get("file", ""), root), int(start.get("line", -1)) + 1,
                                    int(start.get("character", -1)) + 1, d.get("rule", ""),
                                    d.get("severity", "error"), d.get("message", "").split("\n")[0]))
    return diags


_PYLINT = re.compile(r"^(?P<file>[^:\s][^:]*?):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]\d{4}): (?P<msg>.*?)"
                     r"(?: \((?P<symbol>[a-z0-9-]+)\))?$")
_PYLINT_SEVERITY = {"F": "error", "E": "error", "W": "warning", "C": "info", "R": "info", "I": "info"}


def parse_pylint(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    text = _text(output)
    diags = []
    for ln in _lines(output):
        m = _PYLINT.match(ln)
        if m:
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"]), m["code"],
                                    _PYLINT_SEVERITY[m["code"][0]], m["msg"]))
    if not diags and "Traceback (most recent call last)" in text:
        raise ToolFailure("pylint crashed: " + _last_line(text))
    return _found(diags, output, clean="rated at" in text)


# ---------------------------------------------------------------- JavaScript and TypeScript

_TSC = re.compile(r"^(?P<file>\S.*?)\((?P<line>\d+),(?P<col>\d+)\): (?P<sev>error|warning) (?P<code>TS\d+): "
                  r"(?P<msg>.*)$")


def parse_tsc(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """`tsc --pretty false`: `file(line,col): error TSnnnn: message`. Errors with no file (options,
    config) are fatal when they are all there is, else diagnostics with no file."""
    text = _text(output)
    if re.search(r"^tsc: The TypeScript Compiler|^Version \d", text, re.M) and "error" not in text:
        raise ToolFailure("tsc printed its help instead of checking: no tsconfig.json or files to check")
    diags, fatal = [], []
    for ln in _lines(output):
        m = _TSC.match(ln)
        if m:
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"]), m["code"],
                                    m["sev"], m["msg"]))
        elif g := re.match(r"^error (TS\d+): (.*)$", ln):
            fatal.append(Diagnostic(check, "", 0, 0, g[1], "error", g[2]))
    if fatal and not diags:
        raise ToolFailure(f"tsc could not start checking: error {fatal[0].code}: {fatal[0].message}")
    return _found(diags + fatal, output)


def parse_eslint(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """`eslint --format json`, or the default `stylish` text of a saved log."""
    text = _text(output)
    if "Oops! Something went wrong" in text:
        raise ToolFailure("eslint failed: " + _first_match(text, r"^(?!Oops|ESLint: \d|\s*$).*"))
    data = _json_array(text)
    if data is not None:
        return _read_json(_eslint_report, data, check, root)
    diags, current = [], ""
    row = re.compile(r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<sev>error|warning)\s+(?P<msg>.*?)(?:\s{2,}(?P<rule>\S+))?$")
    for ln in _lines(output):
        m = row.match(ln)
        if m and current:
            diags.append(Diagnostic(check, current, int(m["line"]), int(m["col"]), m["rule"] or "", m["sev"],
                                    m["msg"]))
        elif ln and not ln[0].isspace() and not ln.startswith("✖"):
            current = rel_path(ln, root)
    return _found(diags, output)


def _eslint_report(data: list, check: str, root: str | None) -> list[Diagnostic]:
    diags = []
    for f in data:
        for m in f.get("messages", []):
            diags.append(Diagnostic(check, rel_path(f.get("filePath", ""), root), int(m.get("line") or 0),
                                    int(m.get("column") or 0), m.get("ruleId") or "",
                                    "error" if m.get("severity") == 2 else "warning", m.get("message", "")))
    return diags


def parse_jest(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """The JSON report of `jest --json` or `vitest --reporter=json`: failing tests with their first
    assertion line, and test files that failed to load."""
    data = _json_object(output, "testResults")
    return None if data is None else _read_json(_jest_report, data, check, root)


def _jest_report(data: dict, check: str, root: str | None) -> list[Diagnostic]:
    diags = []
    for suite in data["testResults"]:
        file = rel_path(suite.get("name", ""), root)
        failed = [t for t in suite.get("assertionResults", []) if t.get("status") == "failed"]
        for t in failed:
            message = "\n".join(t.get("failureMessages") or [])
            at = re.search(re.escape(suite.get("name", "\x00")) + r":(\d+):(\d+)", message)
            diags.append(Diagnostic(check, file, int(at[1]) if at else 0, int(at[2]) if at else 0,
                                    t.get("fullName") or t.get("title", ""), "error", _first_line(message)))
        if suite.get("status") == "failed" and not failed:
            message = suite.get("message") or "test file failed"
            diags.append(Diagnostic(check, file, 0, 0, "", "error", _first_line(message)))
    return diags


# ---------------------------------------------------------------- Python tests

_PYTEST_SUMMARY = re.compile(r"^(?P<kind>FAILED|ERROR) (?P<id>[^\s\[]+(?:\[.*?\])?)(?: - (?P<msg>.*))?$")


def parse_pytest(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """Failing tests from the short summary (`-rfE`), each with the first `E ` line of its traceback
    section (`--tb=short`), which, unlike the summary, is not cut to the terminal width."""
    lines = _lines(output)
    text = "\n".join(lines)
    if re.search(r"^(?:ERROR: usage:|usage: .*pytest|INTERNALERROR>)", text, re.M):
        raise ToolFailure("pytest usage or internal error: " + _first_match(text, r"^(?:ERROR|INTERNALERROR>).*"))
    sections = _pytest_sections(lines, root)
    diags = []
    for ln in lines:
        m = _PYTEST_SUMMARY.match(ln)
        if not m:
            continue
        test_id = m["id"]
        file = rel_path(test_id.split("::")[0], root)
        parts = test_id.split("::")[1:]
        names = [".".join(parts), f"ERROR at setup of {'.'.join(parts)}",
                 f"ERROR at teardown of {'.'.join(parts)}", f"ERROR collecting {test_id}"]
        line, message = 0, m["msg"] or ""
        for n in names:
            if sections.get(n):
                places, first_e = sections[n].pop(0)
                line = next((at for f, at in reversed(places) if f == file), 0)
                message = first_e or message
                break
        diags.append(Diagnostic(check, file, line, 0, test_id, "error", message))
    clean = bool(re.search(r"^=*\s*\d+ passed", text, re.M) or re.search(r"\b\d+ passed\b.* in ", text))
    if not diags and re.search(r"no tests ran|collected 0 items", text):
        raise ToolFailure("pytest collected no tests")
    return _found(diags, output, clean)


def _pytest_sections(lines: list[str], root: str | None) -> dict[str, list[tuple[list[tuple[str, int]], str]]]:
    """Traceback sections by title (`test_x`, `TestK.test_y[1]`, `ERROR collecting a.py`): the
    `file:line:` places each passes through and its first `E ` line; a title may repeat across files."""
    sections: dict[str, list[tuple[list[tuple[str, int]], str]]] = {}
    title: str | None = None
    places: list[tuple[str, int]] = []
    first = ""
    for ln in lines + ["=== end ==="]:
        head = re.match(r"^_+ (.+?) _+$", ln)
        if head or re.match(r"^=+ .* =+$", ln):
            if title is not None:
                sections.setdefault(title, []).append((places, first))
            title, places, first = (head[1] if head else None), [], ""
            continue
        loc = re.match(r"^(\S+?\.py):(\d+): ", ln)
        if loc:
            places.append((rel_path(loc[1], root), int(loc[2])))
        elif ln.startswith("E ") and not first:
            first = ln[1:].strip()
    return sections


# ---------------------------------------------------------------- Go and Rust

def parse_go(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """`go vet`, `go build` (`file:line:col: message`) and `go test` (`--- FAIL: TestX` then its first
    `file.go:line: message` line)."""
    diags: list[Diagnostic] = []
    failing: str | None = None
    clean = False
    for ln in _lines(output):
        fail = re.match(r"^\s*--- FAIL: (\S+)", ln)
        if fail:
            failing = fail[1]
            continue
        if failing:
            at = re.match(r"^\s+(\S+\.go):(\d+): (.*)$", ln)
            panic = re.match(r"^panic: (.*)", ln)
            if at:
                diags.append(Diagnostic(check, rel_path(at[1], root), int(at[2]), 0, failing, "error", at[3]))
            elif panic:
                diags.append(Diagnostic(check, "", 0, 0, failing, "error", panic[1]))
            if at or panic:
                failing = None
                continue
        if re.match(r"^(ok|PASS)\b", ln):
            clean = True
        m = _LOCATED.match(ln.removeprefix("vet: "))
        if m and m["file"].endswith(".go"):
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"] or 0), "",
                                    "error", m["msg"]))
    return _found(diags, output, clean)


_RUST_HEAD = re.compile(r"^(?P<sev>error|warning)(?:\[(?P<code>[A-Z]\d+|[a-z_:]+)\])?: (?P<msg>.*)$")


def parse_cargo(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """cargo check/clippy/build (short or default form) and cargo test's panicking tests."""
    diags: list[Diagnostic] = []
    lines = _lines(output)
    pending = None
    clean = False
    for i, ln in enumerate(lines):
        short = re.match(r"^(?P<file>[^\s:][^:]*\.rs):(?P<line>\d+):(?P<col>\d+): (?P<rest>.*)$", ln)
        head = _RUST_HEAD.match(short["rest"] if short else ln)
        if short and head:
            diags.append(Diagnostic(check, rel_path(short["file"], root), int(short["line"]), int(short["col"]),
                                    head["code"] or "", head["sev"], head["msg"]))
            continue
        if head:
            pending = head
            continue
        arrow = re.match(r"^\s*--> (\S+?):(\d+):(\d+)$", ln)
        if arrow and pending:
            diags.append(Diagnostic(check, rel_path(arrow[1], root), int(arrow[2]), int(arrow[3]),
                                    pending["code"] or "", pending["sev"], pending["msg"]))
            pending = None
            continue
        panic = re.match(r"^thread '(?P<test>[^']+)'(?: \(\d+\))? panicked at (?:'(?P<old>.*)', )?"
                         r"(?P<file>\S+?):(?P<line>\d+):(?P<col>\d+):?(?P<msg>.*)$", ln)
        if panic:
            message = panic["old"] or panic["msg"].strip() or (lines[i + 1].strip() if i + 1 < len(lines) else "")
            diags.append(Diagnostic(check, rel_path(panic["file"], root), int(panic["line"]), int(panic["col"]),
                                    panic["test"], "error", message))
        if re.match(r"^test result: ok\.|^\s*Finished ", ln):
            clean = True
    return _found(diags, output, clean)


# ---------------------------------------------------------------- helpers

def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def _last_line(text: str) -> str:
    return next((ln.strip() for ln in reversed(text.splitlines()) if ln.strip()), "")


def _first_match(text: str, pattern: str) -> str:
    m = re.search(pattern, text, re.M)
    return m[0].strip() if m else _first_line(text)


def _json_object(output: str, key: str):
    """The first JSON object starting a line of the output that has `key`, skipping lines printed around it."""
    decoder = json.JSONDecoder()
    for m in re.finditer(r"^[ \t]*\{", output, re.M):
        try:
            data, _ = decoder.raw_decode(output, m.end() - 1)
        except ValueError:
            continue
        if isinstance(data, dict) and key in data:
            return data
    return None


def _read_json(reader: Callable, data, check: str, root: str | None) -> list[Diagnostic] | None:
    """A JSON report read by `reader`; None when its shape is not the one the tool writes."""
    try:
        return reader(data, check, root)
    except (AttributeError, TypeError, ValueError, KeyError):
        return None


def _json_array(text: str):
    stripped = text.strip()
    if not stripped.startswith("["):
        return None
    try:
        data = json.loads(stripped)
    except ValueError:
        return None
    return data if isinstance(data, list) else None


PARSERS: dict[str, Callable[[str, str, str | None], list[Diagnostic] | None]] = {
    "tsc": parse_tsc,
    "eslint": parse_eslint,
    "vitest": parse_jest,
    "jest": parse_jest,
    "pytest": parse_pytest,
    "mypy": parse_mypy,
    "pyright": parse_pyright,
    "ruff": parse_ruff,
    "flake8": parse_flake8,
    "pylint": parse_pylint,
    "go": parse_go,
    "cargo": parse_cargo,
    "generic": parse_generic,
}
