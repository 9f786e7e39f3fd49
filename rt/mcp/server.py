"""`rt mcp`: an MCP server over stdio serving one repository's look-ups and task flow.

The transport is the MCP specification's stdio: JSON-RPC 2.0 messages, one per line, in UTF-8. The
server writes nothing else on stdout (while it serves, file descriptor 1 points at stderr, so a stray
print or a child process cannot break the stream), logs to stderr, and answers requests one at a time,
in order. Notifications are never answered; a response sent to it (rt sends no requests) is ignored.
A line over 10 MiB is refused unread, and every malformed message gets a JSON-RPC error: the server
keeps serving.

The point of a long-lived server is speed: the index stays loaded between calls (`ctx.kept`, see
`rt.index.index.Kept`), while the freshness check still runs on every call, so a look-up sees every
edit made since the last one.

A tool's answer is the text its command prints, and only that. Claude Code shows the model *only* the
`structuredContent` of a result that has one (the text is dropped), and rt's text says what the model
needs in fewer bytes than the `--json` data (bench/RESULTS.md, "MCP server"). `--structured` adds that
data as `structuredContent`, for clients that hand results to programs rather than to a model.
"""
from __future__ import annotations

import json
import os
import re
import sys
import traceback

from rt import __version__, snapshot
from rt.cli import Ctx
from rt.core import Repo, Result, RtError, UsageError, find_repo
from rt.index.index import Kept
from rt.mcp import tools

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
"""The MCP revisions of the `initialize` handshake this server speaks, newest first. A client asking for
another gets the newest and decides (the specification's negotiation)."""

MAX_REQUEST = 10 * 2 ** 20
"""A line longer than this (10 MiB) is refused without being read into memory whole."""

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603

INSTRUCTIONS = ("rt answers look-ups instead of whole-file reads (symbol, refs, outline, slice, find) and keeps the "
                "task's state (start, plan, step, verify, finish); search_tool_bm25 finds a tool. A result naming "
                "`rt <command>` means the tool of that name.")
"""Sent once in `initialize`; Claude Code puts it in the system prompt of every request."""


class RpcError(Exception):
    """A request the protocol refuses: answered with a JSON-RPC error."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


def _log(text: str) -> None:
    print(f"rt mcp: {text}", file=sys.stderr, flush=True)


class Server:
    """One repository served to one client; holds the index between calls."""

    def __init__(self, repo: Repo, structured: bool = False):
        self.repo = repo
        self.structured = structured
        self.kept = Kept(watch=True)
        snapshot.WATCH = True   # this process stays up: its scans may take an unchanged tree's listing from a watcher
        self.tool_list = [tools.definition(t) for t in tools.TOOLS]

    # ------------------------------------------------------------ the stream

    def serve(self, inp, out) -> None:
        """Answer the messages read from `inp` (binary, one per line) on `out` (binary) until `inp` ends."""
        while True:
            line = inp.readline(MAX_REQUEST + 1)
            if not line:
                return
            if len(line) > MAX_REQUEST and not line.endswith(b"\n"):
                tail = _skip_line(inp)
                reply = _error(_salvaged_id(line[:256], tail), INVALID_REQUEST,
                               f"request over {MAX_REQUEST // 2 ** 20} MiB, not read; send smaller arguments")
            elif not line.strip():
                continue
            else:
                reply = self.answer(line)
            if reply is not None:
                out.write(json.dumps(reply, ensure_ascii=True, separators=(",", ":")).encode() + b"\n")
                out.flush()

    def answer(self, line: bytes) -> dict | None:
        """The reply to one line: a result, an error, or None for a notification or a response."""
        try:
            msg = json.loads(line, parse_constant=_no_constant)
        except (ValueError, RecursionError):   # not JSON (nor UTF-8, nor NaN), or nested past what Python reads
            return _error(None, PARSE_ERROR, "parse error: the line is not JSON, or is nested too deep to read; send "
                                             "one JSON-RPC message per line")
        if isinstance(msg, list):
            return _error(None, INVALID_REQUEST, "batches are not supported; send one JSON-RPC message per line")
        if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
            return _error(None, INVALID_REQUEST, 'not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0")')
        if "id" not in msg:
            return None   # a notification: never answered, whatever it is
        mid = msg["id"]
        method = msg.get("method")
        if method is None and ("result" in msg or "error" in msg):
            return None   # a response (a null id included); rt sends no requests
        if not isinstance(mid, (str, int)) or isinstance(mid, bool):
            return _error(None, INVALID_REQUEST, "the id must be a string or an integer")
        if not isinstance(method, str):
            return _error(mid, INVALID_REQUEST, "the request has no method")
        params = msg.get("params")
        if params is None:
            params = {}
        if not isinstance(params, dict):
            return _error(mid, INVALID_PARAMS, "params must be an object")
        handler = METHODS.get(method)
        if handler is None:
            return _error(mid, METHOD_NOT_FOUND, f"method not found: {method}")
        try:
            return {"jsonrpc": "2.0", "id": mid, "result": handler(self, params)}
        except RpcError as e:
            return _error(mid, e.code, str(e))
        except Exception as e:   # a bug in rt: the client gets one line, stderr the traceback
            traceback.print_exc(file=sys.stderr)
            return _error(mid, INTERNAL_ERROR, f"internal error: {type(e).__name__}: {e}")

    # ------------------------------------------------------------ methods

    def initialize(self, params: dict) -> dict:
        asked = params.get("protocolVersion")
        if not isinstance(asked, str):
            raise RpcError(INVALID_PARAMS, "initialize needs protocolVersion (a string)")
        return {"protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "rt", "version": __version__},
                "instructions": INSTRUCTIONS}

    def ping(self, params: dict) -> dict:
        return {}

    def list_tools(self, params: dict) -> dict:
        return {"tools": self.tool_list}

    def call_tool(self, params: dict) -> dict:
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str):
            raise RpcError(INVALID_PARAMS, "tools/call needs name (a string)")
        tool = tools.BY_NAME.get(name)
        if tool is None:
            raise RpcError(INVALID_PARAMS, f"unknown tool: {name}; tools/list names the tools")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "tools/call arguments must be an object")
        ctx = Ctx(self.structured)   # a handler may skip the data nobody asked for (`rt pack`'s estimate)
        ctx.repo, ctx.kept = self.repo, self.kept
        try:
            result = tools.run(tool, ctx, arguments)
        except RtError as e:   # the model can act on it: a tool error, not a protocol error
            return {"content": [{"type": "text", "text": f"rt: error: {e}"}], "isError": True}
        except Exception as e:
            traceback.print_exc(file=sys.stderr)
            return {"content": [{"type": "text", "text": f"rt: error: internal error: {type(e).__name__}: {e}"}],
                    "isError": True}
        reply: dict = {"content": [{"type": "text", "text": result.text or "(no output)"}]}
        if self.structured:
            reply["structuredContent"] = result.data
        return reply


METHODS = {"initialize": Server.initialize, "ping": Server.ping, "tools/list": Server.list_tools,
           "tools/call": Server.call_tool}


def _no_constant(name: str):
    """`NaN`, `Infinity` and `-Infinity`, which Python's reader takes and JSON has not, refused as JSON they are not."""
    raise ValueError(f"{name} is not JSON")


def _error(mid, code: int, message: str) -> dict:
    return {"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": message}}


def _skip_line(inp) -> bytes:
    """Read past the rest of an over-long line, a chunk at a time; its last bytes."""
    tail = b""
    while True:
        chunk = inp.readline(2 ** 20)
        tail = (tail + chunk)[-256:]
        if not chunk or chunk.endswith(b"\n"):
            return tail


_ID_FIRST = re.compile(rb'^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"[^"\\]*")\s*,')
_ID_LAST = re.compile(rb',\s*"id"\s*:\s*(-?\d+|"[^"\\]*")\s*\}\s*$')


def _salvaged_id(head: bytes, tail: bytes):
    """The id of a request too long to read, when it stands first (or after "jsonrpc") or last in the
    object, where it can only be the request's own; else None. The client's call then fails at once
    instead of waiting for an answer that never comes."""
    m = _ID_FIRST.match(head) or _ID_LAST.search(tail)
    return json.loads(m.group(1)) if m else None


# ---------------------------------------------------------------- rt mcp

def args_mcp(p) -> None:
    p.add_argument("--repo", metavar="DIR", help="the repository to serve (default: the current folder's)")
    p.add_argument("--structured", action="store_true",
                   help="also give each answer's --json data as structuredContent (Claude Code then shows the model "
                        "only that JSON, not the text)")
    p.add_argument("--print-tools-size", action="store_true",
                   help="print the bytes and estimated tokens the tool list adds to a request, and exit")


def cmd_mcp(ctx, args) -> Result:
    if args.print_tools_size:
        return tools_size()
    if args.repo is not None and not os.path.isdir(args.repo):
        raise UsageError(f"--repo {args.repo}: no such folder")
    repo = find_repo(args.repo)
    os.chdir(repo.root)   # a relative path in a tool call is a repository path
    inp, out = _claim_stdio()
    _log(f"serving {repo.root} ({len(tools.TOOLS)} tools, rt {__version__})")
    Server(repo, args.structured).serve(inp, out)
    return Result("")


def _claim_stdio():
    """The protocol's streams (the real stdin and stdout), with file descriptor 0 then reading nothing and
    1 writing to stderr: what else this process or its children print cannot reach the client."""
    inp = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    sys.stdout.flush()
    os.dup2(2, 1)
    return inp, out


def tools_size() -> Result:
    """What the tool list costs a client that sends every schema in every request, and what it costs in
    Claude Code, which sends only the names until a tool is loaded (ToolSearch)."""
    from rt.budget import estimate
    defs = [tools.definition(t) for t in tools.TOOLS]
    whole = json.dumps(defs, separators=(",", ":"))
    names = "\n".join(f"mcp__rt__{t.name}" for t in tools.TOOLS)
    each = {d["name"]: len(json.dumps(d, separators=(",", ":")).encode()) for d in defs}
    lines = [f"tools/list: {len(defs)} tools, {len(whole.encode()):,} bytes of JSON, about {estimate(whole):,} tokens "
             f"(rt's estimate), sent with every request by clients that load every schema",
             f"Claude Code defers MCP tools: its requests name them only ({len(names.encode()):,} bytes, about "
             f"{estimate(names):,} tokens) until one is loaded",
             "bytes per tool: " + ", ".join(f"{n} {b:,}" for n, b in each.items())]
    return Result("\n".join(lines), {"tools": len(defs), "bytes": len(whole.encode()), "tokens": estimate(whole),
                                     "deferred_bytes": len(names.encode()), "deferred_tokens": estimate(names),
                                     "per_tool": each})
