"""pytest's text output: the default (long tracebacks), `--tb=short`, `-q`, `-v`, `-rA`.

Each failing test is identified by its node id and kind (failed, or error for setup, teardown and
collection), never by its text; its `detail` holds the source line of the assertion and its `E` lines.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from rt.diagnostics.model import Diagnostic, Interrupted, ToolFailure, Truncated, cap_detail
from rt.diagnostics.parsers.text import first_match, found, lines, rel_path

_SUMMARY = re.compile(r"^(?P<kind>FAILED|ERROR) (?P<id>[^\s\[]+(?:\[.*?\])?)(?: - (?P<msg>.*))?$")
_PROGRESS = re.compile(r"^(?:\[gw\d+\]\s+(?:\[\s*\d+%\]\s+)?)?(?P<kind>FAILED|ERROR) (?P<id>\S+::\S+)\s*(?:\[\s*\d+%\])?$"
                       r"|^(?P<id2>\S+::\S+(?:\[.*?\])?) (?P<kind2>FAILED|ERROR)\b")
_FINAL = re.compile(r"^=*\s*(?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|deselected|warnings?|rerun)"
                    r"(?:, )?)+.* in [\d.]+(?:s| seconds)(?: \([\d:]+\))?\s*=*$"
                    r"|^=*\s*no tests ran in [\d.]+(?:s| seconds)\s*=*$")
_STARTED = re.compile(r"^=+ test session starts =+$|^collect(?:ed|ing) |^\S+\.py [.FEsxX]+")
_PLACE = re.compile(r"^(?P<file>\S+?\.py):(?P<line>\d+):(?: (?P<rest>.*))?$")
_TITLE = re.compile(r"^_{3,} (?P<title>.+?) _{3,}$")


@dataclass
class _Section:
    """One traceback section: the frames it passes through (file, line, source) and its `E` lines."""
    frames: list[tuple[str, int, str]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def parse_pytest(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """Failing tests from the short summary (or, without one, the `-v` progress lines and the section
    titles), each with the first `E ` line of its traceback section (not cut to the terminal width,
    unlike the summary) and the line of its test file where it failed."""
    text_lines = lines(output)
    text = "\n".join(text_lines)
    if re.search(r"^(?:ERROR: usage:|usage: .*pytest|INTERNALERROR>)", text, re.M):
        raise ToolFailure("pytest usage or internal error: " + first_match(text, r"^(?:ERROR|INTERNALERROR>).*"))
    sections = _sections(text_lines, root)
    entries: dict[tuple[str, str], str] = {}          # (id, kind) -> summary message, in order
    for ln in text_lines:
        m = _SUMMARY.match(ln)
        p = None if m else _PROGRESS.match(ln)
        if m or p:
            kind = (m or p)["kind"] or p["kind2"]
            test_id = (m or p)["id"] or p["id2"]
            entries.setdefault((test_id, "failed" if kind == "FAILED" else "error"), (m["msg"] or "") if m else "")
    if not entries:
        for title, found_ in sections.items():       # no summary (`-rN`): the titles say which failed
            for s in found_:
                test_id = _id_from_title(title, s)
                if test_id:
                    entries.setdefault(test_id, "")
    diags = [_diagnostic(check, root, test_id, kind, message, sections) for (test_id, kind), message in entries.items()]
    final = any(_FINAL.match(ln) for ln in text_lines)
    if re.search(r"^!+ (?:KeyboardInterrupt|.*Timeout) !+$", text, re.M):
        raise ToolFailure("pytest was interrupted before it finished: " + first_match(text, r"^!+ .* !+$"))
    stopped = re.search(r"^!+ (?:Interrupted: .*|stopping after \d+ failures?) !+$", text, re.M)
    if stopped:
        reason = "pytest stopped early: " + stopped[0].strip("! ")
        if diags:
            raise Interrupted(reason, diags)
        raise ToolFailure(reason)
    if not final and (diags or any(_STARTED.match(ln) for ln in text_lines)):
        raise Truncated("the log ends before pytest's closing summary line (`N failed, M passed in Xs`)")
    if not diags and re.search(r"no tests ran|collected 0 items", text):
        raise ToolFailure("pytest collected no tests")
    return found(diags, output, clean_run=final)


def _diagnostic(check: str, root: str | None, test_id: str, kind: str, message: str,
                sections: dict[str, list[_Section]]) -> Diagnostic:
    file = rel_path(test_id.split("::")[0], root)
    parts = test_id.split("::")[1:]
    dotted = ".".join(parts)
    names = ([dotted] if kind == "failed" else []) + [f"ERROR at setup of {dotted}", f"ERROR at teardown of {dotted}",
                                                      f"ERROR collecting {test_id}", dotted]
    line, detail = 0, ""
    for n in names:
        if sections.get(n):
            s = sections[n].pop(0)
            line = next((at for f, at, _ in reversed(s.frames) if f == file), 0)
            message = s.errors[0] if s.errors else message
            detail = _detail(s, file)
            break
    return Diagnostic(check, file, line, 0, test_id, "error", message, kind, detail)


def _detail(s: _Section, file: str) -> str:
    """The test's own failing line, the line that raised (when another), and the `E` lines."""
    own = [f for f in s.frames if f[0] == file]
    frames = ([own[-1]] if own else []) + ([s.frames[-1]] if s.frames and (not own or s.frames[-1] != own[-1]) else [])
    shown = [f"{f}:{n}: {src}" if src else f"{f}:{n}" for f, n, src in frames]
    return cap_detail(shown + [f"E {e}" for e in s.errors])


def _id_from_title(title: str, s: _Section) -> tuple[str, str] | None:
    """(node id, kind) from a section title when no summary lists the failures."""
    if title.startswith("ERROR collecting "):
        return title.removeprefix("ERROR collecting "), "error"
    kind = "error" if title.startswith("ERROR at ") else "failed"
    name = re.sub(r"^ERROR at (?:setup|teardown) of ", "", title)
    if not s.frames:
        return None
    return f"{s.frames[0][0]}::{name.replace('.', '::')}", kind


def _sections(text_lines: list[str], root: str | None) -> dict[str, list[_Section]]:
    """Traceback sections by title (`test_x`, `TestK.test_y[1]`, `ERROR collecting a.py`): the frames
    each passes through, long form (`>` source line, then `file:line: Error`) or short form (`file:line:
    in func`, then the source line); a title may repeat across files."""
    sections: dict[str, list[_Section]] = {}
    title: str | None = None
    s = _Section()
    src, want_src = "", False
    for ln in text_lines + ["=== end ==="]:
        head = _TITLE.match(ln)
        if head or re.match(r"^=+ .* =+$", ln):
            if title is not None:
                sections.setdefault(title, []).append(s)
            title, s, src, want_src = (head["title"] if head else None), _Section(), "", False
            continue
        if title is None:
            continue
        if want_src and ln.strip():
            f, n, _ = s.frames[-1]
            s.frames[-1] = (f, n, ln.strip())
            want_src = False
            continue
        place = _PLACE.match(ln)
        if place and not ln.startswith(" "):
            short = (place["rest"] or "").startswith("in ")
            s.frames.append((rel_path(place["file"], root), int(place["line"]), "" if short else src))
            src, want_src = "", short
        elif ln.startswith(">"):
            src = ln[1:].strip()
        elif ln.startswith("E ") or ln == "E":
            s.errors.append(ln[1:].strip())
    for found_ in sections.values():
        for sec in found_:
            sec.errors = [e for e in sec.errors if e]
    return sections
