"""JUnit XML, as pytest `--junitxml`, jest and vitest junit reporters, go-junit-report, cargo nextest
and linters (ruff, eslint, mypy) write it.

A failing test case is a test identified by `classname::name` and kind (failed or error), located where
its own failure text points; a linter's case (`org.ruff.F401`, `org.eslint.semi`) is a finding of that
rule; mypy's one case holding all its messages is read as mypy output, and go-junit-report's "Build
error" case as the compile errors it holds.
"""
from __future__ import annotations

import re

from rt.diagnostics.model import Diagnostic, ToolFailure, Truncated, cap_detail
from rt.diagnostics.parsers.text import found, rel_path

_START = re.compile(r"<testsuites\b|<testsuite\b")
_PLACE = re.compile(r"(?P<file>(?:[A-Za-z]:[\\/])?[\w./\\@+-]+\.\w+):(?P<line>\d+)(?::(?P<col>\d+))?")


def documents(output: str) -> list[str]:
    """Each JUnit document in the log (a log may hold several, or lines around one)."""
    docs, pos = [], 0
    while (m := _START.search(output, pos)) is not None:
        tag = "testsuites" if m[0] == "<testsuites" else "testsuite"
        end = output.find(f"</{tag}>", m.start())
        if end < 0:
            if re.search(r"/>\s*$", output[m.start():].split("\n", 1)[0]):    # <testsuite ... />
                docs.append(output[m.start():].split("\n", 1)[0].strip())
                pos = m.end()
                continue
            raise Truncated(f"the JUnit XML ends before its closing </{tag}>")
        docs.append(output[m.start():end + len(tag) + 3])
        pos = end + len(tag) + 3
    return docs


def parse_junit(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """Every failed or errored test case of the JUnit documents in the log."""
    if "<!ENTITY" in output:
        raise ToolFailure("the JUnit XML declares entities, which rt does not expand")
    docs = documents(output)
    if not docs:
        return None
    import xml.etree.ElementTree as ET    # here, not at the top: hooks import the parsers and rarely read XML
    diags: list[Diagnostic] = []
    for doc in docs:
        try:
            tree = ET.fromstring(doc)
        except ET.ParseError as e:
            raise Truncated(f"the JUnit XML cannot be read ({e})") from None
        suites = [tree] if tree.tag == "testsuite" else tree.iter("testsuite")
        for suite in suites:
            cases = [d for case in suite.iter("testcase") for d in _case(check, root, suite, case)]
            diags += [d for d in cases if not _parent_of_failed(d, cases)]
    return found(diags, output, clean_run=True)


def _parent_of_failed(d: Diagnostic, cases: list[Diagnostic]) -> bool:
    """A go test that failed only because a subtest did (`TestX` beside `TestX/sub`), with no place of its own."""
    return bool(d.kind) and not d.file and any(o.kind and o.code.startswith(d.code + "/") for o in cases)


def _case(check: str, root: str | None, suite, case) -> list[Diagnostic]:
    """The findings of one `<testcase>` element of a `<testsuite>` (XML elements: this module imports no
    XML or typing module at its top, since every check's run that finds nothing tries this form)."""
    bad = [(el, "failed" if el.tag == "failure" else "error") for el in case if el.tag in ("failure", "error")]
    if not bad:
        return []
    el, kind = bad[0]
    name, classname = case.get("name") or "", case.get("classname") or ""
    message = el.get("message") or ""
    body = (el.text or "").strip()
    rule = re.match(r"^org\.\w+\.(?P<rule>.+)$", name)
    if suite.get("name") == "mypy" or classname == "mypy":
        from rt.diagnostics.parsers.python import parse_mypy
        return (parse_mypy(body, check, root) or []) if body else []
    if message == "Build error":       # go-junit-report: a package's compile errors in one case
        from rt.diagnostics.parsers.go import parse_go
        return [d for d in parse_go(body, check, root) or [] if d.file]
    if rule:       # eslint names a message without a rule `org.eslint.unknown`
        return [_lint_case(check, root, suite, case, "" if name == "org.eslint.unknown" else rule["rule"], message,
                           body)]
    package_failed = name == "Failure" and message == "Runtime error"     # go-junit-report: a package's panic
    code = classname if package_failed else f"{classname}::{name}" if classname else name
    known = rel_path(case.get("file") or "", root)
    if suite.get("name") == "pytest":
        code, known = _pytest_id(classname, name, known)
    file, line = _where(known, body + "\n" + message, root)
    text = next((ln.strip() for ln in message.splitlines() if ln.strip()), "") or next(
        (ln.strip() for ln in body.splitlines() if ln.strip()), "")
    return [Diagnostic(check, file, line, 0, code, "error", text, kind, _detail(body, message))]


def _lint_case(check: str, root: str | None, suite, case, rule: str, message: str, body: str) -> Diagnostic:
    """A linter's finding written as a test case: the file is the suite's name (the case's classname is
    it without the extension), the line and column from the attributes or `line N, col N,` in the text."""
    classname, suite_name = case.get("classname") or "", suite.get("name") or ""
    file = suite_name if suite_name.startswith(classname) and suite_name != classname else classname
    at = re.match(r"^line (\d+), col (\d+), (?:(Error|Warning) - )?", body)
    line = int(case.get("line") or (at[1] if at else 0))
    col = int(case.get("column") or (at[2] if at else 0))
    text = message or (body[at.end():] if at else body)
    text = re.sub(r"\s*\(" + re.escape(rule) + r"\)$", "", text.strip()) if rule else text.strip()
    severity = "warning" if (at and at[3] == "Warning") or _prop(case, "severity") == "warning" else "error"
    return Diagnostic(check, rel_path(file, root), line, col, rule, severity, text)


def _prop(case, key: str) -> str:
    return next((p.get("value") or "" for p in case.iter("property") if p.get("name") == key), "")


def _pytest_id(classname: str, name: str, file: str) -> tuple[str, str]:
    """pytest's node id and test file from its JUnit names: `classname="tests.test_m.TestK"
    name="test_p[2]"` is `tests/test_m.py::TestK::test_p[2]`; a collection error (`classname=""
    name="tests.test_b"`) is `tests/test_b.py`. The module path ends before the first capitalised part
    (a class), unless the case's `file` attribute says where."""
    if not classname:
        path = file or name.replace(".", "/") + ".py"
        return path, path
    parts = classname.split(".")
    cut = next((i for i, p in enumerate(parts) if p[:1].isupper()), len(parts))
    path = file or "/".join(parts[:cut]) + ".py"
    return "::".join([path, *parts[cut:], name]), path


def _where(known: str, text: str, root: str | None) -> tuple[str, int]:
    """The test's file and line as its own failure text gives them: the last place in its known file (the
    `file` attribute, or pytest's module), else the first place in a test file of the repository, else
    the first place in the repository; the known file alone when no place is printed."""
    places = [(f, int(m["line"])) for m in _PLACE.finditer(text)
              if not (f := rel_path(m["file"], root)).startswith(("../", "/")) and "site-packages/" not in f]
    if known:
        return next((p for p in reversed(places) if p[0] == known), (known, 0))
    return next((p for p in places if re.search(r"test", p[0].rsplit("/", 1)[-1], re.I)), places[0] if places else ("", 0))


def _detail(body: str, message: str) -> str:
    """pytest's `>` and `E` lines when the text has them, else its first lines."""
    text = body or message
    marked = [ln.strip() for ln in text.splitlines() if ln.startswith((">", "E "))]
    kept = marked or [ln.strip() for ln in text.splitlines() if ln.strip()][:6]
    return cap_detail(kept)
