"""SARIF 2.1 (eslint, ruff, semgrep, CodeQL and most linters can write it), and CI annotation lines:
GitHub Actions `::error file=...,line=...::message` and Azure Pipelines `##vso[task.logissue ...]`."""
from __future__ import annotations

import re
from urllib.parse import unquote

from rt.diagnostics.model import Diagnostic, Truncated
from rt.diagnostics.parsers.text import LOCATED, clean, found, json_value, num, read_json, rel_path

_LEVEL = {"error": "error", "warning": "warning", "note": "info", "none": "info"}


def parse_sarif(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """Each result of each run at its first location; suppressed, absent and passing results left out."""
    data = json_value(output, lambda v: isinstance(v, dict) and isinstance(v.get("runs"), list), "{")
    if data is None:
        if re.search(r'"\$schema"\s*:\s*"[^"]*sarif|"version"\s*:\s*"2\.1\.0"', output):
            raise Truncated("the SARIF report ends before its closing brace")
        return None
    diags = read_json(_sarif_report, data, check, root)
    return None if diags is None else found(diags, output, clean_run=True)


def _sarif_report(data: dict, check: str, root: str | None) -> list[Diagnostic]:
    diags = []
    for run in data["runs"]:
        bases = {k: (v.get("uri") or "") for k, v in (run.get("originalUriBaseIds") or {}).items()}
        rules = (run.get("tool") or {}).get("driver", {}).get("rules") or []
        notes = [n | {"ruleId": ""}          # a notification's descriptor names no rule of the code
                 for inv in run.get("invocations") or [] for key in ("toolConfigurationNotifications",
                                                                     "toolExecutionNotifications")
                 for n in inv.get(key) or [] if n.get("locations") and n.get("level") in ("error", "warning")]
        for r in (run.get("results") or []) + notes:      # eslint reports parse errors as notifications
            if r.get("suppressions") or r.get("baselineState") == "absent" or r.get("kind") not in (None, "fail",
                                                                                                       "open", "review"):
                continue
            rule = r.get("ruleId") or (r.get("rule") or {}).get("id") or ""
            if not rule and isinstance(r.get("ruleIndex"), int) and r["ruleIndex"] < len(rules):
                rule = rules[r["ruleIndex"]].get("id") or ""
            phys = ((r.get("locations") or [{}])[0] or {}).get("physicalLocation") or {}
            art, region = phys.get("artifactLocation") or {}, phys.get("region") or {}
            uri = unquote(art.get("uri") or "")
            if art.get("uriBaseId") in bases and not re.match(r"^\w+://|^/", uri):
                uri = bases[art["uriBaseId"]] + uri
            text = (r.get("message") or {}).get("text") or ""
            diags.append(Diagnostic(check, rel_path(unquote(uri), root), num(region.get("startLine")),
                                    num(region.get("startColumn")), rule, _LEVEL.get(r.get("level"), "warning"),
                                    text.split("\n")[0]))
    return diags


# ---------------------------------------------------------------- CI annotation lines

_GITHUB = re.compile(r"^::(?P<sev>error|warning|notice)(?: (?P<props>[^:]*(?::(?!:)[^:]*)*))?::(?P<msg>.*)$")
_AZURE = re.compile(r"^##vso\[task\.logissue (?P<props>[^\]]*)\](?P<msg>.*)$")
_RENDERED = re.compile(r"^##\[(?P<sev>error|warning|notice)\](?P<msg>.*)$")
_SEVERITY = {"error": "error", "warning": "warning", "notice": "info"}


def _unescape(value: str) -> str:
    return value.replace("%0D", "").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


def parse_annotations(output: str, check: str, root: str | None) -> list[Diagnostic] | None:
    """GitHub Actions workflow commands (`::error file=F,line=N,col=N,title=T::message`, and the
    `##[error]message` a downloaded log shows), and Azure's `##vso[task.logissue ...]message`. The code
    is the title's (`ruff (F401)` gives F401) or the message's leading `file:line:col: CODE`."""
    diags = []
    for ln in clean(output).split("\n"):
        ln = ln.strip()
        m = _GITHUB.match(ln)
        a = None if m else _AZURE.match(ln)
        r = None if m or a else _RENDERED.match(ln)
        if m:
            props = dict(p.split("=", 1) for p in (m["props"] or "").split(",") if "=" in p)
            props = {k.strip().lower(): _unescape(v) for k, v in props.items()}
            sev, file, line, col = m["sev"], props.get("file", ""), props.get("line"), props.get("col")
            title = props.get("title", "")
        elif a:
            props = {k.strip().lower(): v for k, v in (p.split("=", 1) for p in a["props"].split(";") if "=" in p)}
            sev = "warning" if props.get("type") == "warning" else "error"
            file, line, col = props.get("sourcepath", ""), props.get("linenumber"), props.get("columnnumber")
            title = props.get("code", "")
        elif r:
            sev, file, line, col, title = r["sev"], "", None, None, ""
        else:
            continue
        message = _unescape((m or a or r)["msg"]).split("\n")[0].strip()
        at = LOCATED.match(message)
        if at:                                     # ruff: `file:line:col: CODE message` as the message
            file, line, col = file or at["file"], line or at["line"], col or at["col"]
            message = at["msg"]
        code = _code(title, message)
        if code and message.startswith(code):
            message = message[len(code):].lstrip(": ").strip()
        diags.append(Diagnostic(check, rel_path(file, root), num(line), num(col), code, _SEVERITY[sev], message))
    return found(diags, output)


def _code(title: str, message: str) -> str:
    """A rule code from an annotation's title (`ruff (F401)`, `C0301`, `no-unused-vars`) or, failing
    that, from the start of its message (`F401 ...`)."""
    inner = re.search(r"\(([^()\s]+)\)$", title)
    if inner:
        return inner[1]
    if title and " " not in title.strip():
        return title.strip()
    lead = re.match(r"^([A-Z]+\d+|[a-z]+(?:-[a-z]+)+)\b", message)
    return lead[1] if lead else ""
