"""`rt help`: one command's full usage, or the commands ranked for what you want to do.

The agent's skill documents a few commands in full and only names the rest; this is how it finds
the others. The search ranks whatever is in `COMMANDS` (BM25 over each command's name, group,
summary and option help), so commands added later are found without touching this file.
"""
from __future__ import annotations

import argparse

from rt.bm25 import BM25, tokens
from rt.cli import COMMANDS, build_parser, overview
from rt.core import NotFoundError, Result, UsageError, closest_paths

WIDTH = 100
"""Fixed line width for usage text, so the output does not depend on the terminal."""

TOP = 5


def args_help(p: argparse.ArgumentParser) -> None:
    p.add_argument("command", nargs="*", help="print this command's full usage; other words search the commands")
    p.add_argument("--search", metavar="WORDS", help="rank the commands for what you want to do, in your words")


def usage(name: str) -> str:
    parser, _ = build_parser(name)
    parser.formatter_class = lambda prog: argparse.HelpFormatter(prog, width=WIDTH)
    return parser.format_help().rstrip("\n")


def _stem(word: str) -> str:
    """Fold plural and verb endings so `changed files` meets `changes` and `files`."""
    for end in ("ing", "ed", "es", "s"):
        if word.endswith(end) and len(word) - len(end) >= 3:
            return word[: -len(end)]
    return word


SYNONYMS = {
    "call": "use", "caller": "use", "usage": "use", "function": "definition", "class": "definition",
    "method": "definition", "defined": "declared", "define": "declared", "repo": "repository",
    "project": "repository", "lint": "diagnostic", "error": "diagnostic", "warning": "diagnostic",
    "modified": "change", "search": "find", "grep": "find", "locate": "find where", "overview": "glance",
    "structure": "folder",
}
"""An agent's everyday words -> the words the command summaries use; the query is expanded, never replaced."""


def stemmed(text: str) -> list[str]:
    """The words of `text`, stemmed as the search compares them."""
    return [_stem(t) for t in tokens(text)]


def query_words(text: str) -> list[str]:
    """A search's words, stemmed, with the synonyms of each added."""
    terms = stemmed(text)
    return terms + [w for t in terms for w in stemmed(SYNONYMS.get(t, ""))]


def _document(name: str) -> list[str]:
    cmd = COMMANDS[name]
    try:
        parser, _ = build_parser(name)
    except (ImportError, AttributeError):  # a command whose module is broken is still found by its summary
        parser = argparse.ArgumentParser()
    helps = [a.help for a in parser._actions if a.help and a.help not in (argparse.SUPPRESS, "machine-readable output")]
    # the name and summary count twice: they say what the command is for, options only how
    return stemmed(" ".join([name, name, cmd.group, cmd.summary, cmd.summary, *helps]))


def search(query: str) -> list[tuple[str, float]]:
    """(command, score) best first; ties keep the table's order."""
    names = list(COMMANDS)
    ranked = BM25([_document(n) for n in names]).rank(query_words(query))
    return [(names[i], s) for i, s in ranked]


def cmd_help(ctx, args) -> Result:
    name, query = " ".join(args.command), args.search
    if name and query is None and not (len(args.command) == 1 and name in COMMANDS):
        # not a command's name: what the user wants to do, unless it is a command's name mistyped
        near = closest_paths(name, list(COMMANDS)) if len(args.command) == 1 else []
        if near:
            raise UsageError(f"unknown command {name!r}; closest: {', '.join(near)}; `rt help` lists every command")
        name, query = "", name
    if name and query:
        raise UsageError("give a command name or --search, not both: rt help verify, rt help --search \"run the tests\"")
    if query is not None:
        if not tokens(query):
            raise UsageError("--search needs words: rt help --search \"what changed since the start\"")
        hits = search(query)[:TOP]
        if not hits:
            raise NotFoundError(f"no command's description matches {query!r}; this does not mean rt cannot do it: "
                                f"try other words (what you want to find, change or check), or `rt help` for every command")
        rows = [f"{n:<10} {COMMANDS[n].summary}" for n, _ in hits]
        text = "\n".join(rows + ["", f"`rt help {hits[0][0]}` prints a command's full usage."])
        return Result(text, {"query": query, "results": [
            {"command": n, "summary": COMMANDS[n].summary, "score": round(s, 4)} for n, s in hits]})
    if name:
        return Result(usage(name), {"command": name, "group": COMMANDS[name].group,
                                    "summary": COMMANDS[name].summary, "usage": usage(name)})
    return Result(overview(), {"commands": [{"command": n, "group": c.group, "summary": c.summary}
                                            for n, c in COMMANDS.items()]})
