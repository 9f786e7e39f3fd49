"""One chat call to an OpenAI-compatible endpoint (Ollama, llama.cpp's server, LM Studio, vLLM, Groq,
OpenRouter ...), with urllib: no SDK, no streaming, temperature 0.

Every way the endpoint can fail (refused, timed out, an HTTP error, an answer that is not a chat
completion) becomes one `EndpointError` naming the URL and what happened.
"""
from __future__ import annotations

import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from rt.core import ExitCode, RtError

MAX_REPLY = 8 * 2**20
"""The most bytes of one answer read: a chat completion for an 8k-token window is a few kilobytes."""

MESSAGE_OVERHEAD = 4
"""Tokens a chat template adds around each message (role markers), counted in every estimate."""


class EndpointError(RtError):
    """The endpoint failed or gave no usable answer: the run could not be completed (exit 3)."""
    code = ExitCode.INCOMPLETE


@dataclass(frozen=True)
class Reply:
    text: str
    prompt_tokens: int | None       # as the endpoint counted them, when it reports usage
    completion_tokens: int | None


class Client:
    def __init__(self, endpoint: str, key_env: str, timeout: int):
        base = endpoint.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.key = os.environ.get(key_env, "")
        self.timeout = timeout

    def chat(self, model: str, messages: list[dict], max_tokens: int) -> Reply:
        body = json.dumps({"model": model, "messages": messages, "max_tokens": max_tokens, "temperature": 0,
                           "stream": False}).encode()
        headers = {"Content-Type": "application/json"} | ({"Authorization": f"Bearer {self.key}"} if self.key else {})
        request = urllib.request.Request(self.url, body, headers, method="POST")
        deadline = time.monotonic() + self.timeout   # the socket's timeout is per read: an answer trickling in has this
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                raw = b""
                while chunk := response.read1(65536):
                    raw += chunk
                    if len(raw) > MAX_REPLY:
                        raise EndpointError(f"{self.url} answered over {MAX_REPLY // 2**20} MB, no chat completion "
                                            f"this run can use")
                    if time.monotonic() > deadline:
                        raise self._late()
        except urllib.error.HTTPError as e:
            detail = " ".join(e.read(300).decode("utf-8", "replace").split())
            raise EndpointError(f"{self.url} answered HTTP {e.code}" + (f": {detail}" if detail else "")) from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, (TimeoutError, socket.timeout)):
                raise self._late() from None
            raise EndpointError(f"cannot reach {self.url}: {e.reason}") from None
        except (TimeoutError, socket.timeout):
            raise self._late() from None
        except (OSError, http.client.HTTPException) as e:
            raise EndpointError(f"{self.url} broke off the answer: {type(e).__name__}: {e}") from None
        return _reply(self.url, raw)

    def _late(self) -> EndpointError:
        return EndpointError(f"{self.url} did not answer within {self.timeout} s (--timeout S gives it longer)")


def _reply(url: str, raw: bytes) -> Reply:
    try:
        data = json.loads(raw)
        text = data["choices"][0]["message"]["content"]
        if not isinstance(text, str):
            raise TypeError
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        head = " ".join(raw[:200].decode("utf-8", "replace").split())
        raise EndpointError(f"{url} did not answer with a chat completion (got: {head or 'nothing'})") from None
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return Reply(text, _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")))


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
