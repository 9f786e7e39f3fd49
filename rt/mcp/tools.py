"""The tools `rt mcp` serves: each one is an rt command, run by that command's own handler.

A tool's description is written for a model choosing among tools (short, distinct, byte-stable); its
input schema is read from the command's argparse parser, so schema and command never drift apart. A
call's arguments are checked against the schema, turned into the command's argument list and parsed
by that parser: the handler gets what it would get from the command line, and its text is the answer.
Options that are the user's decision are not offered (`start --force`), and the gates the Bash guard
puts to the user (`rt plan` over an approved scope) are refused here with the reason.
"""
from __future__ import annotations

import argparse
from collections import namedtuple
from functools import cache

from rt.bm25 import BM25, tokens
from rt.cli import build_parser, call
from rt.core import Result, StateError, UsageError, to_rel
from rt.help import query_words, stemmed

Tool = namedtuple("Tool", "name command description params")
"""An MCP tool: its name, the rt command it runs (None: served here), what a model reads to choose it,
and the command's argument destinations it offers, in the parser's order."""

TOOLS = (
    Tool("find", "find", "Where a text the user sees lives: a label or message, part of a path, a string in "
                         "code. Follows a translation to its key and to the code using the key.", ("text",)),
    Tool("symbol", "symbol", "Where a name is declared: file, line range, kind and signature. Class.method "
                             "narrows.", ("name",)),
    Tool("refs", "refs", "Every file that uses an identifier (its callers), with line numbers; the defining and "
                         "importing files first, 20 files shown.", ("name",)),
    Tool("slice", "slice", "Read part of a file: a line range (lines) or one definition (symbol), long lines cut. "
                           "Cheaper than reading the whole file.", ("file", "lines", "symbol", "budget")),
    Tool("outline", "outline", "A file's definitions (classes, functions, methods) with their line ranges, to "
                               "choose what to slice.", ("file",)),
    Tool("manifest", "manifest", "The repository at a glance: stack, folders, entry points, and the files that "
                                 "matter for a task.", ("task",)),
    Tool("pack", "pack", "The code most relevant to a task in one capped, labelled pack; budget in tokens.",
         ("task", "path", "budget")),
    Tool("start", "start", "Start a task: snapshot the repository and take the baseline of its checks.",
         ("text", "path", "no_baseline")),
    Tool("status", "status", "Where the current task stands: state, approved scope, steps, last verify, next "
                             "step.", ()),
    Tool("plan", "plan", "Record the active task's approved scope: files to edit, create and delete. Edits "
                         "outside it are blocked.", ("edit", "create", "delete", "note")),
    Tool("step", "step", "Note progress on the active task: a step just done or finished, in a line.", ("note",)),
    Tool("delta", "delta", "Files changed so far, since the task started: a line each with counts; those outside "
                           "the scope flagged.", ()),
    Tool("review", "review", "Unified diff of the files the task changed, against their originals.",
         ("files", "stat")),
    Tool("verify", "verify", "Run the project's checks (tests, linters, type checkers), keep only diagnostics new "
                             "since the baseline, compare the changes with the scope: PASS, FAIL or INCOMPLETE.",
         ("with_", "timeout")),
    Tool("finish", "finish", "Close the verified task and return its final report.", ("incomplete",)),
    Tool("block", "block", "Stop the active task with the reason it cannot go on.", ("reason",)),
    Tool("claim", "claim", "Record something you assert that rt did not measure; the report lists it.", ("text",)),
    Tool("check", "check", "New diagnostics in the given files since the baseline: the quick check after an "
                           "edit.", ("files",)),
    Tool("diff_logs", "diff-logs", "New diagnostics between two saved outputs of one check (files in the "
                                   "repository), with a verdict.",
         ("before", "after", "parser", "before_exit", "after_exit")),
    Tool("search_tool_bm25", None, "Rank these tools for what you want to do, in your words; one line each.",
         ("query",)),
)
"""Every tool, in the fixed order `tools/list` gives them."""

BY_NAME = {t.name: t for t in TOOLS}

SEARCH_QUERY = {"type": "string", "description": "what you want to do, in your words"}
TOP = 5
"""Matches `search_tool_bm25` lists."""

Param = namedtuple("Param", "name dest flag schema required")
"""One argument a tool takes: its property name, the parser's destination and option (None for a
positional), its JSON Schema, and whether it is required."""


@cache
def params(tool: Tool) -> tuple[Param, ...]:
    """The tool's arguments, read from its command's parser, in the parser's order."""
    if tool.command is None:
        return (Param("query", "query", None, SEARCH_QUERY, True),)
    parser, _ = build_parser(tool.command)
    out = []
    for action in parser._actions:
        if action.dest not in tool.params:
            continue
        flag = action.option_strings[-1] if action.option_strings else None
        required = action.required if flag else action.nargs not in ("?", "*")
        out.append(Param(action.dest.rstrip("_"), action.dest, flag, _schema(action), required))
    return tuple(out)


def _schema(action: argparse.Action) -> dict:
    """The JSON Schema of one argparse argument: boolean, integer or string, in an array when it repeats."""
    if action.nargs == 0:
        return {"type": "boolean", "description": action.help}
    integer = action.type is int or getattr(action.type, "__annotations__", {}).get("return") in (int, "int")
    item: dict = {"type": "integer" if integer else "string"}
    if action.choices:
        item["enum"] = sorted(action.choices)
    text = action.help.replace(" (repeatable)", "")
    if action.metavar and not action.metavar.isalpha():   # a format such as A:B says how to write the value
        text += f"; written {action.metavar}"
    many = action.nargs in ("+", "*") or isinstance(action, argparse._AppendAction)
    return {"type": "array", "items": item, "description": text} if many else dict(item, description=text)


def definition(tool: Tool) -> dict:
    """The tool as `tools/list` gives it."""
    ps = params(tool)
    schema: dict = {"type": "object", "properties": {p.name: p.schema for p in ps}}
    required = [p.name for p in ps if p.required]
    if required:
        schema["required"] = required
    return {"name": tool.name, "description": tool.description, "inputSchema": schema}


# ---------------------------------------------------------------- a call

def run(tool: Tool, ctx, arguments: dict) -> Result:
    """Run one tool call: arguments checked, parsed by the command's parser, gated, then the handler.
    An RtError is the caller's to report (as a tool error the model can act on)."""
    if tool.command is None:
        return search(_checked(tool, params(tool), arguments)["query"])
    ps = params(tool)
    given = _checked(tool, ps, arguments)
    parser, handler = build_parser(tool.command)
    try:
        args = parser.parse_args(_argv(ps, given))
    except UsageError as e:   # argparse's words, in the tool's: argument names, not options
        message = str(e).removeprefix(f"{parser.prog}: ").rsplit(" (see `", 1)[0]
        for p in sorted((p for p in ps if p.flag), key=lambda p: -len(p.flag)):
            message = message.replace(p.flag, p.name)
        raise UsageError(f"{tool.name}: {message}") from None
    gate = GATES.get(tool.name)
    if gate:
        gate(ctx, args)
    return call(handler, ctx, args)


_TYPES = {"string": str, "integer": int, "boolean": bool}


def _checked(tool: Tool, ps: tuple[Param, ...], arguments: dict) -> dict:
    """The arguments, each of its schema's type; a UsageError naming the first that is not."""
    known = {p.name: p for p in ps}
    for name in arguments:
        if name not in known:
            takes = ", ".join(known) or "no arguments"
            raise UsageError(f"{tool.name}: unknown argument {name!r}; it takes {takes}")
    for p in ps:
        if p.name not in arguments:
            if p.required:
                raise UsageError(f"{tool.name}: missing argument {p.name!r}: {p.schema['description']}")
            continue
        value, schema = arguments[p.name], p.schema
        values = value if schema["type"] == "array" and isinstance(value, list) else [value]
        item = schema.get("items", schema)
        want = _TYPES[item["type"]]
        if (schema["type"] == "array") != isinstance(value, list) or any(
                not isinstance(v, want) or (want is int and isinstance(v, bool)) for v in values):
            what = f"a list of {item['type']}s" if schema["type"] == "array" else f"a {item['type']}".replace("a i", "an i")
            raise UsageError(f"{tool.name}: argument {p.name!r} must be {what}")
        if "enum" in item and any(v not in item["enum"] for v in values):
            raise UsageError(f"{tool.name}: argument {p.name!r} must be one of {', '.join(item['enum'])}")
        if want is str and not all(_text(v) for v in values):
            raise UsageError(f"{tool.name}: argument {p.name!r} holds a lone surrogate (an escape like \\ud800 alone), "
                             f"which is no text")
    return arguments


def _text(value: str) -> bool:
    """Whether a string JSON gave is text: one with a lone surrogate cannot be written to any file."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _argv(ps: tuple[Param, ...], given: dict) -> list[str]:
    """The command-line arguments for these values: options as `--flag=value` (a value may start with a
    dash), positionals after `--`."""
    options: list[str] = []
    positionals: list[str] = []
    for p in ps:
        if p.name not in given:
            continue
        value = given[p.name]
        if p.flag is None:
            positionals += [str(v) for v in value] if isinstance(value, list) else [str(value)]
        elif p.schema["type"] == "boolean":
            options += [p.flag] if value else []
        else:
            options += [f"{p.flag}={v}" for v in (value if isinstance(value, list) else [value])]
    return options + (["--", *positionals] if positionals else [])


# ---------------------------------------------------------------- gates

def _plan_gate(ctx, args) -> None:
    """The Bash guard asks the user before `rt plan` replaces an approved scope; a tool call cannot ask,
    so it is refused, saying whose decision it is."""
    from rt import state
    task = state.active_task(ctx.store, required=False)
    if task is not None and task.get("scope") is not None:
        raise StateError(f"task {task['id']} already has an approved scope; replacing it is the user's decision. "
                         f"Ask the user; if they agree, they run `rt plan ...` (or approve it when you run it through "
                         f"the shell). One more file: ask them to approve `rt scope add F`")


def _logs_inside(ctx, args) -> None:
    """`rt diff-logs` reads any file its user names; through MCP only files inside the repository (named
    as repository paths: the server works from the root)."""
    args.before = to_rel(ctx.repo, args.before)
    args.after = to_rel(ctx.repo, args.after)


GATES = {"plan": _plan_gate, "diff_logs": _logs_inside}


# ---------------------------------------------------------------- search_tool_bm25

def search(query: str) -> Result:
    """The tools ranked for `query` by BM25 over their names, descriptions and arguments, one line each;
    an empty result says so and what to try instead."""
    if not tokens(query):
        raise UsageError("search_tool_bm25: the query has no words; say what you want to do, e.g. \"where is this "
                         "function defined\"")
    ranked = [t for t in TOOLS if t.command is not None]
    docs = [stemmed(" ".join([t.name.replace("_", " ")] * 2 + [t.description] * 2
                             + [p.schema["description"] for p in params(t)])) for t in ranked]
    hits = BM25(docs).rank(query_words(query))[:TOP]
    if not hits:
        names = ", ".join(t.name for t in ranked)
        return Result(f"no tool matches {query!r}. That does not mean rt cannot do it: try other words (what you want "
                      f"to find, read, change or check) or a broader query. The tools: {names}.",
                      {"query": query, "results": []})
    rows = [f"{ranked[i].name}: {ranked[i].description}" for i, _ in hits]
    return Result("\n".join(rows), {"query": query, "results": [
        {"tool": ranked[i].name, "score": round(s, 4)} for i, s in hits]})
