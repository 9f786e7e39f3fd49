"""The final report `rt finish` writes: what was measured, what was not, and what a person still has to check.

It is short (REPORT_CHARS at most) and byte-stable. Measured facts and the agent's own claims are kept
apart, and anything that weakens the verdict (finished unverified, files changed after the last
verify) comes first.
"""
from __future__ import annotations

from rt.task.changes import format_change, task_changes
from rt.checks import detect
from rt.core import shown
from rt.snapshot import fingerprint, scan
from rt.task.verify import scope_mismatch, task_dir

REPORT_CHARS = 1500
BUDGETS = ((8, 5, 160), (5, 3, 100), (3, 2, 60), (1, 1, 40))
"""(files, claims, characters per claim) shown, tried in turn until the report fits REPORT_CHARS."""


def _listed(items: list[str], shown: int) -> str:
    more = f"; +{len(items) - shown} more" if len(items) > shown else ""
    return "; ".join(items[:shown]) + more


def build_report(ctx, task: dict) -> str:
    store = ctx.store
    record = store.read_json(f"{task_dir(task)}/verify.json")
    now = scan(ctx.repo, store).files
    found = task_changes(ctx, task, now=now)
    checks = detect(ctx.repo)
    last = task.get("verify")
    stale = bool(last) and last.get("fingerprint") != fingerprint(now)
    from rt.session.usage import effort_line
    effort = effort_line(store, task)
    for budget in BUDGETS:
        text = _compose(task, record, found, checks, stale, effort, *budget)
        if len(text) <= REPORT_CHARS:
            return text
    tail = f"\n... (cut; the full verify report is .rt/{task_dir(task)}/verify.md)"
    return text[:REPORT_CHARS - len(tail)].rsplit("\n", 1)[0] + tail


def _compose(task: dict, record: dict | None, found, checks, stale: bool, effort: str, files_shown: int,
             claims_shown: int, claim_chars: int) -> str:
    last = task.get("verify")
    outside, undone = scope_mismatch(task, found)
    lines = ["# report", ""]   # the task's text and id are the session's already: not repeated
    if task.get("incomplete"):
        was = f"last verify {last['summary']}" if last else "rt verify was never run"
        lines.append(f"NOT VERIFIED: finished with --incomplete ({was}).")
    if stale:
        lines.append("STALE: files changed after the last verify; its verdict does not cover them.")
    lines.append(f"verdict: {last['verdict'] if last else 'none (never verified)'}")
    ran = [c for c in (record or {}).get("checks", []) if c["status"] != "could_not_run"]
    lines.append("checks run: " + (", ".join(
        f"{c['name']} {c['status'].replace('_', ' ')}" + (f" ({c['new']} new)" if c["new"] else "")
        + (f" ({c['flaky']} flaky, not counted)" if c.get("flaky") else "") for c in ran)
        or "none"))
    not_run = [f"{c['name']} (could not run)" for c in (record or {}).get("checks", []) if c["status"] == "could_not_run"]
    not_run += [f"{n['name']} ({n['reason']})" for n in (record or {}).get("not_run", [])]
    if record is None:
        not_run = [f"{c.name} (rt verify never ran)" for c in checks]
    not_run += [f"{k} (none configured)" for k in (record or {}).get("missing_kinds", [])]
    lines.append("checks not run: " + (", ".join(not_run) or "none"))
    lines.append(effort)
    lines.append(f"files changed ({len(found)}): " + (_listed([format_change(c) for c in found], files_shown) or "none"))
    if task.get("scope") is None:
        lines.append("scope: no plan was recorded")
    else:
        bits = ([f"outside the plan: {', '.join(map(shown, outside))}"] if outside else []) + \
               ([f"planned, not done: {', '.join(map(shown, undone))}"] if undone else [])
        lines.append("scope: " + ("; ".join(bits) or "as planned"))
    claims = task.get("claims", [])
    if claims:
        lines.append("unverified claims (the agent's word; rt did not measure these):")
        lines += [f"- {_cut(c['text'], claim_chars)}" for c in claims[:claims_shown]]
        if len(claims) > claims_shown:
            lines.append(f"- +{len(claims) - claims_shown} more (`rt status --json`)")
    lines.append("a person still has to check:")
    lines += [f"- {item}" for item in _to_check(task, record, found, checks, stale, files_shown)]
    return "\n".join(lines)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _to_check(task: dict, record: dict | None, found, checks, stale: bool, files_shown: int) -> list[str]:
    """What no measurement covered, so a person must look at it."""
    items = ["the diff itself (`rt review`): checks find known kinds of error, not wrong behaviour"]
    if task.get("claims"):
        items.append(f"the {len(task['claims'])} claim(s) above")
    if record is None or record["verdict"] != "PASS" or stale:
        items.append("whatever `rt verify` would have shown: run it, or check by hand")
    blind = [c["name"] for c in (record or {}).get("checks", []) if c["status"] == "could_not_run"]
    if blind:
        items.append(f"what {', '.join(blind)} would have found (could not run)")
    if record and "test" in record.get("missing_kinds", []):
        items.append("behaviour: no test suite is configured")
    uncovered = [shown(c.path) for c in found if c.status != "deleted" and not any(k.applies_to(c.path) for k in checks)]
    if uncovered:
        items.append(f"files no check covers: {_listed(uncovered, files_shown)}")
    return items


def write_report(ctx, task: dict) -> str:
    text = build_report(ctx, task)
    ctx.store.write_text(f"{task_dir(task)}/report.md", text + "\n")
    return text
