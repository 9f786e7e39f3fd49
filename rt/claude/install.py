"""`rt install`, `rt install --uninstall` and `rt doctor`: rt's skill, agents and hooks in Claude Code.

Install writes into the project's `.claude/` (or `~/.claude/` with `--user`) and merges into
`settings.json` without dropping anything already there. What it added is recorded in
`rt-install.json` beside the settings, so uninstall removes exactly that and nothing of the user's.
"""
from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import rt
from rt.core import ExitCode, Result, RtError, UsageError, run
from rt.claude.hooks import HOOKS

DENY = tuple(f"Bash(git {op}:*)" for op in (
    "commit", "push", "reset --hard", "rebase", "clean -f", "clean -fd", "clean -fdx", "checkout --",
    "restore", "branch -D", "stash drop", "stash clear"))
"""Permission deny rules for the git operations the Bash hook blocks: a second line of defence."""

ALLOW = ("Bash(rt:*)",)
"""rt's own commands run without a prompt; the hooks still gate what they must."""

SKILL_NAME = "runtask"
RECORD = "rt-install.json"
BACKUP = "settings.json.rt-backup"
_OUR_HOOK = re.compile(r"(^|\s)-m rt hook [a-z-]+$")


def assets() -> Path:
    """The folder holding SKILL.md and agents/: `rt/skill` when pip-installed, `skill/` in a checkout."""
    here = Path(rt.__file__).resolve().parent
    packaged = here / "skill"
    return packaged if (packaged / "SKILL.md").is_file() else here.parent / "skill"


def shipped_files() -> dict[str, bytes]:
    """Install-relative path -> content, for the skill and every agent."""
    src = assets()
    files = {f"skills/{SKILL_NAME}/SKILL.md": (src / "SKILL.md").read_bytes()}
    for agent in sorted((src / "agents").glob("*.md")):
        files[f"agents/{agent.name}"] = agent.read_bytes()
    return files


def hook_command(arg: str) -> str:
    """The shell command Claude Code runs for one hook: this interpreter, with rt's folder on PYTHONPATH.

    `-S` skips site-packages start-up, which rt (standard library only) never needs and which costs
    tens of milliseconds on every tool call; PYTHONPATH names the folder holding this rt, be it a
    checkout or site-packages after `pip install`.
    """
    parent = Path(rt.__file__).resolve().parent.parent
    return f"PYTHONPATH={shlex.quote(str(parent))} {shlex.quote(sys.executable)} -S -m rt hook {arg}"


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
    except ValueError as e:
        comments = re.search(r"^\s*(//|/\*)", raw, re.M)
        why = "has comments, which JSON does not allow" if comments else f"is not valid JSON ({e})"
        raise UsageError(f"{shown} {why}; fix it by hand, then run rt install again. Nothing was changed") from None
    problems = [] if isinstance(data, dict) else ["the top level is not an object"]
    if not problems:
        if not isinstance(data.get("hooks", {}), dict):
            problems.append('"hooks" is not an object')
        elif any(not isinstance(groups, list) for groups in data.get("hooks", {}).values()):
            problems.append('an event under "hooks" is not a list')
        perms = data.get("permissions", {})
        if not isinstance(perms, dict) or any(not isinstance(perms.get(k, []), list) for k in ("allow", "deny")):
            problems.append('"permissions" is not an object of lists')
    if problems:
        raise UsageError(f"{shown}: {problems[0]}; fix it by hand, then run rt install again. Nothing was changed")
    return data


def dump(data: dict) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def add_to_settings(settings: dict, record: dict) -> None:
    """Merge rt's hooks and permission rules in, noting in `record` only what was not there already."""
    hooks = settings.setdefault("hooks", {})
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
    for key, rules in (("allow", ALLOW), ("deny", DENY)):
        have = perms.setdefault(key, [])
        for rule in rules:
            if rule not in have:
                have.append(rule)
                record[key] = sorted(set(record.get(key, [])) | {rule})


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


def cmd_install(ctx, args) -> Result:
    base, shown = target_dir(ctx, args.user)
    settings_path = base / "settings.json"
    settings = load_settings(settings_path, f"{shown}/settings.json")
    record = _read_record(base, shown)
    before = dump(settings) if settings_path.exists() else None
    rt_created = record.get("created_settings", False)
    done: list[str] = []
    if args.uninstall:
        remove_from_settings(settings, record)
        for rel in sorted(record.get("files") or shipped_files()):  # without a record: rt's own file names
            path = base / rel
            if path.is_file():
                path.unlink()
                done.append(f"removed {shown}/{rel}")
            _prune(path.parent, base)
        record = {}
    else:
        add_to_settings(settings, record)
        for rel, data in shipped_files().items():
            path = base / rel
            if not (path.is_file() and path.read_bytes() == data):
                ctx.store.write_bytes(path, data)
                done.append(f"wrote {shown}/{rel}")
            record["files"] = sorted(set(record.get("files", [])) | {rel})
    if not args.uninstall and before is None:
        record["created_settings"] = True
    after = dump(settings)
    if args.uninstall and not settings and rt_created and settings_path.exists():
        settings_path.unlink()  # rt created it, and nothing else is in it
        done.append(f"removed {shown}/settings.json")
    elif after != (before if before is not None else dump({})):
        if before is not None:
            shutil.copy2(settings_path, base / BACKUP)
            done.append(f"backup of the previous settings: {shown}/{BACKUP}")
        # a settings.json kept elsewhere (dotfiles) and linked in stays a link: write where it points
        ctx.store.write_bytes(settings_path.resolve(), after.encode())
        done.append(f"updated {shown}/settings.json")
    _write_record(ctx, base, record)
    verb = "uninstalled from" if args.uninstall else "installed into"
    state_now = "absent from" if args.uninstall else "installed in"
    text = "\n".join(done) if done else f"nothing to change: rt is already {state_now} {shown}"
    if done:
        text += f"\n{verb} {shown}"
    return Result(text, {"target": shown, "uninstall": args.uninstall, "changes": done})


def _read_record(base: Path, shown: str) -> dict:
    try:
        data = json.loads((base / RECORD).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        raise UsageError(f"{shown}/{RECORD} is damaged; remove it and run the command again "
                         f"(rt then treats only its own hook commands as installed)") from None
    return data if isinstance(data, dict) else {}


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
    return Result("\n".join(lines), data, ExitCode.FINDING if broken else ExitCode.OK)


def _install_status(base: Path, shown: str) -> dict:
    """What of rt is in one `.claude` folder, and the hook commands registered there."""
    try:
        settings = load_settings(base / "settings.json", f"{shown}/settings.json")
    except RtError as e:
        return {"installed": False, "broken": True, "summary": str(e)}
    commands = {event: h["command"] for event, groups in settings.get("hooks", {}).items()
                for g in groups if isinstance(g, dict) for h in g.get("hooks", []) if is_ours(h)}
    shipped = shipped_files()
    present = [rel for rel in shipped if (base / rel).is_file()]
    stale = [rel for rel in present if (base / rel).read_bytes() != shipped[rel]]
    deny = set(settings.get("permissions", {}).get("deny", []))
    missing_hooks = [event for event, *_ in HOOKS if event not in commands]
    plugins = sorted(k for k, on in settings.get("enabledPlugins", {}).items() if on and k.split("@")[0] == "rt")
    if not present and not commands:
        summary = f"rt plugin enabled ({', '.join(plugins)})" if plugins else "not installed (`rt install` puts it here)"
        return {"installed": False, "broken": False, "summary": summary, "commands": {}, "plugins": plugins}
    parts = [f"{len(present)}/{len(shipped)} files", f"{len(commands)}/{len(HOOKS)} hooks",
             f"{len(deny & set(DENY))}/{len(DENY)} git deny rules"]
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
    """The project's checks rt found, as `name (kind)`."""
    from rt.checks import detect
    return [f"{c.name} ({c.kind})" for c in detect(ctx.repo)]


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
