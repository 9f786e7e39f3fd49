"""The orchestrator, plain code: checks a plan against the disk, builds its dependency graph and runs it in
waves.

Every path the plan names must exist (a `create` must not, unless an earlier task deletes it): a path
that does not is an error naming it and the closest real ones, never a silent switch to a near match
(the seed's stale-map bug). Two tasks on one file run one after the other, in plan order. A wave is
every task whose dependencies are done; up to `jobs` of a wave's calls run at once, and the results
are taken in plan order whatever order the calls end in. A task that fails stops its dependents.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import replace

from rt.agent.client import EndpointError
from rt.agent.executor import Outcome
from rt.agent.planner import Step
from rt.core import PathError, RtError, UsageError, closest_paths, list_files, read_text, to_rel


def resolve(ctx, steps: list[Step]) -> list[Step]:
    """The steps with repository-relative paths, each checked against the disk as the plan leaves it."""
    files = None
    exists: dict[str, bool] = {}
    out = []
    for s in steps:
        if not s.file:
            out.append(s)
            continue
        rel = to_rel(ctx.repo, s.file, ctx.repo.root)
        path = ctx.repo.root / rel
        if rel not in exists:
            exists[rel] = os.path.lexists(path)
        there = exists[rel]
        if there and (path.is_symlink() or not path.is_file()):
            raise PathError(f"plan task {s.id}: {s.file}: not a regular file; rt agent only edits regular files")
        if s.action == "create" and there:
            raise PathError(f"plan task {s.id}: {s.file}: already exists, so it cannot be created; nothing was changed")
        if s.action != "create" and not there:
            files = files if files is not None else list_files(ctx.repo)
            near = closest_paths(rel, files)
            hint = f"closest existing: {', '.join(near)}" if near else "no similar path exists"
            raise PathError(f"plan task {s.id}: {s.file}: no such file ({hint}); the plan was not followed and "
                            f"nothing was changed (name the file as it is now, or refresh what the request says)")
        if there and s.action != "create" and read_text(ctx.repo, rel) is None:
            raise PathError(f"plan task {s.id}: {s.file}: binary, too large or unreadable; rt agent only edits text files")
        exists[rel] = s.action != "delete"
        out.append(replace(s, file=rel))
    return out


def scope(steps: list[Step]) -> dict[str, list[str]]:
    """The plan's files by what the run does to them in all, for `rt plan`: a file there before is edited or
    deleted, a new one created; queries change nothing."""
    first: dict[str, str] = {}
    last: dict[str, str] = {}
    for s in steps:
        if s.action != "query":
            first.setdefault(s.file, s.action)
            last[s.file] = s.action
    kinds = {f: ("delete" if last[f] == "delete" else "edit") if first[f] != "create" else
             ("" if last[f] == "delete" else "create") for f in first}
    return {kind: sorted(f for f, k in kinds.items() if k == kind) for kind in ("edit", "create", "delete")}


def dependencies(steps: list[Step]) -> dict[str, tuple[str, ...]]:
    """Task id -> the ids it waits for: those it names, and the task before it on the same file."""
    ids = {s.id for s in steps}
    last_on: dict[str, str] = {}
    out = {}
    for s in steps:
        unknown = [d for d in s.depends_on if d not in ids]
        if unknown:
            raise UsageError(f"plan task {s.id} depends on {', '.join(unknown)}, which the plan does not have")
        deps = list(dict.fromkeys(s.depends_on))
        if s.file and s.file in last_on and last_on[s.file] not in deps:
            deps.append(last_on[s.file])
        if s.file:
            last_on[s.file] = s.id
        out[s.id] = tuple(deps)
    return out


def waves(steps: list[Step], deps: dict[str, tuple[str, ...]]) -> list[list[Step]]:
    """The steps by wave: a step's wave is one past the latest of its dependencies'; plan order in each."""
    level: dict[str, int] = {}
    visiting: set[str] = set()
    for s in steps:   # depth first with a stack of its own: a chain of a thousand steps is no recursion limit
        stack = [s.id]
        while stack:
            sid = stack[-1]
            if sid in level:
                stack.pop()
                continue
            todo = [d for d in deps[sid] if d not in level]
            if not todo:
                level[sid] = 1 + max((level[d] for d in deps[sid]), default=-1)
                visiting.discard(sid)
                stack.pop()
                continue
            if sid in visiting or any(d in visiting for d in todo):
                raise UsageError(f"plan tasks depend on each other in a circle (through task "
                                 f"{next((d for d in todo if d in visiting), sid)}); nothing was changed")
            visiting.add(sid)
            stack += todo
    out: list[list[Step]] = [[] for _ in range(max(level.values()) + 1)] if level else []
    for s in steps:
        out[level[s.id]].append(s)
    return out


def run(plan: list[list[Step]], deps: dict[str, tuple[str, ...]], jobs: int,
        start: Callable[[Step], Callable[[], Outcome] | Outcome],
        done: Callable[[list[tuple[Step, Outcome]]], None]) -> dict[str, Outcome]:
    """Run the waves. `start(step)`, in plan order in this thread, gives the call to make (or an outcome
    at once); the calls of a wave run `jobs` at a time; `done(results)` gets each wave's results in plan
    order, in this thread, before the next wave starts. An endpoint failure ends the run after its wave."""
    outcomes: dict[str, Outcome] = {}
    broken = ""
    slots = threading.BoundedSemaphore(jobs)
    for wave in plan:
        pending: list[tuple[Step, object]] = []
        for s in wave:
            failed = [d for d in deps[s.id] if outcomes[d].status not in ("done", "answered")]
            if broken:
                pending.append((s, Outcome("skipped", f"not run: the endpoint failed ({broken})")))
            elif failed:
                pending.append((s, Outcome("skipped", f"not run: it depends on task {', '.join(failed)}, "
                                                      f"which did not succeed")))
            else:
                pending.append((s, start(s)))
        calls = [(s, _Call(job, slots) if callable(job) else job) for s, job in pending]
        results = [(s, c if isinstance(c, Outcome) else c.outcome()) for s, c in calls]
        for s, o in results:
            outcomes[s.id] = o
            if o.status == "failed" and o.detail.startswith(ENDPOINT):
                broken = broken or o.detail[len(ENDPOINT):]
        done(results)
    return outcomes


class _Call(threading.Thread):
    """One call, started once one of the `jobs` slots is free, in a daemon thread: a pool's threads are joined
    when it closes and at exit, so Ctrl-C or SIGTERM would wait out a call the endpoint never answers."""

    def __init__(self, job: Callable[[], Outcome], slots: threading.BoundedSemaphore):
        super().__init__(daemon=True)
        self.job, self.slots = job, slots
        self.result: Outcome | BaseException | None = None
        slots.acquire()
        self.start()

    def run(self) -> None:
        try:
            self.result = _guarded(self.job)
        except BaseException as e:   # a bug in rt: raised again in the run's thread, as a pool's future would
            self.result = e
        finally:
            self.slots.release()

    def outcome(self) -> Outcome:
        self.join()
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result


ENDPOINT = "the endpoint failed: "


def _guarded(job: Callable[[], Outcome]) -> Outcome:
    """A call's outcome; the endpoint's failure is the task's failure, and ends the run after this wave."""
    try:
        return job()
    except EndpointError as e:
        return Outcome("failed", f"{ENDPOINT}{e}")
    except RtError as e:
        return Outcome("failed", str(e))
