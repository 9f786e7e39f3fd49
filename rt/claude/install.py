"""`rt install`, `rt install --uninstall` and `rt doctor`: rt's skill, agents and hooks in Claude Code.

Install writes into the project's `.claude/` (or `~/.claude/` with `--user`) and merges into
`settings.json` without dropping anything already there. What it added is recorded in
`rt-install.json` beside the settings, so uninstall removes exactly that and nothing of the user's.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import rt
from rt import sandbox, store
from rt.core import ExitCode, Result, RtError, UsageError, run
from rt.claude.hooks import HOOKS

DENY = tuple(f"Bash(git {op}:*)" for op in (
    "commit", "push", "reset --hard", "rebase", "clean -f", "clean -fd", "clean -fdx", "checkout --",
    "restore", "branch -D", "stash drop", "stash clear"))
"""Permission deny rules for the git operations the Bash hook blocks: a second line of defence."""

GRANTABLE = ("Bash(git commit:*)", "Bash(git push:*)")
"""Deny rules left out in intent mode: Claude Code applies a deny rule even over a hook's `allow`, so
with them `/commit` and `/push` could never let their one operation through (tested with the client)."""


def deny_rules(intent: bool) -> tuple[str, ...]:
    return tuple(r for r in DENY if r not in GRANTABLE) if intent else DENY

ALLOW = ("Bash(rt:*)",)
"""rt's own commands run without a prompt; the hooks still gate what they must."""

SKILL_NAME = "runtask"
RECORD = sandbox.RECORD
BACKUP = "settings.json.rt-backup"
_OUR_HOOK = re.compile(r"(^|\s)(-m rt hook|\S*/rt/claude/hook\.sh'?) [a-z-]+$")


def assets() -> Path:
    """The folder holding SKILL.md and agents/: `rt/skill` when pip-installed, `skill/` in a checkout."""
    here = Path(rt.__file__).resolve().parent
    packaged = here / "skill"
    return packaged if (packaged / "SKILL.md").is_file() else here.parent / "skill"


def shipped_files(intent: bool = False) -> dict[str, bytes]:
    """Install-relative path -> content, for the skill and every agent, and with `intent` the intent
    commands, as project commands (`.claude/commands/go.md`: it overrides a built-in of the same name, and
    unlike a skill its expansion carries no "Base directory" line)."""
    src = assets()
    files = {f"skills/{SKILL_NAME}/SKILL.md": (src / "SKILL.md").read_bytes()}
    for agent in sorted((src / "agents").glob("*.md")):
        files[f"agents/{agent.name}"] = agent.read_bytes()
    if intent:
        for command in sorted((src / "intent").glob("*/SKILL.md")):
            files[f"commands/{command.parent.name}.md"] = command.read_bytes()
    return files


def hook_command(arg: str) -> str:
    """The shell command Claude Code runs for one hook: rt's hook client (`rt/claude/hook.sh`, bash), which
    asks the repository's hook server and else runs this interpreter, with rt's folder on PYTHONPATH; without
    bash, the interpreter itself.

    `-S` skips site-packages start-up, which rt (standard library only) never needs and which costs
    tens of milliseconds on every tool call; `-P` keeps the session's folder off `sys.path`, so a
    project's own `rt/` package or a file named like a standard module (`json.py`) is never imported by
    the hook (and each import looks in one folder less). PYTHONPATH names the folder holding this rt, be
    it a checkout or site-packages after `pip install`.
    """
    parent = Path(rt.__file__).resolve().parent.parent
    client = parent / "rt" / "claude" / "hook.sh"
    bash = shutil.which("bash")
    if bash and client.is_file():
        return (f"PYTHONPATH={shlex.quote(str(parent))} RT_PY={shlex.quote(sys.executable)} "
                f"{shlex.quote(bash)} {shlex.quote(str(client))} {arg}")
    return f"PYTHONPATH={shlex.quote(str(parent))} {shlex.quote(sys.executable)} -S -P -m rt hook {arg}"


def is_ours(handler: dict) -> bool:
    return isinstance(handler, dict) and bool(_OUR_HOOK.search(str(handler.get("command", ""))))


# ---------------------------------------------------------------- settings.json

def target_dir(ctx, user: bool) -> tuple[Path, str]:
    """The `.claude` folder to install into, and how to name it in messages."""
    if user:
        return Path.home() / ".claude", "~/.claude"
    return ctx.repo.root / ".claude", ".claude"


def load_settings(path: Path, shown: str) -> dict:
    """The settings as a dict; refuses (changing nothing) what is not plain JSON with the expected shape."""
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise UsageError(f"{shown} cannot be read ({e}); nothing was changed")
    try:
        data = json.loads(raw) if raw.strip() else {}
        dump(data).encode()
    except ValueError as e:
        comments = re.search(r"^\s*(//|/\*)", raw, re.M)
        why = ("has comments, which JSON does not allow" if comments else "holds a lone surrogate escape, which is no text"
               if isinstance(e, UnicodeEncodeError) else f"is not valid JSON ({e})")
        raise UsageError(f"{shown} {why}; fix it by hand, then run rt install again. Nothing was changed") from None
    except RecursionError:
        raise UsageError(f"{shown} is nested too deep to read; fix it by hand, then run rt install again. Nothing was "
                         f"changed") from None
    problems = [] if isinstance(data, dict) else ["the top level is not an object"]
    if not problems:
        if not isinstance(data.get("enabledMcpjsonServers", []), list):
            problems.append('"enabledMcpjsonServers" is not a list')
        if not isinstance(data.get("hooks", {}), dict):
            problems.append('"hooks" is not an object')
        elif any(not isinstance(groups, list) for groups in data.get("hooks", {}).values()):
            problems.append('an event under "hooks" is not a list')
        elif any(isinstance(g, dict) and not isinstance(g.get("hooks", []), list)
                 for groups in data.get("hooks", {}).values() for g in groups):   # `"hooks": null` broke every reader
            problems.append('a matcher group\'s "hooks" under "hooks" is not a list')
        perms = data.get("permissions", {})
        if not isinstance(perms, dict) or any(not isinstance(perms.get(k, []), list) for k in ("allow", "deny")):
            problems.append('"permissions" is not an object of lists')
        box = data.get("sandbox", {})
        if not isinstance(box, dict) or not isinstance(box.get("filesystem", {}), dict) or any(
                not isinstance(_at(box, path), list) for path in sandbox.LISTS if _at(box, path) is not None):
            problems.append('"sandbox" is not an object with lists where Claude Code expects them')
    if problems:
        raise UsageError(f"{shown}: {problems[0]}; fix it by hand, then run rt install again. Nothing was changed")
    return data


def dump(data: dict) -> str:
    """Settings as rt writes them; a number JSON cannot hold (`1e400` read as infinity) is refused, never written
    as `Infinity`, which Claude Code could not read."""
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def add_to_settings(settings: dict, record: dict, deny: tuple[str, ...] = DENY) -> None:
    """Merge rt's hooks and permission rules in, noting in `record` only what was not there already."""
    hooks = settings.setdefault("hooks", {})
    current = {hook_command(arg) for _, _, arg, _ in HOOKS}
    for event in list(hooks):   # rt's handlers from an earlier install (another interpreter or form) go
        emptied = []
        for group in hooks[event] if isinstance(hooks[event], list) else ():
            if isinstance(group, dict) and isinstance(group.get("hooks"), list) and group["hooks"]:
                group["hooks"] = [h for h in group["hooks"] if not is_ours(h) or h.get("command") in current]
                if not group["hooks"]:
                    emptied.append(group)
        hooks[event] = [g for g in hooks[event] if not any(g is e for e in emptied)]   # a group of the user's stays
    for event, matcher, arg, timeout in HOOKS:
        groups = hooks.setdefault(event, [])
        command = hook_command(arg)
        if any(h.get("command") == command for g in groups if isinstance(g, dict)
               for h in g.get("hooks", []) if isinstance(h, dict)):
            continue
        group: dict = {"matcher": matcher} if matcher else {}
        group["hooks"] = [{"type": "command", "command": command, "timeout": timeout}]
        groups.append(group)
    perms = settings.setdefault("permissions", {})
    for key, rules in (("allow", ALLOW), ("deny", deny)):
        have = perms.setdefault(key, [])
        for rule in rules:
            if rule not in have:
                have.append(rule)
                record[key] = sorted(set(record.get(key, [])) | {rule})


def _at(box: dict, path: tuple[str, ...]):
    """The value at a key path of the `sandbox` settings, or None."""
    for key in path:
        box = box.get(key) if isinstance(box, dict) else None
    return box


def add_sandbox(settings: dict, record: dict) -> None:
    """Turn on Claude Code's sandbox with `.git/` and `.rt/` read-only; note the values it replaced (once,
    so a second install keeps the first ones) and the list items it added, for uninstall."""
    box = settings.setdefault("sandbox", {})
    noted = record.setdefault("sandbox", {"replaced": {}, "added": {}})
    for key, value in sandbox.SETTINGS.items():
        if box.get(key) != value:
            noted["replaced"].setdefault(key, [box[key]] if key in box else [])
            box[key] = value
    for path, items in sandbox.LISTS.items():
        parent = box
        for key in path[:-1]:
            parent = parent.setdefault(key, {})
        have = parent.setdefault(path[-1], [])
        for item in items:
            if item not in have:
                have.append(item)
                added = noted["added"].setdefault(".".join(path), [])
                if item not in added:
                    added.append(item)


def remove_sandbox(settings: dict, record: dict) -> None:
    """Put back what add_sandbox replaced and take out what it added; drop what that leaves empty."""
    noted = record.get("sandbox")
    box = settings.get("sandbox")
    if not noted or not isinstance(box, dict):
        return
    for key, before in noted.get("replaced", {}).items():
        if before:
            box[key] = before[0]
        else:
            box.pop(key, None)
    for dotted, items in noted.get("added", {}).items():
        path = dotted.split(".")
        parents = [box]
        for key in path[:-1]:
            parents.append(parents[-1].get(key, {}) if isinstance(parents[-1], dict) else {})
        have = parents[-1].get(path[-1]) if isinstance(parents[-1], dict) else None
        if isinstance(have, list):
            have[:] = [x for x in have if x not in items]
            if not have:
                del parents[-1][path[-1]]
        for depth in range(len(path) - 1, 0, -1):
            if parents[depth] == {} and isinstance(parents[depth - 1], dict):
                parents[depth - 1].pop(path[depth - 1], None)
    if not box:
        del settings["sandbox"]


def remove_from_settings(settings: dict, record: dict) -> None:
    """Take out rt's hook handlers and the permission rules rt added; drop what that leaves empty."""
    hooks = settings.get("hooks", {})
    for event in list(hooks):
        kept = []
        for group in hooks[event]:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list) and any(map(is_ours, group["hooks"])):
                group["hooks"] = [h for h in group["hooks"] if not is_ours(h)]
                if not group["hooks"]:
                    continue
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if "hooks" in settings and not hooks:
        del settings["hooks"]
    perms = settings.get("permissions", {})
    for key in ("allow", "deny"):
        if key in perms:
            perms[key] = [r for r in perms[key] if r not in record.get(key, [])]
            if not perms[key]:
                del perms[key]
    if "permissions" in settings and not perms:
        del settings["permissions"]


# ---------------------------------------------------------------- install / uninstall

def args_install(p) -> None:
    p.add_argument("--user", action="store_true", help="install into ~/.claude (every project) instead of this project's .claude")
    p.add_argument("--uninstall", action="store_true", help="remove exactly what rt install added")
    p.add_argument("--intent", action="store_true",
                   help="also the intent commands /go /q /iq /redo /stop /commit /push /fail /win /mem, and intent "
                        "mode on for this project (edits only in a /go turn; see `rt intent`)")
    p.add_argument("--sandbox", action="store_true",
                   help="also turn on Claude Code's sandbox: Bash with .git/ and .rt/ read-only and no network")
    p.add_argument("--mcp", action="store_true",
                   help="also rt's MCP server (`rt mcp`) in the project's .mcp.json, enabled and allowed in the settings")


def cmd_install(ctx, args) -> Result:
    base, shown = target_dir(ctx, args.user)
    settings = load_settings(base / "settings.json", f"{shown}/settings.json")
    record = _read_record(base, shown)
    mcp = _read_mcp(ctx, args, record)   # refused before anything is written
    _refuse_links(ctx, args, base, shown, mcp is not None)
    intent = args.intent or bool(record.get("intent"))  # once installed, kept until --uninstall
    if not args.uninstall:
        _refuse_theirs(base, shown, record, shipped_files(intent))
    done: list[str] = []
    try:
        return _install(ctx, args, base, shown, settings, record, mcp, intent, done)
    except OSError as e:   # a file or folder rt may not write: what was done so far is recorded, for uninstall
        with contextlib.suppress(OSError):
            _write_record(ctx, base, record)
        where = re.sub(r"(^|/)\.tmp-\d+-\d+-(?=[^/]+$)", r"\1", str(e.filename or shown))   # the file, not its temp name
        raise UsageError(f"rt install stopped: cannot write {where} ({e.strerror or e}); "
                         + (f"done before it: {'; '.join(done)}; " if done else "nothing was changed; ")
                         + "make it writable and run the command again") from None


def _install(ctx, args, base: Path, shown: str, settings: dict, record: dict, mcp: dict | None, intent: bool,
             done: list[str]) -> Result:
    settings_path = base / "settings.json"
    before = dump(settings) if settings_path.exists() else None
    pristine = before is not None and not record and not any(
        is_ours(h) for groups in settings.get("hooks", {}).values() for g in groups if isinstance(g, dict)
        for h in g.get("hooks", []) if isinstance(g.get("hooks"), list))   # the user's own settings: worth a backup
    rt_created = record.get("created_settings", False)
    if args.uninstall:
        if not args.user:   # its hooks are gone: so is the server that answered them
            from rt.claude.hookserver import stop
            if stop(str(ctx.repo.root)):
                done.append("stopped the hook server (.rt/hookserver)")
        remove_sandbox(settings, record)
        remove_mcp(ctx, settings, record, mcp, done)
        remove_from_settings(settings, record)
        listed, ours = record.get("files"), shipped_files(intent=True)
        # rt's own names only: a record (committed with a project, or edited) naming `../../x` removes nothing
        # elsewhere; without a record: a file of rt's name holding what rt ships
        for rel in sorted(ours.keys() & listed if listed else ours):
            path = base / rel
            if path.is_file() and not path.is_symlink():
                if _rts(rel, path, record) if listed else path.read_bytes() == ours.get(rel):
                    path.unlink()
                    done.append(f"removed {shown}/{rel}")
                else:
                    done.append(f"kept {shown}/{rel}: not as rt wrote it")
            _prune(path.parent, base)
        if record.get("intent") and record.get("intent_on", True) and not args.user and ctx.store.dir.is_dir():
            from rt import journal
            journal.set_mode(ctx.store, False)
            done.append("intent mode switched off for this project")
        record = {}
    else:
        if intent:  # the commit and push deny rules rt added would block the one operation /commit allows
            perms = settings.get("permissions", {})
            dropped = [r for r in GRANTABLE if r in record.get("deny", []) and r in perms.get("deny", [])]
            perms["deny"] = [r for r in perms.get("deny", []) if r not in dropped]
            record["deny"] = [r for r in record.get("deny", []) if r not in dropped]
            kept = [r for r in GRANTABLE if r in perms.get("deny", [])]
            if kept:
                done.append(f"note: your own deny rule(s) {', '.join(kept)} stay, so /commit or /push cannot let "
                            f"their operation through")
        add_to_settings(settings, record, deny_rules(intent))
        if args.sandbox:
            add_sandbox(settings, record)
        if args.mcp:
            add_mcp(ctx, settings, record, mcp, done)
        if intent and record.get("sandbox"):
            done.append("note: the sandbox keeps .git/ read-only for the agent's shell, so a /commit or /push "
                        "permission cannot be used; commit and push yourself")
        if intent:
            record["intent"] = True
            if not args.user:
                from rt import journal
                if not journal.mode_on(ctx.store, None):
                    journal.set_mode(ctx.store, True)
                    record["intent_on"] = True   # rt switched it on: uninstall switches it off
                    done.append("intent mode switched on for this project (`rt intent off` switches it off)")
                else:
                    record.setdefault("intent_on", False)
        for rel, data in shipped_files(intent).items():
            path = base / rel
            if not (path.is_file() and path.read_bytes() == data):
                ctx.store.write_bytes(path, data)
                done.append(f"wrote {shown}/{rel}")
            record["files"] = sorted(set(record.get("files", [])) | {rel})
            record.setdefault("hashes", {})[rel] = _digest(data)
    if not args.uninstall and before is None:
        record["created_settings"] = True
    after = dump(settings)
    backup = base / BACKUP
    if args.uninstall and not settings and rt_created and settings_path.exists() and not settings_path.is_symlink():
        settings_path.unlink()  # rt created it, and nothing else is in it
        done.append(f"removed {shown}/settings.json")
    elif after != (before if before is not None else dump({})):
        if pristine and not args.uninstall:   # the first backup holds the user's own settings: never overwritten by rt's
            ctx.store.write_bytes(backup, settings_path.read_bytes(), _mode(settings_path))
            done.append(f"backup of the previous settings: {shown}/{BACKUP}")
        data = after.encode()
        if args.uninstall and backup.is_file() and _same(_json(backup), settings):
            data = backup.read_bytes()   # what rt took out leaves the user's settings as they were: their very bytes
        _write_user_file(ctx, settings_path, data)
        done.append(f"updated {shown}/settings.json")
    _write_record(ctx, base, record)
    verb = "uninstalled from" if args.uninstall else "installed into"
    state_now = "absent from" if args.uninstall else "installed in"
    text = "\n".join(done) if done else f"nothing to change: rt is already {state_now} {shown}"
    if done:
        text += f"\n{verb} {shown}"
    if args.sandbox and not args.uninstall:
        text += "\n" + "\n".join(_sandbox_notes())
    return Result(text, {"target": shown, "uninstall": args.uninstall, "changes": done})


def _sandbox_notes() -> list[str]:
    """What the sandbox does, and what it needs on this machine."""
    notes = ["sandbox: Bash runs with .git/ and .rt/ read-only and no network; `rt ...` runs outside it, and rt runs "
             "the project's checks within the same bounds itself"]
    if sys.platform.startswith("linux"):
        missing = [p for p in ("bwrap", "socat") if shutil.which(p) is None]
        if missing:
            notes.append(f"sandbox: {' and '.join(missing)} not found: install bubblewrap and socat (Debian: "
                         f"`apt-get install bubblewrap socat`); until then Claude Code will not run Bash")
    return notes


def _refuse_links(ctx, args, base: Path, shown: str, mcp: bool) -> None:
    """Refuse, changing nothing, to write through a link that points nowhere, or, for a project, out of the
    repository (a `.claude` linked to `~/.claude` would put a project's hooks in every project), and to change
    a settings file its owner made read-only."""
    files = [base / "settings.json"] + ([ctx.repo.root / MCP_FILE] if mcp else [])
    if not args.user and base.is_symlink():
        raise UsageError(f"{shown} is a link to {os.readlink(base)}; rt installs into the project's own {shown} folder "
                         f"(or `--user` into ~/.claude). Nothing was changed")
    if not args.user:   # `.claude/agents` linked to a shared folder: rt's files would be written (and removed) there
        for folder in sorted({Path(rel).parent for rel in shipped_files(intent=True)}):
            for depth in range(1, len(folder.parts) + 1):
                link = base.joinpath(*folder.parts[:depth])
                real = link.resolve()
                if link.is_symlink() and real != ctx.repo.root and ctx.repo.root not in real.parents:
                    raise UsageError(f"{shown}/{'/'.join(folder.parts[:depth])} is a link out of the repository "
                                     f"({real}); rt writes nothing outside it for a project. Nothing was changed")
    for path in files:
        name = f"{shown}/{path.name}" if path.parent == base else path.name
        if path.is_symlink() and not path.exists():
            raise UsageError(f"{name} is a link to {os.readlink(path)}, which does not exist; rt writes nothing through "
                             f"it. Nothing was changed")
        if path.is_symlink() and not args.user and ctx.repo.root not in path.resolve().parents:
            raise UsageError(f"{name} is a link out of the repository ({path.resolve()}); rt writes nothing outside "
                             f"it for a project. Nothing was changed")
        if path.is_file() and not os.stat(path).st_mode & 0o200:   # its owner's write bit: root may write anything
            raise UsageError(f"{name} is read-only; rt changes nothing in it. Nothing was changed")


def _refuse_theirs(base: Path, shown: str, record: dict, files: dict[str, bytes]) -> None:
    """Refuse, changing nothing, to write over a skill, agent or command file that is not rt's (or that its user
    changed since rt wrote it)."""
    theirs = [rel for rel, data in files.items()
              if (base / rel).is_file() and (base / rel).read_bytes() != data and not _rts(rel, base / rel, record)]
    if theirs:
        raise UsageError(f"{shown}/{theirs[0]} is not rt's (or was changed since rt wrote it)"
                         + (f", and {len(theirs) - 1} more" if len(theirs) > 1 else "")
                         + "; move it aside, then run rt install again. Nothing was changed")


def _rts(rel: str, path: Path, record: dict) -> bool:
    """Whether the file at `path` is rt's as rt wrote it: listed in the record, its bytes those recorded (a record
    from before rt kept digests: listed is enough)."""
    digest = record.get("hashes", {}).get(rel)
    return rel in record.get("files", []) and (digest is None or digest == _digest(path.read_bytes()))


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_user_file(ctx, path: Path, data: bytes) -> None:
    """Write a settings file the user may keep elsewhere: through a symbolic link to where it points, a file with
    other hard links in place (a new file renamed over it would leave their copies behind), else atomically,
    its permissions kept."""
    target = path.resolve()
    try:
        linked = os.stat(target).st_nlink > 1
    except OSError:
        linked = False
    if not linked:
        ctx.store.write_bytes(target, data, _mode(path))
        return
    with open(target, "r+b") as f:
        f.write(data)
        f.truncate()
        f.flush()
        os.fsync(f.fileno())


def _mode(path: Path) -> int:
    """The permissions of the file rt is about to rewrite, kept (a private 0600 settings file stays private)."""
    try:
        return os.stat(path).st_mode & 0o777
    except OSError:
        return 0o644


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _same(a, b) -> bool:
    """Equal once the empty objects and lists both may hold are left out (rt's uninstall drops those it emptied)."""
    def pruned(x):
        if isinstance(x, dict):
            return {k: p for k, v in x.items() if (p := pruned(v)) not in ({}, [])}
        if isinstance(x, list):
            return [pruned(v) for v in x]
        return x
    return a is not None and pruned(a) == pruned(b)


def _read_record(base: Path, shown: str) -> dict:
    try:
        data = json.loads((base / RECORD).read_text(encoding="utf-8"))
        if not isinstance(data, dict) or store.misshapen(RECORD, data):
            raise ValueError(RECORD)
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        raise UsageError(f"{shown}/{RECORD} is damaged; remove it and run the command again "
                         f"(rt then treats only its own hook commands as installed)") from None
    return data


def _write_record(ctx, base: Path, record: dict) -> None:
    path = base / RECORD
    if record:
        ctx.store.write_bytes(path, dump(record).encode())
    elif path.exists():
        path.unlink()
    _prune(base, base.parent)


def _prune(folder: Path, stop: Path) -> None:
    """Remove folders left empty, up to (not including) `stop`."""
    while folder != stop and stop in folder.parents and folder.is_dir() and not any(folder.iterdir()):
        folder.rmdir()
        folder = folder.parent


# ---------------------------------------------------------------- .mcp.json (rt install --mcp)

MCP_FILE = ".mcp.json"
MCP_NAME = "rt"
MCP_ALLOW = "mcp__rt"
"""The allow rule for every tool of the rt server (Claude Code asks before each MCP tool otherwise; it honours
a project's allow rules only in a workspace the user trusted)."""
MCP_BACKUP = "mcp.json.rt-backup"
"""The previous .mcp.json, kept in `.claude/` (rt writes nothing else in the project's root)."""


def mcp_server() -> dict:
    """The `.mcp.json` entry that starts `rt mcp`: this interpreter, rt's folder on PYTHONPATH (as the hooks).
    Claude Code starts it in the project's folder, which is the repository it serves."""
    parent = Path(rt.__file__).resolve().parent.parent
    return {"type": "stdio", "command": sys.executable, "args": ["-S", "-P", "-m", "rt", "mcp"],
            "env": {"PYTHONPATH": str(parent)}}


def _read_mcp(ctx, args, record: dict) -> dict | None:
    """The project's .mcp.json when this install changes it (None otherwise); refuses, changing nothing,
    one that is not plain JSON of the expected shape, or whose `rt` server is someone else's."""
    if ("mcp" not in record) if args.uninstall else not args.mcp:
        return None
    if args.user:
        raise UsageError("--mcp installs into this project's .mcp.json; run it without --user")
    path = ctx.repo.root / MCP_FILE
    data = load_settings(path, MCP_FILE)
    if not isinstance(data.get("mcpServers", {}), dict) or not isinstance(data.get("mcpServers", {}).get(MCP_NAME, {}), dict):
        raise UsageError(f'{MCP_FILE}: "mcpServers" is not an object of servers; fix it by hand, then run rt install '
                         f'again. Nothing was changed')
    theirs = data.get("mcpServers", {}).get(MCP_NAME)
    if theirs is not None and theirs != mcp_server() and "mcp" not in record:
        raise UsageError(f"{MCP_FILE} already has a server named {MCP_NAME!r} that rt install did not add; rename or "
                         f"remove it, then run rt install --mcp again. Nothing was changed")
    return data


def add_mcp(ctx, settings: dict, record: dict, data: dict, done: list[str]) -> None:
    """The rt server in .mcp.json, enabled (`enabledMcpjsonServers`: no approval dialog at start-up) and
    allowed (`mcp__rt`) in the settings; what was added noted in `record`."""
    noted = record.setdefault("mcp", {"created_file": not (ctx.repo.root / MCP_FILE).exists(), "enabled": False})
    enabled = settings.setdefault("enabledMcpjsonServers", [])
    if MCP_NAME not in enabled:
        enabled.append(MCP_NAME)
        noted["enabled"] = True
    allow = settings.setdefault("permissions", {}).setdefault("allow", [])
    if MCP_ALLOW not in allow:
        allow.append(MCP_ALLOW)
        record["allow"] = sorted(set(record.get("allow", [])) | {MCP_ALLOW})
    if data.get("mcpServers", {}).get(MCP_NAME) != mcp_server():
        data.setdefault("mcpServers", {})[MCP_NAME] = mcp_server()
        _write_mcp(ctx, data, done)


def remove_mcp(ctx, settings: dict, record: dict, data: dict | None, done: list[str]) -> None:
    """Take out what add_mcp added: the server (the file too when rt created it and nothing else is in it)
    and the `enabledMcpjsonServers` entry; the allow rule goes with the other recorded rules."""
    noted = record.get("mcp")
    if not noted or data is None:
        return
    if noted.get("enabled") and MCP_NAME in settings.get("enabledMcpjsonServers", []):
        settings["enabledMcpjsonServers"].remove(MCP_NAME)
        if not settings["enabledMcpjsonServers"]:
            del settings["enabledMcpjsonServers"]
    servers = data.get("mcpServers", {})
    if MCP_NAME not in servers:
        return
    del servers[MCP_NAME]
    if not servers:
        del data["mcpServers"]
    path = ctx.repo.root / MCP_FILE
    if not data and noted.get("created_file"):
        path.unlink()
        done.append(f"removed {MCP_FILE}")
    else:
        _write_mcp(ctx, data, done)


def _write_mcp(ctx, data: dict, done: list[str]) -> None:
    """Write .mcp.json (where a link points, as for the settings, its permissions kept), the user's own one
    kept in `.claude/` (once: a later write of rt's never replaces it)."""
    path = ctx.repo.root / MCP_FILE
    existed = path.exists()
    backup = ctx.repo.root / ".claude" / MCP_BACKUP
    if existed and MCP_NAME not in (_json(path) or {}).get("mcpServers", {}):
        ctx.store.write_bytes(backup, path.read_bytes(), _mode(path))
        done.append(f"backup of the previous {MCP_FILE}: .claude/{MCP_BACKUP}")
    text = dump(data).encode()
    if MCP_NAME not in data.get("mcpServers", {}) and backup.is_file() and _same(_json(backup), data):
        text = backup.read_bytes()   # rt's server taken out: the user's file as it was, byte for byte
    _write_user_file(ctx, path, text)
    done.append(f"{'updated' if existed else 'wrote'} {MCP_FILE}")


# ---------------------------------------------------------------- doctor

HARMLESS = {
    "SessionStart": {"source": "startup"},
    "UserPromptSubmit": {"prompt": "rt doctor: a harmless prompt"},
    "PreToolUse": {"tool_name": "Read", "tool_input": {"file_path": "README.md"}, "tool_use_id": "rt-doctor"},
    "PostToolUse": {"tool_name": "Read", "tool_input": {"file_path": "README.md"}, "tool_response": {},
                    "tool_use_id": "rt-doctor"},
    "PostToolUseFailure": {"tool_name": "Read", "tool_input": {"file_path": "README.md"}, "error": "rt doctor",
                           "tool_use_id": "rt-doctor"},
    "Stop": {"stop_hook_active": True, "last_assistant_message": ""},
    "PreCompact": {"trigger": "manual", "custom_instructions": None},
}
"""A payload per event that asks nothing of the hook: a read, a plain prompt, a stop already re-run."""


def args_doctor(p) -> None:
    pass


def cmd_doctor(ctx, args) -> Result:
    lines: list[str] = []
    data: dict = {"installs": {}, "hooks": {}}
    broken = False
    commands: dict[str, str] = {}
    for user in (False, True):
        base, shown = target_dir(ctx, user)
        status = _install_status(base, shown)
        data["installs"][shown] = status
        lines.append(f"{shown}: {status['summary']}")
        commands = commands or status.get("commands", {})
        broken |= status["broken"]
    rt_path = shutil.which("rt")
    data["rt_on_path"] = bool(rt_path)
    lines.append("rt on PATH: yes" if rt_path else
                 "rt on PATH: no; the skill runs `rt ...` through Bash, so `pip install` rt (or put a wrapper on PATH)")
    checks = _checks(ctx)
    data["checks"] = checks
    lines.append("checks found: " + (", ".join(checks) if checks else "none"))
    for event, _, arg, _ in HOOKS:
        command = commands.get(event, hook_command(arg))
        ok, why = _ping(ctx, event, command)
        data["hooks"][event] = {"answers": ok, "detail": why}
        lines.append(f"hook {event}: " + ("answers" if ok else f"does not answer: {why}"))
        broken |= not ok
    from rt.claude.hookserver import status
    data["hook_server"] = status(str(ctx.repo.root))
    lines.append(f"hook server: {data['hook_server']}")
    mcp = _mcp_ping(ctx)
    if mcp is not None:   # only when .mcp.json names an rt server
        data["mcp"] = {"answers": mcp[0], "detail": mcp[1]}
        lines.append(f"mcp server rt ({MCP_FILE}): " + ("answers" if mcp[0] else "does not answer") + f": {mcp[1]}")
        broken |= not mcp[0]
    return Result("\n".join(lines), data, ExitCode.FINDING if broken else ExitCode.OK)


def _mcp_ping(ctx) -> tuple[bool, str] | None:
    """Start the `rt` server .mcp.json names, as Claude Code would, and ask it for its tools; None when
    there is none."""
    try:
        entry = json.loads((ctx.repo.root / MCP_FILE).read_text(encoding="utf-8"))["mcpServers"][MCP_NAME]
        argv = [entry["command"], *entry.get("args", [])]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    asks = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "rt doctor", "version": rt.__version__}}},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    try:
        proc = run(argv, ctx.repo.root, timeout=30, input="".join(json.dumps(a) + "\n" for a in asks).encode(),
                   env={k: str(v) for k, v in (entry.get("env") or {}).items()})
        replies = [json.loads(line) for line in proc.stdout.splitlines()]
        return True, f"{len(replies[1]['result']['tools'])} tools"
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"could not run it ({type(e).__name__})"
    except (ValueError, KeyError, IndexError, TypeError):
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        return False, f"exit {proc.returncode}" + (f": {err[-1]}" if err else "")


def _install_status(base: Path, shown: str) -> dict:
    """What of rt is in one `.claude` folder, and the hook commands registered there."""
    try:
        settings = load_settings(base / "settings.json", f"{shown}/settings.json")
    except RtError as e:
        return {"installed": False, "broken": True, "summary": str(e)}
    commands = {event: h["command"] for event, groups in settings.get("hooks", {}).items()
                for g in groups if isinstance(g, dict) for h in g.get("hooks", []) if is_ours(h)}
    try:
        intent = bool(_read_record(base, shown).get("intent"))
    except RtError:
        intent = False
    shipped = shipped_files(intent)
    present = [rel for rel in shipped if (base / rel).is_file()]
    stale = [rel for rel in present if (base / rel).read_bytes() != shipped[rel]]
    deny = set(settings.get("permissions", {}).get("deny", []))
    missing_hooks = [event for event, *_ in HOOKS if event not in commands]
    plugins = sorted(k for k, on in settings.get("enabledPlugins", {}).items() if on and k.split("@")[0] == "rt")
    if not present and not commands:
        summary = f"rt plugin enabled ({', '.join(plugins)})" if plugins else "not installed (`rt install` puts it here)"
        return {"installed": False, "broken": False, "summary": summary, "commands": {}, "plugins": plugins}
    parts = [f"{len(present)}/{len(shipped)} files", f"{len(commands)}/{len(HOOKS)} hooks",
             f"{len(deny & set(deny_rules(intent)))}/{len(deny_rules(intent))} git deny rules"]
    box = settings.get("sandbox", {})
    if box.get("enabled") and set(sandbox.LISTS[("filesystem", "denyWrite")]) <= set(_at(box, ("filesystem", "denyWrite")) or []):
        parts.append("sandbox on (.git/ and .rt/ read-only)")
    problems = ([f"missing hooks: {', '.join(missing_hooks)}"] if missing_hooks else []) + \
               ([f"out of date: {', '.join(stale)}"] if stale else []) + \
               ([f"missing files: {', '.join(sorted(set(shipped) - set(present)))}"] if len(present) < len(shipped) else [])
    if plugins:
        problems.append(f"the rt plugin is enabled too ({', '.join(plugins)}), so every hook runs twice: "
                        f"keep one (`rt install --uninstall`, or disable the plugin)")
    elif problems:
        problems[-1] += " (run `rt install` again)"
    summary = "installed: " + ", ".join(parts) + "".join(f"; {p}" for p in problems)
    return {"installed": True, "broken": bool(problems), "summary": summary, "commands": commands,
            "files": present, "stale": stale, "missing_hooks": missing_hooks, "plugins": plugins}


def _checks(ctx) -> list[str]:
    """The project's checks rt found, as `name (kind)`, or `name (kind, not installed)` for one whose program
    is missing here: `rt verify` is INCOMPLETE until it is installed."""
    from rt.checks import detect, installed
    return [f"{c.name} ({c.kind}{'' if installed(ctx.repo, c.command[0]) else ', not installed'})"
            for c in detect(ctx.repo)]


def _ping(ctx, event: str, command: str) -> tuple[bool, str]:
    """Run one installed hook command (without a shell) on a harmless payload; did it answer cleanly?"""
    words = shlex.split(command)
    env = {}
    while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    payload = {"session_id": "rt-doctor", "transcript_path": "", "cwd": str(ctx.repo.root),
               "hook_event_name": event, "permission_mode": "default", **HARMLESS[event]}
    try:
        proc = run(words, ctx.repo.root, timeout=30, input=json.dumps(payload).encode(),
                   env={**env, "CLAUDE_PROJECT_DIR": str(ctx.repo.root)})
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"could not run it ({type(e).__name__})"
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        return False, f"exit {proc.returncode}" + (f": {err[-1]}" if err else "")
    out = proc.stdout.decode(errors="replace").strip()
    if out.startswith("{"):
        try:
            json.loads(out)
        except ValueError:
            return False, "printed broken JSON"
    return True, "exit 0"
