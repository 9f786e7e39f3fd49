"""Python linters and type checkers: ruff, flake8, mypy, pyright, pylint, in each one's common forms."""
from __future__ import annotations

import re

from rt.diagnostics.model import Diagnostic, Interrupted, ToolFailure, Truncated
from rt.diagnostics.parsers.text import (FILE, LOCATED, clean, first_match, found, json_lines, json_value,
                                         last_line, lines, num, read_json, rel_path)

_CODE = r"(?P<code>[A-Z]+[0-9]+|SyntaxError|invalid-syntax)"
_CODED = re.compile(_CODE + r"(?::)?\s+(?:\[\*\]\s+)?(?P<msg>.*)")
_BRACKETED = re.compile(rf"^{FILE}:(?P<line>\d+): \[{_CODE}\] (?P<msg>.*)$")   # --format=pylint / -o pylint
_DELIMITED = re.compile(r"^(?P<file>[^|;\t\n]+?)(?P<sep>[|;\t])(?P<line>\d+)(?P=sep)(?:(?P<col>\d+)(?P=sep))?"
                        + _CODE + r"(?P=sep)(?P<msg>.*)$")          # flake8 --format='%(path)s|%(row)d|...'



def _coded(check: str, root: str | None, output: str) -> list[Diagnostic]:
    """`file:line:col: CODE message` lines (ruff concise, flake8) and `file:line: [CODE] message`."""
    diags = []
    for ln in lines(output):
        m = _BRACKETED.match(ln) or _DELIMITED.match(ln) or LOCATED.match(ln)
        c = _CODED.match(m["msg"]) if m and m.re is LOCATED else m
        if m and c:
            col = int(m["col"] or 0) if m.re is not _BRACKETED else 0
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), col, c["code"], "error",
                                    c["msg"]))
    return diags


# ---------------------------------------------------------------- ruff

_RUFF_HEAD = re.compile(_CODE + r"(?::)? (?:\[\*\] )?(?P<msg>.*)$")
_ARROW = re.compile(rf"^\s*--> {FILE}:(?P<line>\d+):(?P<col>\d+)$")
_RUFF_FOUND = re.compile(r"^Found (?P<found>\d+) errors?(?: \(\d+ fixed, (?P<left>\d+) remaining\))?\.$", re.M)
"""ruff's closing count of the findings it printed (with `--fix`, those left)."""


def parse_ruff(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """ruff's concise, full (the default: `CODE message` then ` --> file:line:col` and a code frame),
    grouped, pylint, json and json-lines forms."""
    text = clean(output)
    data = json_value(output, lambda v: isinstance(v, list) and all(isinstance(d, dict) and "code" in d
                                                                      and "location" in d for d in v), "[")
    if data is not None:
        return read_json(_ruff_report, data, check, root)
    records = json_lines(output, lambda d: "code" in d and "location" in d and "filename" in d)
    if records:
        return read_json(_ruff_report, records, check, root)
    diags = _coded(check, root, output) + _ruff_full(check, root, text) + _ruff_grouped(check, root, text)
    if not diags and re.search(r"^ruff failed|^error: (?!Failed to parse)", text, re.M):
        raise ToolFailure("ruff failed: " + first_match(text, r"(?<=Cause: ).*|^error:.*"))
    said = _RUFF_FOUND.search(text)
    if said and len(diags) != int(said["left"] or said["found"]):   # a finding whose line rt could not read
        raise ToolFailure(f"rt read {len(diags)} of the {said['left'] or said['found']} findings ruff reported")
    return found(diags, output, clean_run="All checks passed!" in text)


def _ruff_report(data: list, check: str, root: str | None) -> list[Diagnostic]:
    return [Diagnostic(check, rel_path(d.get("filename") or "", root), num((d.get("location") or {}).get("row")),
                       num((d.get("location") or {}).get("column")), d.get("code") or "",
                       "warning" if d.get("severity") == "warning" else "error", d.get("message") or "")
            for d in data]


def _ruff_full(check: str, root: str | None, text: str) -> list[Diagnostic]:
    """The full form: a `CODE message` line, its ` --> file:line:col` line next; a header with no arrow
    at the end of the log means the log was cut."""
    diags, head = [], None
    for ln in text.split("\n"):
        m = _RUFF_HEAD.match(ln)
        if m:
            head = m
            continue
        arrow = _ARROW.match(ln)
        if arrow and head:
            diags.append(Diagnostic(check, rel_path(arrow["file"], root), int(arrow["line"]), int(arrow["col"]),
                                    head["code"], "error", head["msg"]))
        if ln.strip():
            head = None
    if head and diags:
        raise Truncated(f"the log ends inside a ruff record ({head['code']} with no location line after it)")
    if diags and not re.search(r"^Found \d+ errors?", text, re.M):
        raise Truncated("the log ends before ruff's closing `Found N errors.` line")
    return diags


def _ruff_grouped(check: str, root: str | None, text: str) -> list[Diagnostic]:
    """The grouped form: `file:` then `  line:col CODE message` rows."""
    diags, current = [], None
    row = re.compile(r"^\s+(?P<line>\d+):(?P<col>\d+)\s+" + _CODE + r"(?::)?\s+(?:\[\*\]\s+)?(?P<msg>.*)$")
    for ln in text.split("\n"):
        head = re.match(rf"^{FILE}:$", ln)
        if head:
            current = rel_path(head["file"], root)
            continue
        m = row.match(ln)
        if m and current:
            diags.append(Diagnostic(check, current, int(m["line"]), int(m["col"]), m["code"], "error", m["msg"]))
        elif ln and not ln[0].isspace():
            current = None
    return diags


# ---------------------------------------------------------------- flake8

def parse_flake8(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """flake8's default form (also with `--show-source` and `--statistics`), `--format=pylint`, and a
    `--format` that puts `|`, `;` or a tab between path, row, [col,] code and text."""
    if "Traceback (most recent call last)" in output:
        raise ToolFailure("flake8 crashed: " + last_line(clean(output)))
    return found(_coded(check, root, output), output)


# ---------------------------------------------------------------- mypy

_MYPY = (rf"^{FILE}:(?:(?P<line>\d+):(?:(?P<col>\d+):(?:\d+:\d+:)?)?)?\s*(?P<sev>error|warning|note):"
         r"\s*(?P<msg>.*?)(?:\s+\[(?P<code>[a-z0-9-]+)\])?$")
_MYPY_SUMMARY = r"^(?:Found \d+ errors? in \d+ files?|Success: no issues found)"
"""mypy's patterns (and pylint's below) as text, compiled by `re`'s cache at their first use: a hook that
reads ruff's output compiles none of them."""


def parse_mypy(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """mypy's error and warning lines, with or without columns (and end columns), `--pretty` (messages
    wrapped to the terminal, code frames) and `-O json`; notes only explain an error already reported,
    so they are left out."""
    text = clean(output)
    if "INTERNAL ERROR" in text or "Traceback (most recent call last)" in text:
        raise ToolFailure("mypy crashed: " + first_match(text, r".*INTERNAL ERROR.*|^\w*Error:.*"))
    # a config or usage error names no line (an unknown or invalid option in a config file's section:
    # `mypy.ini: [mypy]: Unrecognized option`); a type error such as `a.py:2: error: Invalid index type` does
    fatal = re.search(r"^(?:mypy: error:|usage: mypy|[^:\n]+: error: (?:Cannot find config|Invalid|Unrecognized option)"
                      r"|[^:\n]+\.(?:ini|cfg|toml): \[[^\]\n]+\]: ).*", text, re.M)
    if fatal:
        raise ToolFailure("mypy configuration or usage error: " + fatal[0])
    records = json_lines(output, lambda d: {"file", "line", "message", "severity"} <= d.keys())
    diags = [Diagnostic(check, rel_path(d["file"], root), num(d["line"]), num(d.get("column")) + 1,
                        d.get("code") or "", d["severity"], d["message"])
             for d in records if d["severity"] != "note"]
    if not records:
        diags = _mypy_text(check, root, text)
    stopped = "errors prevented further checking" in text
    if stopped or any(d.code == "syntax" for d in diags):
        raise Interrupted("mypy stopped at a blocking error (errors prevented further checking)", diags)
    return found(diags, output, clean_run=bool(re.search(r"^Success: no issues found", text, re.M)))


def _mypy_text(check: str, root: str | None, text: str) -> list[Diagnostic]:
    """Text lines; under `--pretty` a message continues on unindented lines until its code frame."""
    diags: list[Diagnostic] = []
    pending: list[str] | None = None      # the message lines of the last error, while it may continue
    at: re.Match | None = None

    def flush() -> None:
        if at is not None and pending is not None and at["sev"] != "note":
            joined = " ".join(pending)
            code = re.search(r"\s+\[([a-z0-9-]+)\]$", joined)
            message = joined[:code.start()] if code else joined
            diags.append(Diagnostic(check, rel_path(at["file"], root), int(at["line"] or 0), int(at["col"] or 0),
                                    at["code"] or (code[1] if code else ""), at["sev"], message.strip()))

    for ln in text.split("\n"):
        m = re.match(_MYPY, ln)
        if m:
            flush()
            at, pending = m, [m["msg"] if not m["code"] else m["msg"] + f"  [{m['code']}]"]
            continue
        wraps = pending is not None and at is not None and not at["code"] and not re.search(r"\[[a-z0-9-]+\]$", pending[-1])
        if wraps and ln and not ln[0].isspace() and not re.match(_MYPY_SUMMARY, ln):
            pending.append(ln.strip())     # --pretty: the message wrapped to the terminal's width
            continue
        flush()
        at, pending = None, None
    flush()
    return diags


# ---------------------------------------------------------------- pyright

def parse_pyright(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """`pyright --outputjson`, or its text form `  file:line:col - error: message (rule)`; a message of
    several lines has its rule after the last one, and its first line is the message, as in the JSON form."""
    data = json_value(output, lambda v: isinstance(v, dict) and "generalDiagnostics" in v, "{")
    if data is not None:
        return read_json(_pyright_report, data, check, root)
    diags = []
    rx = re.compile(r"^\s*(?P<file>\S.*?):(?P<line>\d+):(?P<col>\d+) - (?P<sev>error|warning):\s*(?P<msg>.*?)"
                    r"(?:\s+\((?P<code>report\w+)\))?$")
    open_ = False      # the last finding's message may go on, indented, up to its rule
    for ln in lines(output):
        m = rx.match(ln)
        if m:
            open_ = not m["code"]
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"]),
                                    m["code"] or "", m["sev"], m["msg"]))
        elif open_ and ln[:1].isspace():   # indented with spaces and no-break spaces
            rule = re.search(r"\s\((report\w+)\)$", ln)
            if rule:
                diags[-1], open_ = diags[-1]._replace(code=rule[1]), False
        else:
            open_ = False
    if diags and not re.search(r"^\d+ errors?, \d+ warnings?, \d+ info", clean(output), re.M):   # `informations`, or `infos`
        raise Truncated("the log ends before pyright's closing `N errors, N warnings, N informations` line")
    return found(diags, output, clean_run=bool(re.search(r"\b0 errors\b", output)))


def _pyright_report(data: dict, check: str, root: str | None) -> list[Diagnostic]:
    diags = []
    for d in data["generalDiagnostics"]:
        start = d.get("range", {}).get("start", {})
        if d.get("severity", "error") != "information":
            diags.append(Diagnostic(check, rel_path(d.get("file", ""), root), int(start.get("line", -1)) + 1,
                                    int(start.get("character", -1)) + 1, d.get("rule", ""),
                                    d.get("severity", "error"), d.get("message", "").split("\n")[0]))
    return diags


# ---------------------------------------------------------------- pylint

_PYLINT_SEVERITY = {"F": "error", "E": "error", "W": "warning", "C": "info", "R": "info", "I": "info"}
_PYLINT_AT = rf"^{FILE}(?::(?P<line>\d+)(?::(?P<col>\d+))?:|\((?P<line2>\d+)\):)\s*(?P<rest>.*)$"
_MSG_ID = r"\b(?P<id>[CRWEFI]\d{4})(?!\d)"


def parse_pylint(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """pylint's text, parseable, msvs and colorized forms, any `--msg-template` that prints the path,
    the line and the message id, and the json and json2 forms."""
    text = clean(output)
    data = json_value(output, lambda v: isinstance(v, list) and all(isinstance(d, dict) and "message-id" in d
                                                                      for d in v)
                      or isinstance(v, dict) and isinstance(v.get("messages"), list))
    if data is not None:
        return read_json(_pylint_report, data["messages"] if isinstance(data, dict) else data, check, root)
    diags = []
    for ln in text.split("\n"):
        m = re.match(_PYLINT_AT, ln)
        ids = re.search(_MSG_ID, m["rest"]) if m else None
        if not (m and ids):
            continue
        diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"] or m["line2"]), int(m["col"] or 0),
                                ids["id"], _PYLINT_SEVERITY[ids["id"][0]], _pylint_message(m["rest"], ids)))
    if not diags and "Traceback (most recent call last)" in text:
        raise ToolFailure("pylint crashed: " + last_line(text))
    return found(diags, output, clean_run="rated at" in text)


def _pylint_message(rest: str, ids: re.Match) -> str:
    """The message of a templated line without its id, symbol and object: `C0114: text (symbol)`,
    `[C0114(symbol), obj] text`, `C0114 text`."""
    rest = re.sub(r"^\[[^\]]*\]\s*", "", rest) if rest.startswith("[") else rest
    if rest.startswith(ids["id"]):
        rest = rest[len(ids["id"]):].lstrip(":").strip()
    rest = re.sub(r"\s*\[[^\]]*\b" + ids["id"] + r"[^\]]*\]$", "", rest)
    return re.sub(r"\s*\([a-z][a-z0-9-]+\)$", "", rest).strip()


def _pylint_report(data: list, check: str, root: str | None) -> list[Diagnostic]:
    out = []
    for d in data:
        msg_id = d.get("message-id") or d.get("messageId") or ""
        out.append(Diagnostic(check, rel_path(d.get("path") or "", root), num(d.get("line")), num(d.get("column")),
                              msg_id, _PYLINT_SEVERITY.get(msg_id[:1], "error"), d.get("message") or ""))
    return out
