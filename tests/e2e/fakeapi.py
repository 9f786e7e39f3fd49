"""A scripted fake Anthropic Messages API on 127.0.0.1, for driving the real Claude Code client.

Each request that offers tools takes the next scripted turn (a list of content blocks, or a callable
that builds one from the request body); other requests (titles, summaries) and requests after the
script ran out get a short text answer. Every request body is kept: it is what the model saw.
"""
from __future__ import annotations

import itertools
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def tool(name: str, **inp) -> dict:
    return {"type": "tool_use", "name": name, "input": inp}


class FakeAPI:
    """Start with `with FakeAPI(script) as api:`; `api.url` for ANTHROPIC_BASE_URL, `api.requests` after."""

    def __init__(self, script: list, model: str = "claude-fake-1", usage=None):
        self.script = list(script)
        self.model = model
        # (request body, answer blocks) -> the usage an answer reports: fixed, unless a bench prices requests
        self.usage = usage or (lambda body, blocks: {"input_tokens": 100, "output_tokens": 20,
                                                     "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
        self.requests: list[dict] = []  # every body, in arrival order
        self.turns: list[dict] = []     # the bodies that took a scripted turn
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> FakeAPI:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    _ids = itertools.count(1)
    """One count for every instance: a session continued with `--continue` under a new FakeAPI must not
    see a tool_use id again (the client then takes the new call for an interrupted old one)."""

    def next_id(self) -> int:
        with self._lock:
            return next(FakeAPI._ids)

    def answer(self, body: dict) -> list[dict]:
        """The content blocks for one request."""
        with self._lock:
            self.requests.append(body)
            if not body.get("tools") or not self.script:
                return [text("done")]
            self.turns.append(body)
            turn = self.script.pop(0)
        blocks = turn(body) if callable(turn) else turn
        return [dict(b, id=f"toolu_fake_{self.next_id():03d}") if b["type"] == "tool_use" else b for b in blocks]

    def _handler(self):
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # keep test output clean
                pass

            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {}
                if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
                    self._json(200, {"input_tokens": 100})
                    return
                blocks = api.answer(body)
                stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
                msg_id = f"msg_fake_{api.next_id()}"
                usage = api.usage(body, blocks)
                if not body.get("stream"):
                    self._json(200, {"id": msg_id, "type": "message", "role": "assistant", "model": api.model,
                                     "content": blocks, "stop_reason": stop, "stop_sequence": None, "usage": usage})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                self._event("message_start", {"type": "message_start", "message": {
                    "id": msg_id, "type": "message", "role": "assistant", "model": api.model, "content": [],
                    "stop_reason": None, "stop_sequence": None, "usage": dict(usage, output_tokens=1)}})
                for i, b in enumerate(blocks):
                    if b["type"] == "tool_use":
                        start = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
                        delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
                    else:
                        start = {"type": "text", "text": ""}
                        delta = {"type": "text_delta", "text": b["text"]}
                    self._event("content_block_start", {"type": "content_block_start", "index": i,
                                                        "content_block": start})
                    self._event("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})
                    self._event("content_block_stop", {"type": "content_block_stop", "index": i})
                self._event("message_delta", {"type": "message_delta",
                                              "delta": {"stop_reason": stop, "stop_sequence": None},
                                              "usage": {"output_tokens": usage["output_tokens"]}})
                self._event("message_stop", {"type": "message_stop"})
                self.wfile.flush()

            def _event(self, name: str, data: dict) -> None:
                self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())

            def _json(self, code: int, data: dict) -> None:
                raw = json.dumps(data).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        return Handler
