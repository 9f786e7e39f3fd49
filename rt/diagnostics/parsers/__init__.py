"""Readers for the output of each tool, all yielding `Diagnostic` records (see `text.py` for the contract).

`parse` is the one entry point: the named parser, then the forms every CI shares (SARIF, JUnit XML,
annotation lines) when the tool's own forms found nothing, then the rule that a finding located in a
configuration file means the tool did not really run. `sniff` says which parser and form a log is in
(`--parser auto`).

`RECOMMENDED_ARGS` names the flags to run each tool with so its output is the stable, concise form
these parsers read; `RECOMMENDED_ENV` turns colour off (parsers strip ANSI codes anyway).
"""
from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable

from rt.diagnostics.model import Diagnostic, Interrupted, ToolFailure
from rt.diagnostics.parsers.text import LOCATED, clean, found, json_value, rel_path

Parser = Callable[[str, str, str | None], list[Diagnostic] | None]


def _lazy(module: str, name: str) -> Parser:
    """A parser whose module is loaded on its first use: a hook that reads one check's output compiles
    one tool family's patterns, not every family's."""
    def read(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
        return getattr(importlib.import_module(f"rt.diagnostics.parsers.{module}"), name)(output, check, root)
    read.__name__ = name
    return read


def parse_generic(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """Any `file:line[:col]: message` lines; a leading `error:`/`warning:` becomes the severity."""
    diags = []
    for ln in clean(output).split("\n"):
        m = LOCATED.match(ln)
        if not m:
            continue
        msg, severity = m["msg"], "error"
        sev = re.match(r"(error|warning|note|info)\s*:\s*(.*)", msg, re.I)
        if sev:
            severity, msg = sev[1].lower(), sev[2]
        diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"] or 0), "",
                                severity, msg))
    return found(diags, output)


PARSERS: dict[str, Parser] = {
    "tsc": _lazy("js", "parse_tsc"),
    "eslint": _lazy("js", "parse_eslint"),
    "vitest": _lazy("js", "parse_jest"),
    "jest": _lazy("js", "parse_jest"),
    "pytest": _lazy("pytest", "parse_pytest"),
    "mypy": _lazy("python", "parse_mypy"),
    "pyright": _lazy("python", "parse_pyright"),
    "ruff": _lazy("python", "parse_ruff"),
    "flake8": _lazy("python", "parse_flake8"),
    "pylint": _lazy("python", "parse_pylint"),
    "go": _lazy("go", "parse_go"),
    "cargo": _lazy("rust", "parse_cargo"),
    "junit": _lazy("junit", "parse_junit"),
    "sarif": _lazy("sarif", "parse_sarif"),
    "github": _lazy("sarif", "parse_annotations"),
    "generic": parse_generic,
}

FORMS: dict[str, str] = {
    "tsc": "`--pretty false` (the default into a pipe), `--pretty` with code frames and summary table",
    "eslint": "json (also with lines around it), json-with-metadata, stylish (the default), unix, compact",
    "vitest": "json reporter, default reporter",
    "jest": "--json, default reporter",
    "pytest": "default (long tracebacks), --tb=short/line/no, -q, -v, -rA, -rfE summary",
    "mypy": "default, --show-column-numbers, --show-error-end, --pretty, -O json",
    "pyright": "text, --outputjson",
    "ruff": "full (the default), concise, grouped, pylint, json, json-lines",
    "flake8": "default, --show-source, --statistics, --format=pylint, --format with fields between | ; or tabs",
    "pylint": "text (with score lines), parseable, msvs, colorized, any --msg-template with path, line and "
              "message id, json, json2",
    "go": "go build and go vet, go test plain, -v and -json",
    "cargo": "short, human (the default), --message-format=json, cargo test",
    "junit": "JUnit XML: pytest --junitxml, jest/vitest junit reporters, go-junit-report, cargo nextest, "
             "ruff/eslint/mypy junit",
    "sarif": "SARIF 2.1 (eslint, ruff, semgrep, CodeQL ...)",
    "github": "GitHub Actions annotations (::error file=...::msg, ##[error]msg), Azure ##vso[task.logissue]",
    "generic": "file:line[:col]: message lines",
}
"""The forms each parser reads, for its help and for the line that says a log was not one of them."""

SHARED = ("sarif", "junit", "github")
"""Forms any tool may write: read when the tool's own forms found nothing in the log."""

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
    "junit": [],
    "sarif": [],
    "github": [],
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

PYLINT_CONFIG = ("Command line or configuration file", "Command line")
"""The pseudo-modules pylint names for errors in its options or configuration file."""

CONFIG_FILES = re.compile(r"(?:^|/)(?:[jt]sconfig(?:\.[\w.-]+)?\.json|\.?mypy\.ini|setup\.cfg|pyproject\.toml|tox\.ini"
                          r"|\.flake8|\.?pylintrc|\.?ruff\.toml|eslint\.config\.[cm]?[jt]s|\.eslintrc(?:\.\w+)?"
                          rf"|go\.mod|go\.work|Cargo\.toml|{'|'.join(map(re.escape, PYLINT_CONFIG))})$")
"""Configuration files of the tools (and pylint's pseudo-modules for its options): a finding located in
one says the run did not happen as set up."""


def parse(parser: str, output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """Read a log with the named parser, falling back to the shared forms, and apply the rule that a
    configuration error is a failure of the run, not a finding (raised as `ToolFailure`)."""
    try:
        diags = PARSERS[parser](output, check, root)
        if not diags and parser not in SHARED:
            for shared in SHARED:
                more = PARSERS[shared](output, check, root)
                if more:
                    diags = more
                    break
    except Interrupted as e:
        _config_failure(parser, e.diagnostics)
        raise
    _config_failure(parser, diags or [])
    return diags


def _config_failure(parser: str, diags: list[Diagnostic]) -> None:
    bad = next((d for d in diags if CONFIG_FILES.search(d.file)), None)
    if bad is not None:
        where = bad.file + (f":{bad.line}" if bad.line else "")
        code = f" {bad.code}" if bad.code else ""
        raise ToolFailure(f"{parser} configuration error in {where}:{code} {bad.message}")


# ---------------------------------------------------------------- which tool printed a log

_PATH = r"(?:[A-Za-z]:[\\/])?[^\s:][^:\n]*?"
"""A printed path in a sign: relative or absolute, with spaces, or Windows'."""


@functools.cache
def _signs() -> list[tuple[str, str, re.Pattern]]:
    """Each form's telling lines, in the order they are tried (compiled on the first `sniff`)."""
    return [(p, f, re.compile(rx, re.M)) for p, f, rx in _SIGNS]


_SIGNS: list[tuple[str, str, str]] = [
    ("eslint", "its failure report", r"^Oops! Something went wrong! :\($"),
    ("ruff", "its failure report", r"^ruff failed$"),
    ("mypy", "its crash report", r": error: INTERNAL ERROR -- Please try using mypy master|^usage: mypy "),
    ("pytest", "its failure report", r"^INTERNALERROR> |^ERROR: usage: .*pytest|^usage: .*pytest"),
    ("pylint", "its failure report", r"^usage: pylint |^\*{13} Module Command line or configuration file$"),
    ("pytest", "default", r"^=+ (?:test session starts|short test summary info|FAILURES|ERRORS) =+$"),
    ("pytest", "-q", r"^(?:FAILED|ERROR) \S+::\S+|^\d+ (?:failed|passed)(?:, \d+ \w+)* in [\d.]+s$"),
    ("go", "go test -v", r"^=== RUN\s+Test"),
    ("go", "go test", r"^--- FAIL: \S+ \(|^(?:ok|FAIL)\s+\S+\s+[\d.]+s$"),
    ("cargo", "human", r"^(?:error|warning)(?:\[\w+\])?: .*\n\s*--> \S+\.rs:\d+:\d+$|^test result: |^\s+Compiling \S+ v"),
    ("cargo", "short", rf"^{_PATH}\.rs:\d+:\d+: (?:error|warning)"),
    ("tsc", "--pretty false", r"^\S.*\(\d+,\d+\): error TS\d+: "),
    ("tsc", "--pretty", r"^\S.*:\d+:\d+ - error TS\d+: "),
    ("vitest", "default reporter", r"^\s*(?:FAIL\s+\S+ > |Test Files\s+\d)"),
    ("jest", "default reporter", r"^Tests:\s+\d|^\s+● .+ › "),
    ("eslint", "stylish", r"^\s+\d+:\d+\s+(?:error|warning)\s+\S.*$\n(?:.*\n)*?^✖ \d+ problems?"),
    ("eslint", "unix", r":\d+:\d+: .* \[(?:Error|Warning)(?:/[^\]]+)?\]$"),
    ("eslint", "compact", r": line \d+, col \d+, (?:Error|Warning) - "),
    ("pylint", "text", rf"^\*{{13}} Module |^Your code has been rated at|^{_PATH}:\d+:\d+: [CRWEF]\d{{4}}: "),
    ("pylint", "parseable", r"^\S+:\d+: \[[CRWEF]\d{4}\("),
    ("mypy", "text", r"^\S+:\d+:(?:\d+:)? error: .*\[[a-z-]+\]$|^Success: no issues found|^Found \d+ errors? in \d+ files?"
                     r" \((?:checked|errors prevented)"),
    ("mypy", "--pretty", r"^\S+:\d+: error: .*\n\[[a-z-]+\]$"),
    ("pyright", "text", r"^\s+\S+:\d+:\d+ - (?:error|warning): .*\(report\w+\)$"),
    ("ruff", "full", r"^[A-Z]+\d+ (?:\[\*\] )?.*\n\s*--> \S+:\d+:\d+$|^invalid-syntax: .*\n\s*--> "),
    ("ruff", "grouped", r"^\S+:\n\s+\d+:\d+ [A-Z]+\d+ "),
    ("ruff", "concise", rf"^{_PATH}:\d+:\d+: [A-Z]+\d+ \[\*\] |^All checks passed!$|^Found \d+ errors?\.$"),
    ("ruff", "pylint", r"^\S+:\d+: \[[A-Z]+\d+\] "),
    ("flake8", "default", rf"^{_PATH}:\d+:\d+: [A-Z]\d{{3}} "),
    ("flake8", "--format with | ; or tab between fields", r"^[^|;\t\n]+\.py[|;\t]\d+[|;\t](?:\d+[|;\t])?[A-Z]+\d+[|;\t]"),
    ("go", "go build / go vet", rf"^(?:vet: )?{_PATH}\.go:\d+:\d+: |^# \S+\n{_PATH}\.go:\d+"),
    ("generic", "file:line: message", r"^\S[^:\n]*:\d+(?::\d+)?: \S"),
]


def sniff(output: str) -> tuple[str, str] | None:
    """(parser, form) of a log judged from the log itself, or None when no known form is in it."""
    if _is_junit(output):
        return "junit", _junit_producer(output)
    data = json_value(output, lambda v: isinstance(v, (dict, list)))
    if data is not None:
        got = _json_form(data, output)
        if got:
            return got
    for name in ("go", "cargo", "mypy"):
        if name == "go" and '"Action"' in output and re.search(r'"Action"\s*:\s*"(?:run|fail|pass|output)"', output):
            return "go", "go test -json"
        if name == "cargo" and '"reason":"compiler-message"' in output.replace(" ", ""):
            return "cargo", "--message-format=json"
        if name == "mypy" and re.search(r'^\{"file": .*"severity": "(?:error|note)"\}$', output, re.M):
            return "mypy", "-O json"
    if re.search(r"^\s*::(?:error|warning|notice)\b.*::|^##vso\[task\.logissue", output, re.M):
        return "github", "annotations"
    text = clean(output)
    for parser, form, rx in _signs():
        if rx.search(text):
            return parser, form
    return None


def _is_junit(output: str) -> bool:
    """Whether the log holds a JUnit document (also one cut short)."""
    return bool(re.search(r"<testsuites?\b", output))


def _junit_producer(output: str) -> str:
    head = output[:2000]
    for sign, who in (('name="pytest', "pytest"), ("org.ruff", "ruff"), ("org.eslint", "eslint"),
                      ('name="mypy"', "mypy"), ("vitest", "vitest"), ("jest", "jest"), ("nextest", "cargo nextest"),
                      ('"go.version"', "go-junit-report")):
        if sign in head:
            return f"JUnit XML ({who})"
    return "JUnit XML"


def _json_form(data, output: str) -> tuple[str, str] | None:
    if isinstance(data, dict):
        if isinstance(data.get("runs"), list):
            return "sarif", "SARIF 2.1"
        if "testResults" in data:
            return ("vitest" if "vitest" in output[:4000].lower() else "jest"), "json report"
        if "generalDiagnostics" in data:
            return "pyright", "--outputjson"
        if isinstance(data.get("messages"), list):
            return "pylint", "json2"
        if isinstance(data.get("results"), list):
            return "eslint", "json-with-metadata"
        if "code" in data and "location" in data and "filename" in data:
            return "ruff", "json-lines"
        return None
    first = data[0] if data and isinstance(data[0], dict) else {}
    if "filePath" in first and "messages" in first:
        return "eslint", "json"
    if "code" in first and "location" in first:
        return "ruff", "json"
    if "message-id" in first:
        return "pylint", "json"
    return None
