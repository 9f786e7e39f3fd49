"""Rust: cargo check, clippy and build (short, human and `--message-format=json` forms) and cargo test."""
from __future__ import annotations

import re

from rt.diagnostics.model import Diagnostic, ToolFailure, Truncated, cap_detail
from rt.diagnostics.parsers.text import FILE, found, json_lines, lines, num, read_json, rel_path

_RUST_HEAD = re.compile(r"^(?P<sev>error|warning)(?:\[(?P<code>[A-Z]\d+|[a-z_:]+)\])?: (?P<msg>.*)$")
_SHORT = re.compile(rf"^{FILE}:(?P<line>\d+):(?P<col>\d+): (?P<rest>.*)$")
_ARROW = re.compile(r"^\s*--> (?P<file>.+?):(?P<line>\d+):(?P<col>\d+)$")
_PANIC = re.compile(r"^thread '(?P<test>[^']+)'(?: \(\d+\))? panicked at (?:'(?P<old>.*)', )?"
                    r"(?P<file>.+?):(?P<line>\d+):(?P<col>\d+):?(?P<msg>.*)$")
_SUMMARY = re.compile(r"^(?:aborting due to|\d+ warnings? emitted|.*generated \d+ warnings?|could not compile)")


def parse_cargo(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """cargo check/clippy/build (short, human or JSON messages, which may share a log with cargo's own
    text on stderr) and cargo test's panicking tests."""
    messages = json_lines(output, lambda d: d.get("reason") == "compiler-message" and isinstance(d.get("message"), dict))
    diags = read_json(_cargo_json, messages, check, root) or []
    text_lines = lines(output)
    pending = None
    clean_run = any(d.get("reason") == "build-finished" and d.get("success") for d in
                    json_lines(output, lambda d: d.get("reason") == "build-finished"))
    running = False
    for i, ln in enumerate(text_lines):
        if ln.startswith("{"):
            continue
        short = _SHORT.match(ln)
        head = _RUST_HEAD.match(short["rest"] if short else ln)
        if head and _SUMMARY.match(head["msg"]):
            pending = None
            continue
        if short and head and short["file"].endswith(".rs"):
            diags.append(Diagnostic(check, rel_path(short["file"], root), int(short["line"]), int(short["col"]),
                                    head["code"] or "", head["sev"], head["msg"]))
            continue
        if head:
            pending = head
            continue
        arrow = _ARROW.match(ln)
        if arrow and pending:
            diags.append(Diagnostic(check, rel_path(arrow["file"], root), int(arrow["line"]), int(arrow["col"]),
                                    pending["code"] or "", pending["sev"], pending["msg"]))
            pending = None
            continue
        panic = _PANIC.match(ln)
        if panic:
            after = _until_blank(text_lines, i + 1)
            message = panic["old"] or panic["msg"].strip() or (after[0] if after else "")
            diags.append(Diagnostic(check, rel_path(panic["file"], root), int(panic["line"]), int(panic["col"]),
                                    panic["test"], "error", message, "failed",
                                    cap_detail([f"{rel_path(panic['file'], root)}:{panic['line']}"] + after)))
        if re.match(r"^running \d+ tests?$", ln):
            running = True
        if re.match(r"^test result: ", ln):
            running = False
        if re.match(r"^test result: ok\.|^\s*Finished ", ln):
            clean_run = True
    if running:
        raise Truncated("the log ends before cargo test's `test result:` line")
    killed = re.search(r"process didn't exit successfully: .*\(signal: (\d+)(?:, (\w+))?", "\n".join(text_lines))
    if killed:
        raise ToolFailure(f"a test binary was killed by signal {killed[1]} ({killed[2] or 'no name'}): the tests "
                          "after it never ran")
    return found(diags, output, clean_run)


def _until_blank(text_lines: list[str], start: int) -> list[str]:
    out = []
    for ln in text_lines[start:start + 12]:
        if not ln.strip() or ln.startswith("note: run with"):
            break
        out.append(ln.strip())
    return out


def _cargo_json(messages: list[dict], check: str, root: str | None) -> list[Diagnostic]:
    """`--message-format=json`: each compiler message at its primary span; totals and notes left out."""
    diags = []
    for record in messages:
        m = record["message"]
        level = m.get("level")
        if level not in ("error", "warning") or _SUMMARY.match(m.get("message") or ""):
            continue
        span = next((s for s in m.get("spans") or [] if s.get("is_primary")), None) or {}
        code = (m.get("code") or {}).get("code") or ""
        diags.append(Diagnostic(check, rel_path(span.get("file_name") or "", root), num(span.get("line_start")),
                                num(span.get("column_start")), code, level, m.get("message") or ""))
    return diags
