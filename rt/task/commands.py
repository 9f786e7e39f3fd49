"""Task commands: start, status, plan, scope, step, block, finish, tasks, repair.

Each one that moves a task does so through `state.move`, under the store lock.
"""
from __future__ import annotations

import os

from rt import state
from rt.core import (PathError, Result, StateError, StoreError, UsageError, closest_paths, counted, git_index,
                     list_files, shown, to_rel)
from rt.snapshot import blob_id, current_bytes, hash_path, scan

def describe(task: dict) -> str:
    """Where the task stands, short enough to paste into a fresh session; byte-stable."""
    lines = [f"task {task['id']}: {state.line(task['text'])}", f"state: {task['state']}"]
    if task.get("scope"):
        lines.append(scope_line(task))
    if task.get("paths"):
        lines.append("pinned: " + ", ".join(task["paths"]))
    if task["steps"]:
        lines.append(f"steps: {len(task['steps'])} (last: {state.line(task['steps'][-1]['note'], 'note', 200)})")
    if task.get("verify"):
        v = task["verify"]
        lines.append(f"last verify: {v['verdict']}" + (f" ({v['summary']})" if v.get("summary") else ""))
    if task.get("block_reason"):
        lines.append(f"blocked: {state.line(task['block_reason'], 'reason', 200)}")
    lines.append(f"next: {state.NEXT_STEP[task['state']]}")
    return "\n".join(lines)


def scope_line(task: dict) -> str:
    """The approved scope in one line: what `rt plan` and `rt scope` answer (the task's text is the
    session's already, so it is not repeated)."""
    return "scope: " + ("; ".join(f"{k} {state.listing(list(map(shown, v)))}" for k, v in (task.get("scope") or {}).items() if v)
                        or "empty")


def public(task: dict) -> dict:
    """A task for `--json`: everything but the times."""
    return {k: v for k, v in task.items() if k not in ("created_at", "updated_at", "history", "schema")} | {
        "history": [{"from": h["from"], "to": h["to"], "note": h["note"]} for h in task["history"]],
        "next": state.NEXT_STEP[task["state"]],
    }


# ---------------------------------------------------------------- start

def args_start(p) -> None:
    p.add_argument("text", help="what the task is, in words")
    p.add_argument("--path", action="append", default=[], metavar="P", help="pin a file or folder to the task (repeatable)")
    p.add_argument("--force", action="store_true", help="set aside (block) the active task and start this one")
    p.add_argument("--no-baseline", action="store_true", help="do not run the project's checks now (`rt baseline` later)")


def cmd_start(ctx, args) -> Result:
    text = state.checked_text("task text", args.text)
    if not text:
        raise UsageError("the task text is empty; say what the task is: rt start \"fix the login button\"")
    pinned = []
    for p in args.path:
        rel = to_rel(ctx.repo, p)
        if not os.path.lexists(ctx.repo.root / rel):
            near = closest_paths(rel, list_files(ctx.repo))
            raise PathError(f"--path {shown(p)}: no such file or folder" + (f"; closest: {', '.join(map(shown, near))}" if near else ""))
        pinned.append(rel)
    store = ctx.store
    with store.locked():
        current = state.active_task(store, required=False)
        if current:
            if not args.force:
                raise StateError(f"task {current['id']} is still active ({current['state']}); finish it with `rt finish`, "
                                 f"block it with `rt block \"<reason>\"`, or pass --force to set it aside")
            state.move(current, "blocked", "set aside by rt start --force")
            current["block_reason"] = "set aside by rt start --force"
            state.save_task(store, current)
        snap = scan(ctx.repo, store, save_originals=True, texts=ctx.texts)
        # an unchanged tree's snapshot is the set-aside task's, when that one is of this tree
        same = current and snap.unchanged and snap.fingerprint == state.snapshot_fingerprint(store, current)
        task = state.new_task(store, text, sorted(set(pinned)))
        from rt.checks import detect, load_config   # the checks and formatters as they are now: only these run for
        task["checks"] = {c.name: [c.command, c.per_file] for c in detect(ctx.repo)}   # the task (`verify.held`)
        task["format"] = load_config(ctx.repo).get("format", {})
        if not (same and state.link_snapshot(store, task, current, snap.fingerprint, snap.count)):
            state.save_snapshot(store, task, snap.files, snap.fingerprint)
            ctx.files = snap.files   # not read back: the baseline's tree, a cold /runtask's partial index (`context._task_index`)
        state.save_task(store, task)
    text_out = f"started {task['id']}: {counted(snap.count, 'file')} snapshotted"
    data = {"task": public(task), "files": snap.count, "files_read": snap.read}
    if args.no_baseline:
        return Result(f"{text_out}\nnext: {state.NEXT_STEP[task['state']]}", data)
    from rt.task.verify import take_baseline  # rt.task.verify builds on this module
    baseline = take_baseline(ctx, just_snapshotted=True)
    return Result(f"{text_out}\n{baseline.text}", data | {"task": public(state.active_task(store)),
                                                          "baseline": baseline.data["checks"]}, baseline.code)


# ---------------------------------------------------------------- status / tasks

def args_status(p) -> None:
    pass


def cmd_status(ctx, args) -> Result:
    from rt import journal
    from rt.checks import ConfigError, intent_setting
    try:  # intent mode and its live permissions; a broken rt.toml must not hide the task
        intent = journal.status_lines(ctx.store, intent_setting(ctx.repo))
    except ConfigError as e:
        intent = [f"intent mode: unknown ({e})"]
    task = state.active_task(ctx.store, required=False)
    if task is None:
        return Result("\n".join(["no active task; start one with `rt start \"<task>\"`"] + intent),
                      {"task": None, "intent": intent})
    return Result("\n".join([describe(task)] + intent), {"task": public(task), "intent": intent})


def args_tasks(p) -> None:
    p.add_argument("--why", action="store_true",
                   help="the unfinished tasks grouped by the state they stopped in, with their last verdict, "
                        "failed verify runs and block reason")


def cmd_tasks(ctx, args) -> Result:
    tasks = state.all_tasks(ctx.store) if ctx.store.exists() else []
    done = sum(t["state"] == "finished" for t in tasks)
    closed = sum(t["state"] in ("finished", "blocked") for t in tasks)
    share = f"{done} of {len(tasks)} finished ({round(100 * done / len(tasks))}%)" if tasks else "no tasks yet"
    if args.why:
        return _why(ctx, tasks, share)
    from rt.session.usage import effort, per_task, sessions   # tokens per task, from the recorded transcripts
    found = sessions(ctx.store) if tasks else []
    usage = per_task(tasks, found)[0] if found else {}
    rows = [f"{t['id']}  {t['state']}" + (f"  {effort(usage[t['id']].total)}" if found else "") for t in tasks]
    return Result("\n".join(rows + [share]),
                  {"tasks": [{"id": t["id"], "state": t["state"],
                             "text": state.head(t["text"], whole=f".rt/{state.task_file(t['id'])}"),
                             "usage": usage[t["id"]].data() if found else None} for t in tasks],
                   "finished": done, "closed": closed, "total": len(tasks)})


def _why(ctx, tasks: list[dict], share: str) -> Result:
    """Why tasks stall: the unfinished ones grouped by the state they stopped in (a blocked task by the
    state it was blocked from), each with its last verdict, failed verify runs and block reason."""
    from rt.session.runs import failed_verifies, load
    unfinished = [t for t in tasks if t["state"] != "finished"]
    rows: dict[str, list[dict]] = {}
    for t in unfinished:
        stopped = t["history"][-1]["from"] if t["state"] == "blocked" and t["history"] else t["state"]
        history = load(ctx.store, t)
        rows.setdefault(stopped, []).append({
            "id": t["id"], "state": t["state"], "stopped_in": stopped,
            "last_verdict": (t.get("verify") or {}).get("verdict"),
            "failed_verifies": failed_verifies(history) if history else t.get("failed_verifies", 0),
            "block_reason": t.get("block_reason", "")})
    lines = [share, f"unfinished: {len(unfinished)}"]
    for stopped in [s for s in state.ACTIVE if s in rows]:
        lines.append(f"stopped in {stopped} ({len(rows[stopped])}):")
        for r in rows[stopped]:
            bits = [r["state"] if r["state"] == "blocked" else "still active",
                    f"last verify {r['last_verdict'] or 'never run'}", f"{r['failed_verifies']} failed verify run(s)"]
            if r["block_reason"]:
                bits.append("blocked: " + state.line(r["block_reason"], "reason", 200))
            lines.append(f"  {r['id']}: " + "; ".join(bits))
    verdicts: dict[str, int] = {}
    for group in rows.values():
        for r in group:
            verdicts[r["last_verdict"] or "never verified"] = verdicts.get(r["last_verdict"] or "never verified", 0) + 1
    if verdicts:
        lines.append("by last verdict: " + ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())))
    groups = [{"stopped_in": s, "tasks": rows[s]} for s in state.ACTIVE if s in rows]
    return Result("\n".join(lines), {"unfinished": len(unfinished), "total": len(tasks), "groups": groups,
                                     "by_last_verdict": dict(sorted(verdicts.items()))})


# ---------------------------------------------------------------- plan / scope

def args_plan(p) -> None:
    p.add_argument("--edit", nargs="+", action="extend", default=[], metavar="F", help="files the task may change")
    p.add_argument("--create", nargs="+", action="extend", default=[], metavar="F", help="files the task may create")
    p.add_argument("--delete", nargs="+", action="extend", default=[], metavar="F", help="files the task may delete")
    p.add_argument("--note", default="", help="the approach, in a line")


def _checked(ctx, paths: list[str], must_exist: bool, flag: str, made=(), gone=()) -> list[str]:
    """Repository paths for a plan; `made`: files the task's checks made, which may be planned for creation;
    `gone`: files the task has deleted already, which may be planned as existing."""
    out = []
    modules = _submodules(ctx.repo) if paths else []
    for p in paths:
        rel = to_rel(ctx.repo, p)
        _outside_submodules(modules, rel, f"{flag} {shown(p)}")
        path = ctx.repo.root / rel
        exists = os.path.lexists(path)
        if exists and path.is_dir() and rel not in modules:   # a submodule, a commit to the snapshot, is planned whole
            raise PathError(f"{flag} {shown(p)}: is a folder; name the files inside it")
        if must_exist and not exists and rel not in gone:
            near = closest_paths(rel, list_files(ctx.repo))
            hint = f"closest existing: {', '.join(map(shown, near))}" if near else "no similar path exists"
            raise PathError(f"{flag} {shown(p)}: no such file ({hint}); to add a new file use --create")
        if not must_exist and exists and rel not in made:
            raise PathError(f"{flag} {shown(p)}: already exists; to change it use --edit")
        out.append(rel)
    return sorted(set(out))


def _submodules(repo) -> list[str]:
    """The paths of the repository's submodules (gitlinks in git's index)."""
    return [path for path, mode, _, _ in git_index(repo) or [] if mode == "160000"]


def _outside_submodules(modules: list[str], rel: str, said: str) -> None:
    """Refuse a path in a submodule: a repository of its own, whose files the snapshot does not hold (only the
    commit it has checked out, under its own path, which a plan may name), so a plan naming one could never be
    seen done."""
    inside = next((m for m in modules if rel.startswith(m + "/")), None)
    if inside is not None:
        raise PathError(f"{said}: is in the submodule {shown(inside)}, a repository of its own whose files rt does "
                        f"not track here; start the task in {shown(inside)}")


def _save_original(ctx, task: dict, rel: str) -> None:
    data = current_bytes(ctx.repo, rel)
    if data is not None:
        digest = blob_id(data)
        ctx.store.put_blob(digest, data)
        task["originals"][rel] = digest


def cmd_plan(ctx, args) -> Result:
    if not (args.edit or args.create or args.delete):
        raise UsageError("a plan names at least one file: rt plan --edit F ... --create F ... --delete F ...")
    note = state.checked_text("plan note", args.note)
    store = ctx.store
    task = state.active_task(store)
    effects = state.load_effects(store, task)
    now = {p: h for p in effects if (h := hash_path(ctx.repo, p)) is not None}
    made = state.made_by_checks(store, task, now, effects)
    if made:   # those absent when the task started may be planned for creation
        before = state.load_snapshot(store, task)
        made = [p for p in made if p not in before]
    scope = {
        "edit": _checked(ctx, args.edit, True, "--edit"),
        "create": _checked(ctx, args.create, False, "--create", made),
        "delete": _checked(ctx, args.delete, True, "--delete", gone=state.load_snapshot(store, task) if args.delete else ()),
    }
    with store.locked():
        task = state.active_task(store)
        state.move(task, "planned", note)
        task["scope"] = scope
        task["plan_note"] = note
        for rel in scope["edit"] + scope["delete"]:
            if rel not in task["originals"]:
                _save_original(ctx, task, rel)
        state.save_task(store, task)
    return Result(scope_line(task), {"task": public(task)})


def args_scope(p) -> None:
    p.add_argument("action", choices=["add", "remove"])
    p.add_argument("files", nargs="+", metavar="F")
    p.add_argument("--delete", action="store_true", help="with add: the files are to be deleted")


def cmd_scope(ctx, args) -> Result:
    store = ctx.store
    with store.locked():
        task = state.active_task(store)
        if task["state"] not in state.EDITABLE or task.get("scope") is None:
            raise StateError(f"task {task['id']} is {task['state']} with no plan; record one first with `rt plan --edit F ...`")
        scope = task["scope"]
        modules = _submodules(ctx.repo) if args.action == "add" else []
        before = None
        for p in args.files:
            rel = to_rel(ctx.repo, p)
            _outside_submodules(modules, rel, shown(p))
            if args.action == "remove":
                if not any(rel in v for v in scope.values()):
                    raise PathError(f"{p}: not in the scope of task {task['id']}")
                for v in scope.values():
                    if rel in v:
                        v.remove(rel)
                continue
            path = ctx.repo.root / rel
            exists = os.path.lexists(path)
            if exists and path.is_dir() and rel not in modules:   # no change is ever a folder's: planned, never done
                raise PathError(f"{shown(p)}: is a folder; name the files inside it")
            if not exists and before is None:
                before = state.load_snapshot(store, task)
            gone = not exists and rel in before   # the task deleted it: approving that plans its deletion
            if args.delete and not (exists or gone):
                raise PathError(f"{p}: cannot be planned for deletion, it does not exist")
            kind = "delete" if args.delete or gone else "edit" if exists else "create"
            if rel not in scope[kind]:
                scope[kind] = sorted(scope[kind] + [rel])
            if kind != "create" and rel not in task["originals"]:
                _save_original(ctx, task, rel)
        state.save_task(store, task)
    return Result(scope_line(task), {"task": public(task)})


def args_allow_fix(p) -> None:
    p.add_argument("--attempts", type=int, default=1, metavar="N", help="how many more fix attempts (default 1)")


def cmd_allow_fix(ctx, args) -> Result:
    """More fix attempts after the limit (`fix_attempts` in rt.toml): the user's decision, like a scope
    change, so the Bash guard puts the command to them."""
    if args.attempts < 1:
        raise UsageError(f"--attempts {args.attempts}: give a number of attempts above zero")
    store = ctx.store
    with store.locked():
        task = state.active_task(store)
        if task["state"] not in state.EDITABLE:
            raise StateError(f"task {task['id']} is {task['state']}: fix attempts count only once it is planned")
        task["fixes_allowed"] = task.get("fixes_allowed", 0) + args.attempts
        state.save_task(store, task)
    allowed = state.fix_limit(task)
    return Result(f"fix attempts allowed: {allowed} failed verifies in a row (now {task.get('failed_verifies', 0)})",
                  {"task": public(task), "allowed": allowed})


# ---------------------------------------------------------------- progress and closing

def args_step(p) -> None:
    p.add_argument("note", help="what was just done")


def cmd_step(ctx, args) -> Result:
    note = state.checked_text("step note", args.note)
    if not note:
        raise UsageError("the step note is empty; say what was done: rt step \"added the handler\"")
    store = ctx.store
    with store.locked():
        task = state.active_task(store)
        state.move(task, "building", note)
        task["steps"].append({"at": state.now(), "note": note})
        state.save_task(store, task)
    return Result(f"step {len(task['steps'])} recorded", {"task": public(task)})


def args_block(p) -> None:
    p.add_argument("reason", help="what stops the task")


def cmd_block(ctx, args) -> Result:
    reason = state.checked_text("reason", args.reason)
    if not reason:
        raise UsageError("the reason is empty; say what blocks the task: rt block \"needs an API key\"")
    store = ctx.store
    with store.locked():
        task = state.active_task(store)
        state.move(task, "blocked", reason)
        task["block_reason"] = reason
        state.save_task(store, task)
        state.close_active(store)
    return Result(f"task {task['id']} blocked: {reason}", {"task": public(task)})


def args_finish(p) -> None:
    p.add_argument("--incomplete", action="store_true", help="finish from building without a passing verify")


def cmd_finish(ctx, args) -> Result:
    store = ctx.store
    with store.locked():
        task = state.active_task(store)
        if task["state"] == "building" and not args.incomplete:
            raise StateError(f"task {task['id']} is building and not verified; run `rt verify`, "
                             f"or `rt finish --incomplete` to close it unverified")
        state.move(task, "finished", "incomplete" if args.incomplete else "")
        task["incomplete"] = task["history"][-1]["from"] != "verified"
        from rt.task.report import write_report  # rt.task.report builds on this module
        report = write_report(ctx, task)   # first: a report that cannot be written leaves the task open
        state.save_task(store, task)
        state.close_active(store)
    return Result(report, {"task": public(task), "report": report})


def args_repair(p) -> None:
    pass


def cmd_repair(ctx, args) -> Result:
    """Check every file under `.rt/`: set the damaged ones aside in `.rt/damaged/` so rt can go on (nothing is
    deleted), restore the `.gitignore` that hides `.rt/` from git, and build a damaged index again."""
    store = ctx.store
    if not store.dir.is_dir():
        if os.path.lexists(store.dir):
            store.ensure()   # says what `.rt` is instead
        return Result("nothing damaged in .rt/", {"moved": [], "done": []})
    from rt.index.index import damaged as index_damaged, load as load_index   # the index is checked only here
    moved, done = [], []
    with store.locked():
        aside = store.dir / "damaged"
        if os.path.islink(aside) or os.path.lexists(aside) and not aside.is_dir():   # where the rest goes
            os.unlink(aside)
            done.append("damaged: not rt's folder (a link or a file), removed")
        for name in sorted(os.listdir(store.dir)):   # a link, or a file where rt keeps a folder: set aside first
            path = store.dir / name
            if os.path.islink(path) or name in STORE_FOLDERS and not path.is_dir():
                _set_aside(store, name)
                moved.append(name)
        for rel in _store_files(store):
            if not _sound(store, rel):
                _set_aside(store, rel)
                moved.append(rel)
        broken_index = index_damaged(store)
        for name in broken_index:
            _set_aside(store, f"index/{name}")
            moved.append(f"index/{name}")
        gitignore = store.path(".gitignore")
        if gitignore.is_file() and gitignore.read_bytes() != b"*\n":
            store.write_bytes(gitignore, b"*\n")
            done.append(".gitignore: restored (`*`, so git does not list .rt/)")
        st = state.load_state(store)
        active = st.get("active")
        if active and not (store.path("tasks", active, "task.json").is_file() and store.path("tasks", active, state.SNAPSHOT).is_file()):
            st["active"] = None
            store.write_json(state.STATE_FILE, st)
            done.append(f"active task {active} cleared")
        elif not store.path(state.STATE_FILE).is_file():
            store.write_json(state.STATE_FILE, st)
    if broken_index:   # after the lock: building the index takes it
        load_index(ctx, rebuild=True)
        done.append("the index was rebuilt from the tree")
    if not (moved or done):
        return Result("nothing damaged in .rt/", {"moved": [], "done": []})
    lines = [f"  {rel}: damaged, set aside in .rt/damaged/" for rel in moved] + [f"  {d}" for d in done]
    return Result("repaired .rt/:\n" + "\n".join(lines), {"moved": moved, "done": done})


STORE_FOLDERS = ("index", "tasks", "blobs", "cache")
"""The folders rt keeps in `.rt/`."""


def _store_files(store) -> list[str]:
    """Every file under `.rt/` that a reader could find damaged, sorted; the index is checked apart
    (`rt.index.index.damaged`), the lock, what was set aside already and the tools' caches (`rt.checks.CACHED`,
    in the tools' own formats) are not checked."""
    out = []
    for folder, dirs, files in os.walk(store.dir):
        rel_dir = os.path.relpath(folder, store.dir).replace(os.sep, "/")
        if rel_dir == ".":
            dirs[:] = [d for d in dirs if d not in ("damaged", "index", "cache")]
            files = [f for f in files if f not in ("lock", ".gitignore")]
        out += [f if rel_dir == "." else f"{rel_dir}/{f}" for f in files if not f.startswith(".tmp-")]
    return sorted(out)


def _sound(store, rel: str) -> bool:
    """Whether a store file reads as its reader expects: JSON with rt's schema, a saved original whose
    content still has its name's hash; logs and reports are plain text, sound as they are."""
    if rel.endswith(".json"):
        try:
            store.read_json(rel)
        except StoreError:
            return False
        return True
    if rel.startswith("blobs/"):
        digest = rel.replace("/", "")[len("blobs"):]
        data = store.get_blob(digest)
        return data is not None and blob_id(data) == digest
    return True


def _set_aside(store, rel: str) -> None:
    target = store.path("damaged", rel.replace("/", "__"))
    target.parent.mkdir(exist_ok=True)
    os.replace(store.path(*rel.split("/")), target)
