"""The planner: a map of the repository (300-500 tokens) and the request in, a JSON task list out.

The map is the manifest's folder lines (`context.section_folders`) and the file paths, those the
request's words rank highest first (`pack.rank`), cut to MAP_TOKENS: the planner names files, so it
must see their real paths. An answer that is not the JSON asked for gets one repair round with the
error, then the run stops with that error and nothing changed.
"""
from __future__ import annotations

import json
from dataclasses import dataclass

from rt import budget
from rt.agent import prompt
from rt.agent.client import EndpointError
from rt.context import View, section_folders

MAP_TOKENS = 500
FOLDER_CHARS = 1200
"""The folder lines take at most this many characters (about 300 tokens); file paths fill the rest."""

ACTIONS = ("edit", "create", "delete", "query")

SYSTEM = """You plan changes to a code repository for a coding agent that edits one file per step.
You see a map of the repository and the user's request. Answer with JSON only, no prose, in this form:
{"tasks": [{"id": 1, "file": "src/app.py", "action_type": "edit", "task": "what to do in this file", "depends_on": []}]}
Rules:
- "file" is one path exactly as the map spells it; one task per file and change.
- "action_type": "edit" changes an existing file, "create" makes a new file, "delete" removes a file,
  "query" answers a question about a file without changing anything.
- A question (how many, where, what does, why) is a "query", never an edit.
- "task" says exactly what to do in that file alone: the names, the new names, the behaviour.
- "depends_on" lists the ids of the tasks that must be done first (callers after the function they call)."""


@dataclass(frozen=True)
class Step:
    id: str
    file: str
    action: str
    what: str
    depends_on: tuple[str, ...]


class PlanError(Exception):
    """The planner's answer is not a usable plan; the message says why, for the repair round."""


def repo_map(view: View) -> str:
    """The planner's map: folder lines, then file paths (the request's best matches first), in MAP_TOKENS."""
    folders = "\n".join(section_folders(view, FOLDER_CHARS)) + "\n\n"
    ranked = [f.path for f in view.ranking.files[:10]] if view.text else []
    paths = ranked + sorted(set(view.paths) - set(ranked))
    head = "## Files (the request's best matches first)\n"
    room = MAP_TOKENS - budget.estimate(folders + head) - 12
    listed = budget.cut_to("".join(f"{p}\n" for p in paths), room)
    left = len(paths) - listed.count("\n")
    return folders + head + listed + (f"... and {left} more files\n" if left else "")


def _messages(request: str, repo: str, notes: list[str]) -> list[dict]:
    user = f"## Request\n{request}\n\n"
    if notes:
        user += "## Notes\n" + "".join(f"- {n}\n" for n in notes) + "\n"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user + repo}]


def plan(view: View, request: str, caller: prompt.Caller) -> list[Step]:
    """The plan for `request`: one call, and one repair round when its answer is not a usable plan."""
    decision = caller.route(request)
    repo = repo_map(view)
    notes: list[str] = []
    for attempt in (1, 2):
        fixed = "".join(m["content"] for m in _messages(request, "## Notes\n", []))
        room = prompt.room(caller.window, fixed, code=budget.estimate(repo), memory=notes, folders="")
        msgs = prompt.within(caller.window, room,
                             lambda limit: _messages(request, budget.cut_to(repo, limit), room.memory))
        answer = caller.ask("planner", ("planner", 0, attempt), decision, msgs, room)
        try:
            return parse(answer)
        except PlanError as e:
            error = e
            notes = [f"your previous answer could not be used: {e}. Answer with the JSON object only."]
    raise EndpointError(f"the planner's answer was not a usable plan, also after one repair round ({error}); "
                        f"nothing was changed")


MAX_STEPS = 200
"""The most tasks a plan may hold: each is at least one model call (a plan of 10,000 ran for minutes)."""


def parse(answer: str) -> list[Step]:
    """The steps of a planner's answer, in its order; PlanError says what is wrong."""
    text = answer.strip()
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise PlanError("no JSON object in the answer")
    try:
        data, _ = json.JSONDecoder().raw_decode(text[min(starts):])
    except ValueError as e:
        raise PlanError(f"invalid JSON ({e})") from None
    except RecursionError:
        raise PlanError("invalid JSON (nested deeper than a plan is)") from None
    tasks = data.get("tasks") if isinstance(data, dict) else data
    if not isinstance(tasks, list) or not tasks:
        raise PlanError('the JSON has no non-empty "tasks" list')
    if len(tasks) > MAX_STEPS:
        raise PlanError(f"{len(tasks)} tasks, more than {MAX_STEPS}: plan the change in fewer, larger steps")
    steps: list[Step] = []
    for n, t in enumerate(tasks, 1):
        if not isinstance(t, dict):
            raise PlanError(f"task {n} is not an object")
        sid = str(t.get("id", n)).strip()
        action = str(t.get("action_type", "")).strip().lower()
        what = t.get("task")
        file = t.get("file") or ""
        deps = t.get("depends_on") or []
        if action not in ACTIONS:
            raise PlanError(f"task {sid}: action_type must be one of {', '.join(ACTIONS)}, not {action!r}")
        if not isinstance(what, str) or not what.strip():
            raise PlanError(f'task {sid}: "task" must say what to do')
        if not isinstance(file, str) or (not file.strip() and action != "query"):
            raise PlanError(f'task {sid}: "file" must name the file to {action}')
        if file.strip().endswith("/") or any(c < " " or c == "\x7f" for c in file):
            raise PlanError(f'task {sid}: "file" must name a file, without a control character ({file.strip()!r})')
        if not isinstance(deps, list):
            raise PlanError(f'task {sid}: "depends_on" must be a list of task ids')
        if any(s.id == sid for s in steps):
            raise PlanError(f"two tasks have the id {sid}")
        steps.append(Step(sid, file.strip(), action, " ".join(what.split()), tuple(str(d).strip() for d in deps)))
    return steps


def show(steps: list[Step]) -> list[str]:
    """The plan as lines for the report, in its order."""
    return [f"{s.id} {s.action} {s.file or '(no file)'}: {s.what}"
            + (f" (after {', '.join(s.depends_on)})" if s.depends_on else "") for s in steps]
