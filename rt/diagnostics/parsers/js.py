"""JavaScript and TypeScript: tsc, eslint, and the jest and vitest test runners, in their common forms."""
from __future__ import annotations

import re

from rt.diagnostics.model import Diagnostic, ToolFailure, Truncated, cap_detail
from rt.diagnostics.parsers.text import (FILE, clean, first_line, first_match, found, json_value, num,
                                         read_json, rel_path)

# ---------------------------------------------------------------- tsc

_TSC = re.compile(rf"^{FILE}\((?P<line>\d+),(?P<col>\d+)\): (?P<sev>error|warning) (?P<code>TS\d+): (?P<msg>.*)$")
_TSC_PRETTY = re.compile(rf"^{FILE}:(?P<line>\d+):(?P<col>\d+) - (?P<sev>error|warning) (?P<code>TS\d+): (?P<msg>.*)$")


def parse_tsc(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """`tsc --pretty false` (`file(line,col): error TSnnnn: message`, the default into a pipe) and
    `tsc --pretty` (`file:line:col - error TSnnnn: message`, code frames, the summary table). Errors with
    no file (options, config) are fatal when they are all there is, else diagnostics with no file."""
    text = clean(output)
    if re.search(r"^tsc: The TypeScript Compiler|^Version \d", text, re.M) and "error" not in text:
        raise ToolFailure("tsc printed its help instead of checking: no tsconfig.json or files to check")
    diags, fatal, pretty = [], [], False
    for ln in text.split("\n"):
        m = _TSC.match(ln) or _TSC_PRETTY.match(ln)
        if m:
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"]), m["code"],
                                    m["sev"], m["msg"]))
            pretty = pretty or m.re is _TSC_PRETTY
        elif g := re.match(r"^error (TS\d+): (.*)$", ln):
            fatal.append(Diagnostic(check, "", 0, 0, g[1], "error", g[2]))
    if fatal and not diags:
        raise ToolFailure(f"tsc could not start checking: error {fatal[0].code}: {fatal[0].message}")
    if pretty and not re.search(r"^Found \d+ errors?\b", text, re.M):   # `--pretty` always ends with it
        raise Truncated("the log ends before tsc's closing `Found N errors` line")
    return found(diags + fatal, output)


# ---------------------------------------------------------------- eslint

def parse_eslint(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """`eslint --format json` (also with lines printed around it, and json-with-metadata), the default
    `stylish` text (messages on several lines, messages without a rule), `-f unix` and `-f compact`."""
    text = clean(output)
    if "Oops! Something went wrong" in text:
        raise ToolFailure("eslint failed: " + first_match(text, r"^\w*Error\b.*|^(?!Oops|ESLint: \d|\s*$|> ).*"))
    data = json_value(output, _eslint_shape)
    if data is not None:
        return read_json(_eslint_report, data["results"] if isinstance(data, dict) else data, check, root)
    if re.search(r'^\s*\[\s*\{\s*"filePath"', text, re.M):
        raise Truncated("the eslint JSON report ends before its closing bracket")
    stylish = _stylish(check, root, text)
    if stylish and not re.search(r"^✖ \d+ problems? \(", text, re.M):   # stylish always ends with it
        raise Truncated("the log ends before eslint's closing `✖ N problems` line")
    return found(stylish + _unix_compact(check, root, text), output)


def _eslint_shape(v) -> bool:
    if isinstance(v, dict):       # json-with-metadata
        v = v.get("results")
    return isinstance(v, list) and all(isinstance(f, dict) and "messages" in f for f in v)


def _eslint_report(data: list, check: str, root: str | None) -> list[Diagnostic]:
    diags = []
    for f in data:
        for m in f.get("messages", []):
            diags.append(Diagnostic(check, rel_path(f.get("filePath", ""), root), num(m.get("line")),
                                    num(m.get("column")), m.get("ruleId") or "",
                                    "error" if m.get("severity") == 2 else "warning", m.get("message", "")))
    return diags


_STYLISH_ROW = re.compile(r"^\s+(?P<line>\d+):(?P<col>\d+)\s+(?P<sev>error|warning)\s+(?P<msg>.*?)"
                          r"(?:\s{2,}(?P<rule>[@\w][\w/@.-]*))?$")


def _stylish(check: str, root: str | None, text: str) -> list[Diagnostic]:
    """Rows under a file name; a file name follows a blank line, and an unindented line right after a
    row is the rest of that row's message (a message with a line break), ending in its rule."""
    diags: list[Diagnostic] = []
    current, prev, open_row = "", "", None
    for ln in text.split("\n"):
        m = _STYLISH_ROW.match(ln)
        if m and current:
            open_row = [m["line"], m["col"], m["sev"], [m["msg"]], m["rule"] or ""]
            diags.append(_row(check, current, open_row))
        elif open_row is not None and ln and not ln[0].isspace() and prev and not ln.startswith("✖"):
            tail = re.match(r"^(?P<msg>.*?)(?:\s{2,}(?P<rule>[@\w][\w/@.-]*))?$", ln)
            open_row[3].append(tail["msg"])
            open_row[4] = tail["rule"] or open_row[4]
            diags[-1] = _row(check, current, open_row)
        elif ln and not ln[0].isspace() and not prev and not ln.startswith("✖"):
            current, open_row = rel_path(ln, root), None
        else:
            open_row = None
        prev = ln
    return diags


def _row(check: str, file: str, row: list) -> Diagnostic:
    line, col, sev, parts, rule = row
    return Diagnostic(check, file, int(line), int(col), rule, sev, " ".join(p.strip() for p in parts))


_UNIX = re.compile(rf"^{FILE}:(?P<line>\d+):(?P<col>\d+): (?P<msg>.*?)(?: \[(?P<sev>Error|Warning)(?:/(?P<rule>[^\]]+))?\])?$")
_COMPACT = re.compile(rf"^{FILE}: line (?P<line>\d+), col (?P<col>\d+), (?P<sev>Error|Warning) - (?P<msg>.*?)"
                      r"(?: \((?P<rule>[@\w][\w/@.-]*)\))?$")


def _unix_compact(check: str, root: str | None, text: str) -> list[Diagnostic]:
    """`-f unix` (`file:line:col: message [Error/rule]`) and `-f compact` (`file: line N, col N, Error -
    message (rule)`); a message with a line break goes on over the next lines, up to the one that ends
    in the bracket (unix) or until a blank line or the next record (compact, rule in parentheses)."""
    diags: list[Diagnostic] = []
    pending: list | None = None         # unix: [file, line, col, parts] until its `[Error/rule]`
    last: list | None = None            # compact: [file, line, col, sev, parts] while it may go on
    for ln in text.split("\n"):
        m = _COMPACT.match(ln) or _UNIX.match(ln)
        if m and (m.re is _COMPACT or m["sev"] or pending is None):
            pending = last = None
            if m.re is _UNIX and not m["sev"]:
                pending = [m["file"], m["line"], m["col"], [m["msg"]]]
                continue
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"]),
                                    m["rule"] or "", m["sev"].lower(), m["msg"]))
            last = [m["file"], m["line"], m["col"], m["sev"], [m["msg"]]] if m.re is _COMPACT and not m["rule"] else None
            continue
        if pending is not None:
            tail = re.match(r"^(?P<msg>.*?) \[(?P<sev>Error|Warning)(?:/(?P<rule>[^\]]+))?\]$", ln)
            pending[3].append(tail["msg"] if tail else ln)
            if tail:
                diags.append(Diagnostic(check, rel_path(pending[0], root), int(pending[1]), int(pending[2]),
                                        tail["rule"] or "", tail["sev"].lower(), " ".join(pending[3])))
                pending = None
        elif last is not None and ln.strip():
            tail = re.match(r"^(?P<msg>.*?)(?: \((?P<rule>[@\w][\w/@.-]*)\))?$", ln)
            last[4].append(tail["msg"])
            diags[-1] = Diagnostic(check, rel_path(last[0], root), int(last[1]), int(last[2]), tail["rule"] or "",
                                   last[3].lower(), " ".join(last[4]))
            last = None if tail["rule"] else last
        else:
            last = None
    return diags


# ---------------------------------------------------------------- jest and vitest

def parse_jest(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """jest and vitest: the JSON report (`jest --json`, `vitest --reporter=json`) or the default
    reporter's text. Each failing test is identified as `file > describe > title`."""
    data = json_value(output, lambda v: isinstance(v, dict) and "testResults" in v, "{")
    if data is not None:
        return read_json(_jest_report, data, check, root)
    text = clean(output)
    if re.search(r'^\s*\{\s*"num\w+":', text, re.M):
        raise Truncated("the test runner's JSON report ends before its closing brace")
    return _jest_text(check, root, text)


def _jest_report(data: dict, check: str, root: str | None) -> list[Diagnostic]:
    finished = sum(int(data.get(k) or 0) for k in ("numPassedTests", "numFailedTests", "numPendingTests",
                                                    "numTodoTests"))
    if int(data.get("numTotalTests") or 0) > finished:
        raise Truncated(f"the report counts {data['numTotalTests']} tests but only {finished} finished: the run "
                        "was cut short or a worker crashed")
    diags = []
    for suite in data["testResults"]:
        file = rel_path(suite.get("name", ""), root)
        failed = [t for t in suite.get("assertionResults", []) if t.get("status") == "failed"]
        for t in failed:
            message = "\n".join(t.get("failureMessages") or [])
            at = re.search(re.escape(suite.get("name", "\x00")) + r":(\d+):(\d+)", message)
            title = " > ".join([*(t.get("ancestorTitles") or []), t.get("title") or t.get("fullName") or ""])
            line = int(at[1]) if at else 0
            diags.append(Diagnostic(check, file, line, int(at[2]) if at else 0, f"{file} > {title}", "error",
                                    first_line(message), "failed", _js_detail(message, file, line)))
        if suite.get("status") == "failed" and not failed:
            message = suite.get("message") or "test file failed"
            diags.append(Diagnostic(check, file, 0, 0, file, "error", first_line(message), "error",
                                    _js_detail(message)))
    return diags


def _js_detail(message: str, file: str = "", line: int = 0) -> str:
    """The explaining lines of a failure: the failing source line from the code frame (jest's `> N |`,
    vitest's `N|` at the reported line), then the message's own lines without stack frames."""
    kept, source = [], ""
    for ln in clean(message).split("\n"):
        s = ln.strip()
        frame = re.match(r"^(>)?\s*(\d+)\s*\|(.*)$", s)
        if frame:
            if not source and (frame[1] or int(frame[2]) == line):
                source = f"{file}:{frame[2]}: {frame[3].strip()}"
            continue
        if s and not s.startswith(("at ", "❯ ", "File: ", "At file: ")) and not re.match(r"^\|\s*\^", s):
            kept.append(s)
    return cap_detail(([source] if source else []) + kept)


_VITEST_FAIL = re.compile(r"^\s+FAIL\s+(?P<file>\S+?)\s+>\s+(?P<title>.+?)(?:\s+\[.*\])?$")
_VITEST_FILE_FAIL = re.compile(r"^\s+FAIL\s+(?P<file>\S+\.\w+)\s*(?:\[.*\])?$")
_JEST_SUITE = re.compile(r"^\s*FAIL\s+(?P<file>\S+)$")
_JEST_TEST = re.compile(r"^\s+● (?P<title>.+)$")


def _jest_text(check: str, root: str | None, text: str) -> list[Diagnostic] | None:
    """The default reporters. vitest: ` FAIL  file > describe > title`, the error, ` ❯ file:line:col`.
    jest: `FAIL file`, then `● describe › title`, the error, a code frame and `at ... (file:line:col)`."""
    diags: list[Diagnostic] = []
    block: list | None = None         # [file, title, kind, lines]
    suite = ""
    seen: set[str] = set()

    def close() -> None:
        if block is None:
            return
        file, title, kind, body = block
        code = f"{file} > {title}" if title else file
        if code in seen:
            return
        seen.add(code)
        at = next((m for ln in body if (m := re.search(re.escape(file) + r":(\d+):(\d+)", ln))), None)
        message = next((ln.strip() for ln in body if ln.strip() and not re.match(r"^\s*(?:❯|at) ", ln)), "")
        line = int(at[1]) if at else 0
        diags.append(Diagnostic(check, file, line, int(at[2]) if at else 0, code, "error", message, kind,
                                _js_detail("\n".join(body), file, line)))

    jest = bool(re.search(r"^\s+● |^Test Suites: ", text, re.M))
    if re.search(r"^Vitest caught \d+ unhandled errors?", text, re.M):
        raise ToolFailure("vitest caught unhandled errors during the run (a worker crashed or code threw outside "
                          "a test): " + first_match(text, r"(?<=^Caused by: ).*|^\w*Error: \[vitest.*"))
    ended = False
    for ln in text.split("\n"):
        j = _JEST_SUITE.match(ln) if jest else None
        v = _VITEST_FAIL.match(ln) if not jest else None
        vf = _VITEST_FILE_FAIL.match(ln) if not (v or jest) else None
        t = _JEST_TEST.match(ln) if suite else None
        if v or vf:
            close()
            file = rel_path((v or vf)["file"], root)
            block = [file, v["title"].strip() if v else "", "failed" if v else "error", []]
        elif j:
            close()
            suite, block = rel_path(j["file"], root), None
        elif t:
            close()
            title = t["title"].replace(" › ", " > ")
            kind = "error" if title == "Test suite failed to run" else "failed"
            block = [suite, "" if kind == "error" else title, kind, []]
        elif re.match(r"^\s*(?:Test Files|Tests:|Test Suites:|Tests\s+\d)", ln) or re.match(r"^⎯+", ln.strip()):
            close()
            block = None
            ended = ended or bool(re.match(r"^\s*(?:Tests:|Tests\s+\d)", ln))
        elif block is not None:
            block[3].append(ln)
    close()
    if not diags:
        return [] if ended else None
    if not ended:
        raise Truncated("the log ends before the test runner's closing `Tests:` summary")
    return diags
