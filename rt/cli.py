"""The `rt` command line: one table of commands, each mapped to the module that handles it.

A command's module is imported only when that command runs, so `rt hook ...` starts lean.
Every handler is `cmd_<name>(ctx, args) -> Result`; its arguments come from `args_<name>(parser)`.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
from collections import namedtuple
from functools import cache, cached_property
from types import SimpleNamespace

from rt import __version__
from rt.core import ExitCode, IndexDamaged, Result, RtError, UsageError, find_repo


Command = namedtuple("Command", "module group summary reads_index bare", defaults=(False, None))
"""A row of the command table: the module holding `args_<name>`/`cmd_<name>`, its group, one line, whether
it always reads the index (its freshness check then starts before the handler loads), and, for a command
whose arguments are at most a few plain strings, their names (`bare`: `()` for none, `("name",)` for
`rt symbol NAME`): a command line of exactly those values and at most `--json` runs without argparse,
whose import (with gettext and locale, about 5 ms) an unchanged `rt delta` or a warm look-up would feel.
(`collections.namedtuple`, not `typing.NamedTuple`: typing costs every command's start-up.)"""


COMMANDS: dict[str, Command] = {
    # task: the state machine (rt/task/commands.py, rt/state.py)
    "start": Command("rt.task.commands", "task", "start a task: snapshot the repository and make it the active task"),
    "status": Command("rt.task.commands", "task", "where the active task stands and the next step, to resume after a break",
                      bare=()),
    "plan": Command("rt.task.commands", "task", "record the approved scope: files to edit, create and delete"),
    "scope": Command("rt.task.commands", "task", "add files to the approved scope or remove them"),
    "step": Command("rt.task.commands", "task", "record progress on the active task"),
    "block": Command("rt.task.commands", "task", "stop the active task with the reason it cannot go on"),
    "allow-fix": Command("rt.task.commands", "task", "allow more fix attempts after the limit of failed verifies (the user's decision)"),
    "finish": Command("rt.task.commands", "task", "close the verified task and write the final report"),
    "tasks": Command("rt.task.commands", "task", "list all tasks with their final states and the share finished"),
    "repair": Command("rt.task.commands", "task", "set damaged state files aside so rt can go on"),
    # changes: measured against the task's snapshot (rt/task/changes.py)
    "delta": Command("rt.task.changes", "changes", "files changed since the task started, with line counts and scope",
                     bare=()),
    "review": Command("rt.task.changes", "changes", "unified diff of every changed file against its original"),
    # context: index, manifest, pack and look-ups
    "manifest": Command("rt.context", "context", "the repository at a glance: stack, folders, entry points, files for the task", True),
    "pack": Command("rt.context", "context", "the task's most relevant code in one capped, labelled pack (--budget TOKENS)", True),
    "index": Command("rt.index.index", "context", "build or update the repository index and print its counts", True),
    "symbol": Command("rt.lookup.symbols", "context", "where a name is declared: file, line range, kind and signature", True, ("name",)),
    "refs": Command("rt.lookup.symbols", "context", "the files that use a name (at most 20 shown), marking those that import it", True, ("name",)),
    "slice": Command("rt.lookup.symbols", "context", "just a line range or one definition of a file, long lines cut"),
    "outline": Command("rt.lookup.symbols", "context", "a file's definitions with their line ranges, to read before slicing; a folder's files and theirs", True, ("file",)),
    "find": Command("rt.lookup.find", "context", "where a text a user sees lives: paths, translations and their keys' uses, strings", True, ("text",)),
    # checks: baselines, new diagnostics, verify
    "checks": Command("rt.checks", "checks", "the project's checks rt found (linters, type checkers, tests) and why"),
    "baseline": Command("rt.task.verify", "checks", "run the checks before editing and keep what they report"),
    "check": Command("rt.task.verify", "checks", "the new diagnostics in one file since the baseline"),
    "verify": Command("rt.task.verify", "checks", "run the checks, diff against the baseline, compare with the scope"),
    "claim": Command("rt.task.verify", "checks", "record something you assert that rt did not measure"),
    "diff-logs": Command("rt.diagnostics.difflogs", "checks", "new diagnostics between two saved outputs of a check, with a verdict"),
    # session: long sessions under Claude Code (rt/session/)
    "handoff": Command("rt.session.handoff", "session", "the active task in eight sections from rt's records, to carry it past compaction"),
    "note": Command("rt.session.notes", "session", "keep a decision (--decision) or an architecture pattern (--pattern) for the handoff"),
    "usage": Command("rt.session.usage", "session", "tokens per task from Claude Code's transcripts: requests, cache reads and writes, hit ratio"),
    # integration: Claude Code hooks, install, help
    "hook": Command("rt.claude.hooks", "integration", "answer one Claude Code hook: reads its JSON on stdin (run by Claude Code)"),
    "install": Command("rt.claude.install", "integration", "install the skill, /runtask and the hooks into Claude Code, or --uninstall them"),
    "doctor": Command("rt.claude.install", "integration", "what is installed, which checks were found, and whether each hook answers"),
    "help": Command("rt.help", "integration", "one command's full usage, or search the commands by what you want to do"),
    "mcp": Command("rt.mcp.server", "integration", "serve rt's look-ups and task flow as MCP tools over stdio (Claude Code, Cursor, Codex)"),
    "intent": Command("rt.claude.intent", "integration", "intent mode (/go /q /commit ...): show it, switch it on or off, revoke a live /commit or /push"),
    "journal": Command("rt.claude.intent", "integration", "the user's /fail, /win and /mem entries, in their own words"),
    # agent: a planner/executor for small-window models over any OpenAI-compatible endpoint (rt/agent/)
    "agent": Command("rt.agent.command", "agent", "carry out a task with a local or hosted model: plan, edit in waves, verify", True),
    "route": Command("rt.agent.router", "agent", "which model tier (fast, balanced, powerful) a message or task needs, and why"),
}


HELP_WIDTH = 100
"""`--help` wraps at this width whatever the terminal: the same bytes for people and models, and no
`shutil` import to ask the terminal its size."""


class Ctx:
    """What a handler may touch: the repository (found on first use), its `.rt/` store, the index's
    freshness check when the command line started it early (`rt/index/freshness.py`), and the index a
    long-lived process keeps between commands (`rt mcp`: an `rt.index.index.Kept`). `json`: whether the
    caller wants the result's data (`--json`, `rt mcp --structured`), not only its text."""

    def __init__(self, json_out: bool):
        self.json = json_out
        self.probe = None
        self.kept = None
        self.texts = None   # a dict when the caller wants the text bytes `rt start`'s scan reads (`snapshot.scan`)
        self.files = None   # the snapshot `rt start` just wrote (`state.save_snapshot`), for its baseline and /runtask
        self.history = None   # the recent history being read meanwhile (`history.Reading`), for the ranking

    @cached_property
    def repo(self):
        return find_repo()

    @cached_property
    def store(self):
        from rt.store import Store
        return Store(self.repo)


@cache
def build_parser(name: str):
    """The command's `argparse` parser and its handler (argparse is imported here, after the index's
    freshness check has started); made once per process: a hook server's `rt pack` built it each time."""
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message):  # one line, not argparse's usage block
            raise UsageError(f"{self.prog}: {message} (see `{self.prog} --help`)")

    def formatter(prog):
        return argparse.HelpFormatter(prog, width=HELP_WIDTH)

    module, handler = handler_of(name)
    parser = Parser(prog=f"rt {name}", description=COMMANDS[name].summary, formatter_class=formatter)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    getattr(module, f"args_{name.replace('-', '_')}")(parser)
    return parser, handler


def bare_args(name: str, given: list[str], json_out: bool) -> SimpleNamespace | None:
    """A `bare` command's arguments read without argparse, when `given` holds exactly its values and at most
    `--json`; None for any other form (an option, a value starting with `-`, a value too many or too few),
    which argparse then reads and rejects or accepts as ever."""
    fields = COMMANDS[name].bare
    if fields is None:
        return None
    values = [a for a in given if a != "--json"]
    if len(values) != len(fields) or any(v.startswith("-") for v in values):
        return None
    return SimpleNamespace(json=json_out, **dict(zip(fields, values)))


def handler_of(name: str):
    """The command's module and its `cmd_<name>` handler."""
    module = importlib.import_module(COMMANDS[name].module)
    return module, getattr(module, f"cmd_{name.replace('-', '_')}")


def overview() -> str:
    lines = [f"rt {__version__}: task runner for coding agents", "", "usage: rt <command> [options] [--json]", ""]
    groups: dict[str, list[str]] = {}
    for name, cmd in COMMANDS.items():
        groups.setdefault(cmd.group, []).append(f"  {name:<10} {cmd.summary}")
    for group, rows in groups.items():
        lines += [f"{group}:"] + rows
    lines += ["", "`rt <command> --help` shows a command's options."]
    return "\n".join(lines)


def main(argv: list[str] | None = None, kept=None) -> int:
    """Run one command line; `kept` is a long-lived process's `index.Kept` (`rt mcp`, the hook server)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):  # not when a test captures output
            stream.reconfigure(errors="backslashreplace")
    json_out = "--json" in argv
    ctx = Ctx(json_out)
    ctx.kept = kept
    try:
        if not argv or argv[0] in ("-h", "--help"):
            _out(overview())
            return ExitCode.OK if argv else ExitCode.USAGE
        if argv[0] == "--version":
            _out(f"rt {__version__}")
            return ExitCode.OK
        name = argv[0]
        if name not in COMMANDS:
            raise UsageError(f"unknown command {name!r}; `rt --help` lists the commands")
        if COMMANDS[name].reads_index and kept is None:   # git checks the index is current while Python loads the
            from rt.index.freshness import Probe             # rest; a kept index's watcher mostly needs no git at all
            ctx.probe = Probe(ctx.repo)
        args = bare_args(name, argv[1:], json_out)
        if args is not None:
            handler = handler_of(name)[1]
        else:
            parser, handler = build_parser(name)
            args = parser.parse_args(argv[1:])
        result = call(handler, ctx, args)
    except RtError as e:
        return _fail(json_out, str(e), e.code)
    except KeyboardInterrupt:
        return _fail(json_out, "interrupted", ExitCode.USAGE)
    except BrokenPipeError:   # argparse's --help, written before any result
        _gone()
        return ExitCode.OK
    except Exception as e:  # a bug: one line, and the traceback only on request
        if os.environ.get("RT_DEBUG"):
            raise
        return _fail(json_out, f"internal error: {type(e).__name__}: {e} (rerun with RT_DEBUG=1 for a traceback)",
                     ExitCode.INTERNAL)
    finally:
        if ctx.probe:   # not collected: the command failed first, or never needed the index
            ctx.probe.discard()
    if json_out:
        _out(json.dumps(result.data, sort_keys=True, ensure_ascii=False))
    elif result.text:
        _out(result.text)
    return int(result.code)


def served(raw: str, root, kept) -> tuple[str, str, int] | None:
    """A command line sent to the hook server (`hookserver.ask`): (stdout, stderr, exit code) as `main` gives
    them in the caller's folder, or None (the caller runs it) for a command the server does not answer or a
    folder whose repository is not the server's."""
    import contextlib
    import io
    from rt.claude.hookserver import SERVED
    request = json.loads(raw)
    argv, cwd = request.get("argv"), request.get("cwd")
    if not (isinstance(argv, list) and argv and argv[0] in SERVED and all(isinstance(a, str) for a in argv)
            and isinstance(cwd, str) and os.path.isdir(cwd)) or find_repo(cwd).root != root:
        return None
    out, err = io.StringIO(), io.StringIO()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv, kept)
    finally:
        os.chdir(root)
    return out.getvalue(), err.getvalue(), code


def call(handler, ctx, args) -> Result:
    """Run a command's handler; asked again where the index was replaced under it or damaged (`index.retried`)."""
    try:
        return handler(ctx, args)
    except IndexDamaged as e:
        from rt.index.index import retried
        return retried(ctx, lambda: handler(ctx, args), e)


def _out(text: str) -> None:
    """Print to stdout; a reader that stopped reading (`rt find x | head -1`) is no error of rt's."""
    try:
        _print(text, sys.stdout)
    except BrokenPipeError:
        _gone()


def _print(text: str, stream) -> None:
    """`text` and a line break on `stream`; where its encoding lacks a character (LC_ALL=C and a name's letters),
    that character escaped instead of an error."""
    try:
        print(text, file=stream)
    except UnicodeEncodeError:
        stream.buffer.write(text.encode(stream.encoding or "utf-8", "backslashreplace") + b"\n")
    stream.flush()


def _gone() -> None:
    """The reader of stdout has gone: what is left unflushed would fail again at exit, so point stdout at nothing."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _fail(json_out: bool, message: str, code: int) -> int:
    if json_out:
        _out(json.dumps({"error": message, "exit": int(code)}, sort_keys=True))
    _print(f"rt: error: {message}", sys.stderr)
    return int(code)
