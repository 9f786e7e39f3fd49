"""`rt agent "<task>"`: plan with the model, check the plan, run it in waves under an rt task, verify.

The run is an rt task like any other, through the same handlers: `rt start` (snapshot, baseline), `rt plan`
with the plan's files as the scope, `rt step` per task, `rt verify`, then `rt finish` on PASS or
`rt block` with the reason. rt never edits source files on its own; `rt agent` is the agent a user runs
to edit, and it writes only files of the scope it recorded, each atomically, and only the model's
changes. A plan of queries only starts no task: it reads and answers, and writes nothing.
"""
from __future__ import annotations

import os
from argparse import Namespace

from rt import budget, state
from rt.agent import config, executor, orchestrator, planner, prompt, router
from rt.agent.client import Client
from rt.agent.executor import Outcome
from rt.agent.planner import Step
from rt.checks import seconds
from rt.context import View
from rt.core import ExitCode, Result, RtError, StateError, UsageError, read_text, to_rel
from rt.task import commands, verify


def args_agent(p) -> None:
    p.add_argument("task", help="what to do, in words")
    p.add_argument("--endpoint", metavar="URL", help="an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1 "
                                                     "(Ollama) or http://127.0.0.1:8080/v1 (llama.cpp's server)")
    p.add_argument("--model", metavar="NAME", help="one model for every tier (else rt.toml's [agent.models])")
    p.add_argument("--context", type=int, metavar="TOKENS", help="the model's context window (default 8192)")
    p.add_argument("--jobs", type=int, metavar="N", help="executor calls at once (default 2)")
    p.add_argument("--timeout", type=seconds, metavar="S", help="seconds one call may take (default 300)")
    p.add_argument("--key-env", metavar="VAR", help="the environment variable holding the API key "
                                                    "(default OPENAI_API_KEY; none is sent when it is unset)")
    p.add_argument("--dry-run", action="store_true", help="plan and show the waves: start no task, edit nothing")
    p.add_argument("--force", action="store_true", help="set aside (block) an active task, as `rt start --force` does")


def cmd_agent(ctx, args) -> Result:
    request = state.checked_text("request", args.task)
    if not request:
        raise UsageError("the request is empty; say what to do: rt agent \"rename total to order_total\"")
    settings = config.settings(ctx.repo, args)
    budget.split(settings.context, "--context")   # refuses a window with no room for code, before any call
    if not (args.dry_run or args.force):
        current = state.active_task(ctx.store, required=False)
        if current:
            raise StateError(f"task {current['id']} is still active ({current['state']}); rt agent runs its own task: "
                             f"finish or block that one first, or pass --force to set it aside")
    caller = prompt.Caller(Client(settings.endpoint, settings.key_env, settings.timeout), settings,
                           router.Router(router.keywords(ctx.repo)))
    run = Run(ctx, settings, caller, request)
    if args.dry_run:
        return run.result("dry run: no task started, nothing edited", None, ExitCode.OK)
    return run.carry_out(args.force)


class Run:
    """One `rt agent` run: the checked plan, its waves, and what each task came to."""

    def __init__(self, ctx, settings: config.Settings, caller: prompt.Caller, request: str):
        from rt.index import index
        self.ctx, self.settings, self.caller, self.request = ctx, settings, caller, request
        self.view = View(ctx, index.load(ctx), " ".join(request.split()), [])
        self.steps = orchestrator.resolve(ctx, planner.plan(self.view, request, caller))
        self.deps = orchestrator.dependencies(self.steps)
        self.waves = orchestrator.waves(self.steps, self.deps)
        self.map = planner.repo_map(self.view)
        self.outcomes: dict[str, Outcome] = {}
        self.forms: dict[str, tuple[str, bool]] = {}   # path -> (encoding, CRLF) as read, to write back alike
        self.task: dict | None = None

    def carry_out(self, force: bool) -> Result:
        scope = orchestrator.scope(self.steps)
        if any(scope.values()):
            commands.cmd_start(self.ctx, Namespace(text=self.request, path=[], force=force, no_baseline=False))
            note = f"rt agent: {len(self.steps)} task(s) in {len(self.waves)} wave(s)"
            commands.cmd_plan(self.ctx, Namespace(note=note, **scope))
            self.task = state.active_task(self.ctx.store)
        self.outcomes = orchestrator.run(self.waves, self.deps, self.settings.jobs, self._start, self._done)
        failed = [s for s in self.steps if self.outcomes[s.id].status in ("failed", "skipped")]
        broken = any(self.outcomes[s.id].detail.startswith(orchestrator.ENDPOINT) for s in failed)
        code = ExitCode.INCOMPLETE if broken else ExitCode.FINDING if failed else ExitCode.OK
        if self.task is None:
            return self.result("queries only: no rt task was needed, nothing was written", None, code)
        if failed:
            first = self.outcomes[failed[0].id]
            reason = f"rt agent: task {failed[0].id} {first.status}: {first.detail}" + \
                     (f" (and {len(failed) - 1} more did not succeed)" if len(failed) > 1 else "")
            blocked = commands.cmd_block(self.ctx, Namespace(reason=reason))
            return self.result(blocked.text, "blocked", code)
        checked = verify.cmd_verify(self.ctx, Namespace(with_=[], timeout=None))
        summary = checked.data["summary"]
        if checked.data["verdict"] == "PASS":
            report = commands.cmd_finish(self.ctx, Namespace(incomplete=False))
            return self.result(f"rt verify: {summary}\n{report.text}", "finished", checked.code)
        blocked = commands.cmd_block(self.ctx, Namespace(reason=f"rt agent: rt verify {summary}"))
        return self.result(f"{blocked.text}\nthe verify report: {checked.data['report']}", "blocked", checked.code)

    # ------------------------------------------------------------ one task, in the run's thread

    def _start(self, step: Step):
        """The call for one task, drafted from the file as it is now and routed in plan order; a delete
        needs no call."""
        if step.action == "delete":
            return Outcome("done", f"{step.file}: deleted")
        text = self._read(step.file) if step.file and step.action != "create" else None
        memory = [f"task {d} ({self._step(d).action} {self._step(d).file}) is done: {self._step(d).what}"
                  for d in self.deps[step.id]]
        try:
            d = executor.draft(self.view, step, text, memory, self.map, self.settings.context)
            msgs, _, _ = d.messages(self.settings.context, [])
        except RtError as e:
            return Outcome("failed", f"{step.file or 'query'}: {e}")
        decision = self.caller.route(step.what, read_only=step.action == "query", chars=len(msgs[-1]["content"]))
        position = self.steps.index(step) + 1
        return lambda: executor.carry_out(d, self.caller, position, decision)

    def _step(self, sid: str) -> Step:
        return next(s for s in self.steps if s.id == sid)

    def _read(self, rel: str) -> str:
        raw = (self.ctx.repo.root / rel).read_bytes()
        text = read_text(self.ctx.repo, rel) or ""
        encoding = "utf-8" if text.encode("utf-8", "surrogateescape") == raw else "latin-1"
        self.forms[rel] = (encoding, "\r\n" in text)
        return text.replace("\r\n", "\n")

    def _done(self, results: list[tuple[Step, Outcome]]) -> None:
        """A wave's results, in plan order: write the files, record a step each, refresh the index."""
        from rt.index import index
        for step, o in results:
            if o.status == "done":
                try:
                    self._write(step, o.content)
                except (OSError, RtError) as e:
                    o.status, o.detail = "failed", f"{step.file}: could not be written: {e}"
                except UnicodeEncodeError as e:   # a lone surrogate, or a character the file's Latin-1 lacks
                    o.status, o.detail = "failed", (f"{step.file}: could not be written: the model's text holds "
                                                    f"{e.object[e.start:e.end]!a}, which {e.encoding} cannot hold")
            if self.task is not None:
                commands.cmd_step(self.ctx, Namespace(note=f"rt agent task {step.id} {o.status}: {o.detail}"))
        self.view = View(self.ctx, index.load(self.ctx), self.view.text, [])

    def _write(self, step: Step, content: str | None) -> None:
        """Apply one task's change: only to a file of the recorded scope, atomically."""
        rel = to_rel(self.ctx.repo, step.file, self.ctx.repo.root)
        if self.task is None or rel not in (state.scope_paths(self.task) or set()):
            raise StateError(f"{rel} is not in the scope rt agent recorded; not written")
        path = self.ctx.repo.root / rel
        if step.action == "delete":
            os.unlink(path)
            return
        encoding, crlf = self.forms.get(rel, ("utf-8", False))
        text = content.replace("\n", "\r\n") if crlf else content
        mode = os.stat(path).st_mode & 0o7777 if path.exists() else 0o644
        path.parent.mkdir(parents=True, exist_ok=True)
        self.ctx.store.write_bytes(path, text.encode(encoding, "surrogateescape"), mode=mode)
        self.forms[rel] = (encoding, crlf)

    # ------------------------------------------------------------ the report

    def result(self, closing: str, end: str | None, code: int) -> Result:
        data = {
            "plan": [{"id": s.id, "file": s.file, "action_type": s.action, "task": s.what, "depends_on": list(s.depends_on)}
                     for s in self.steps],
            "waves": [[s.id for s in w] for w in self.waves],
            "calls": [call_data(c) for c in sorted(self.caller.calls, key=lambda c: c.order)],
            "results": [{"id": s.id, "status": o.status, "detail": o.detail, "answer": o.answer}
                        for s in self.steps if (o := self.outcomes.get(s.id))],
            "task": self.task["id"] if self.task else None,
            "end": end,
        }
        text = report(self, data, closing)
        if self.task is not None:
            self.ctx.store.write_json(f"tasks/{self.task['id']}/agent.json", data)
            self.ctx.store.write_text(f"tasks/{self.task['id']}/agent.md", text + "\n")
        return Result(text, data, code)


def call_data(c: prompt.Call) -> dict:
    return {"who": c.who, "attempt": c.order[-1], "tier": c.tier, "reasons": list(c.reasons), "model": c.model,
            "sent": c.sent, "reported": c.reported, "answer": c.answer, "window": c.window,
            "dropped": list(c.dropped), "error": c.error}


def report(run: Run, data: dict, closing: str) -> str:
    s = run.settings
    lines = [f"rt agent: {len(run.steps)} task(s) in {len(run.waves)} wave(s); window {s.context} tokens, "
             f"jobs {s.jobs}", "plan:"]
    lines += [f"  {line}" for line in planner.show(run.steps)]
    lines.append("waves: " + "  ".join(f"{i}) {', '.join(w)}" for i, w in enumerate(data["waves"], 1)))
    lines.append("calls (tier and why; model; tokens sent, estimated and as the endpoint counted, + the answer's "
                 "reserve, of the window; what can_fit() dropped):")
    for c in data["calls"]:
        counted = f" ({c['reported']} counted)" if c["reported"] is not None else ""
        again = " (retry)" if c["attempt"] > 1 else ""
        lines.append(f"  {c['who']}{again}: {c['tier']} ({'; '.join(c['reasons'])}); {c['model']}; "
                     f"~{c['sent']}{counted} + {c['answer']} of {c['window']}; "
                     f"dropped: {'; '.join(c['dropped']) or 'nothing'}" + (f"; FAILED: {c['error']}" if c["error"] else ""))
    if data["results"]:
        lines.append("results:")
    for r in data["results"]:
        lines.append(f"  {r['id']} {r['status']}: {r['detail']}")
        lines += [f"    | {line}" for line in r["answer"].splitlines()]
    return "\n".join(lines + [closing])
