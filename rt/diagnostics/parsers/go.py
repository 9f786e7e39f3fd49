"""Go: `go build` and `go vet` (`file:line:col: message`) and `go test` in its plain, `-v` and `-json` forms.

A failing test carries only what was printed for it: the lines between its `=== RUN`/`=== CONT` and
its result under `-v` (go 1.14+ prints a test's output before its `--- FAIL:` line), or the lines
indented under its `--- FAIL:` line without `-v`, or its panic's stack. A test with no location of
its own is reported without one, never at another test's.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from rt.diagnostics.model import Diagnostic, Interrupted, ToolFailure, Truncated, cap_detail
from rt.diagnostics.parsers.text import LOCATED, found, lines, rel_path

_RESULT = re.compile(r"^(?P<indent>\s*)--- (?P<status>FAIL|PASS|SKIP|BENCH): (?P<test>\S+)")
_BENCH = re.compile(r"^(?P<test>Benchmark\S*)(?P<done>\s+\d+\s+.*)?$")    # `-bench -v`: its name, later its figures
_EVENT = re.compile(r"^=== (?P<what>RUN|CONT|NAME|PAUSE)\s+(?P<test>\S+)")
_PACKAGE = re.compile(r"^(?:(?P<ok>ok)|FAIL|\?)\s+(?P<pkg>\S+)(?:\s+(?P<rest>.*))?$")
_OUTPUT = re.compile(r"^\s+(?P<file>(?:[A-Za-z]:[\\/])?[^\s:]+\.go):(?P<line>\d+): (?P<msg>.*)$")


@dataclass
class _Test:
    name: str
    failed: bool = False
    output: list[tuple[str, int, str]] = field(default_factory=list)    # (file, line, message) it printed
    extra: list[str] = field(default_factory=list)                      # its other lines (panics)


def parse_go(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """`go vet`, `go build` and `go test` (plain, `-v`, `-json`; `go vet`'s `vet: ` prefix)."""
    text_lines = lines(_json_to_text(output))
    if any(re.match(r"^go: (?:errors parsing go\.mod|cannot find main module|go\.mod file not found)", ln)
           for ln in text_lines):
        at = next(i for i, ln in enumerate(text_lines) if ln.startswith("go: "))
        said = text_lines[at] + (" " + text_lines[at + 1] if text_lines[at].endswith(":") and at + 1 < len(text_lines) else "")
        raise ToolFailure("go could not load the module: " + said)
    diags: list[Diagnostic] = []
    tests: dict[str, _Test] = {}
    verbose = any(_EVENT.match(ln) for ln in text_lines)
    owner: _Test | None = None
    last_failed: _Test | None = None    # a test's panic follows its `--- FAIL:` line
    panic: list[str] | None = None
    clean_run = pending = False
    for ln in text_lines:
        event = _EVENT.match(ln)
        result = _RESULT.match(ln)
        pkg = _PACKAGE.match(ln) if not ln.startswith(" ") else None
        bench = _BENCH.match(ln)
        if event or bench:
            name = (event or bench)["test"]
            paused = event is not None and event["what"] == "PAUSE" or bench is not None and bench["done"]
            owner = None if paused else tests.setdefault(name, _Test(name))
            last_failed, pending = None, True
        elif result:
            t = tests.setdefault(result["test"], _Test(result["test"]))
            t.failed = t.failed or result["status"] == "FAIL"
            owner = None if verbose else t      # without -v a test's output follows its result line
            last_failed, pending = (t if result["status"] == "FAIL" else None), True
        elif pkg and (pkg["ok"] or pkg["rest"] is not None or ln.startswith("FAIL\t")):
            if pkg["ok"]:
                clean_run = True
            diags += _package_done(check, root, pkg["pkg"], tests, panic, ln)
            tests, owner, last_failed, panic, pending = {}, None, None, None, False
        elif ln.startswith("panic: ") or panic is not None and ln != "FAIL":
            if ln.startswith("panic: test timed out after"):
                raise ToolFailure(f"go test timed out: {ln.removeprefix('panic: ')}")
            panic = (panic or []) + [ln]
            if last_failed is not None:
                last_failed.extra.append(ln)
        elif (out := _OUTPUT.match(ln)) and owner is not None:
            owner.output.append((rel_path(out["file"], root), int(out["line"]), out["msg"]))
        elif (m := LOCATED.match(ln.removeprefix("vet: "))) and m["file"].endswith(".go"):
            diags.append(Diagnostic(check, rel_path(m["file"], root), int(m["line"]), int(m["col"] or 0), "",
                                    "error", m["msg"]))
        elif ln.startswith("PASS"):
            clean_run = True
    if pending and any(t.failed for t in tests.values()):
        raise Truncated("the log ends before go test's result line for the package (`FAIL\tpkg` or `ok  pkg`)")
    diags += _package_done(check, root, "", tests, panic, "") if tests else []
    unbuilt = [m[1] for ln in text_lines if (m := re.match(r"^FAIL\s+(\S+) \[(?:build|setup) failed\]", ln))]
    if unbuilt and diags:
        raise Interrupted(f"go test could not build {', '.join(unbuilt)}: its tests did not run", diags)
    return found(diags, output, clean_run)


def _package_done(check: str, root: str | None, pkg: str, tests: dict[str, _Test], panic: list[str] | None,
                  line: str) -> list[Diagnostic]:
    """A package's failing tests (leaves only: a parent fails because a subtest did), or the package's
    own failure (a panic outside any test, a setup failure) when no test failed."""
    diags = []
    failed = [t for t in tests.values() if t.failed]
    for t in failed:
        has_child = any(o.failed and o.name.startswith(t.name + "/") for o in failed)
        if has_child and not t.output and not t.extra:
            continue
        code = f"{pkg}.{t.name}" if pkg else t.name
        if t.output:
            file, at, message = t.output[-1]     # logs come first; the failing call prints last
            detail = [f"{f}:{n}: {msg}" for f, n, msg in t.output]
        elif t.extra:
            file, at = _stack_place(t.extra, t.name.split("/")[0], root)
            message, detail = t.extra[0], t.extra[:2]
        else:
            file, at, message, detail = "", 0, "test failed (it printed no message)", []
        diags.append(Diagnostic(check, file, at, 0, code, "error", message, "failed", cap_detail(detail)))
    if not failed and line.startswith("FAIL") and pkg:
        if panic:
            file, at = _stack_place(panic, pkg.rsplit("/", 1)[-1], root)
            diags.append(Diagnostic(check, file, at, 0, pkg, "error", panic[0], "error", cap_detail(panic[:2])))
        elif "[build failed]" not in line:
            diags.append(Diagnostic(check, "", 0, 0, pkg, "error", line.strip(), "error"))
    return diags


def _stack_place(stack: list[str], func: str, root: str | None) -> tuple[str, int]:
    """The file and line of the first stack frame in `func` (a test, or a package's own code)."""
    for i, ln in enumerate(stack[:-1]):
        if re.search(rf"[./]{re.escape(func)}[.(]", ln):
            at = re.match(r"^\s+(\S+\.go):(\d+)", stack[i + 1])
            if at:
                return rel_path(at[1], root), int(at[2])
    return "", 0


def _json_to_text(output: str) -> str:
    """`go test -json` turned back into the text it carries (the `-v` form); other lines kept as they
    are (build errors go to stderr as text). Packages run in parallel and their events interleave, so
    each package's output is held until its own result event and then written as one block, as plain
    `go test` prints it. Events of no package (go 1.24's build output) are written as they come."""
    if '"Action"' not in output:
        return output
    out: list[str] = []
    held: dict[str, list[str]] = {}
    for ln in output.splitlines(keepends=True):
        s = ln.strip()
        if s.startswith("{") and '"Action"' in s:
            try:
                event = json.loads(s)
            except ValueError:
                raise Truncated("a go test -json event line is cut off") from None
            if not isinstance(event, dict):
                continue
            pkg = event.get("Package")
            if isinstance(event.get("Output"), str):
                (held.setdefault(pkg, []) if isinstance(pkg, str) else out).append(event["Output"])
            if isinstance(pkg, str) and not event.get("Test") and event.get("Action") in ("pass", "fail", "skip"):
                out += held.pop(pkg, [])
        else:
            out.append(ln)
    for block in held.values():     # a log cut before a package's result: its lines as they came
        out += block
    return "".join(out)
