"""A scripted OpenAI-compatible chat endpoint on 127.0.0.1 (stdlib `http.server`) for `rt agent`'s tests and
bench: it plays the planner and the executor from a script, and keeps every request it was sent.

The planner's calls take the next answer of `planner`; an executor call takes the next answer of its task
(the task id its prompt names), so the order in which parallel calls arrive does not matter. An answer is
a string, `Status(code, body)` for an HTTP error, or `Slow(seconds, answer)`; `delay` slows every answer
(a model's generation time, for the bench), and `spans` keeps when each request came and was answered.
"""
from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from rt.agent import planner


@dataclass
class Status:
    code: int
    body: str = "the scripted server fails here"


@dataclass
class Slow:
    seconds: float
    answer: object = ""


def plan(*tasks: tuple) -> str:
    """A planner answer: (id, file, action_type, task, depends_on) per task."""
    return json.dumps({"tasks": [{"id": i, "file": f, "action_type": a, "task": t, "depends_on": d}
                                 for i, f, a, t, d in tasks]})


def edit(search: str, replace: str) -> str:
    return f"<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def who(body: dict) -> str:
    """Whom a request is for: "planner", or the id of the task an executor call names."""
    messages = body["messages"]
    if messages[0]["content"] == planner.SYSTEM:
        return "planner"
    return re.match(r"## Task (\S+): ", messages[-1]["content"]).group(1)


class FakeEndpoint:
    def __init__(self, planner_answers=(), tasks: dict | None = None, delay: float = 0.0):
        self.planner = list(planner_answers)
        self.tasks = {str(k): list(v) for k, v in (tasks or {}).items()}
        self.delay = delay
        self.requests: list[tuple[str, dict]] = []   # (who: "planner" or the task id, the request body)
        self.spans: list[tuple[str, float, float]] = []   # (who, arrived, answered), perf_counter seconds
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                arrived = time.perf_counter()
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                item = fake.next(body, self.path, self.headers.get("Authorization"))
                try:
                    self._answer(body, item)
                finally:
                    with fake.lock:
                        fake.spans.append((who(body), arrived, time.perf_counter()))

            def _answer(self, body: dict, item) -> None:
                while isinstance(item, Slow):
                    time.sleep(item.seconds)
                    item = item.answer
                if fake.delay:
                    time.sleep(fake.delay)
                if isinstance(item, Status):
                    self._send(item.code, json.dumps({"error": {"message": item.body}}).encode())
                    return
                text = "".join(m["content"] for m in body["messages"])
                self._send(200, json.dumps({
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": item}, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": len(item) // 4}}).encode())

            def _send(self, code: int, data: bytes) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, address: None   # a client that gave up on a slow answer
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def next(self, body: dict, path: str, auth: str | None):
        name = who(body)
        queue = self.planner if name == "planner" else self.tasks.setdefault(name, [])
        with self.lock:
            self.requests.append((name, body | {"path": path, "auth": auth}))
            return queue.pop(0) if queue else Status(500, f"the script has no more answers for {name}")

    def of(self, who: str) -> list[dict]:
        return [body for w, body in self.requests if w == who]

    def __enter__(self) -> FakeEndpoint:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
