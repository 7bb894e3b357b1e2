"""A fake OpenAI-compatible chat-completions server on 127.0.0.1 for the responder and backend tests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

KEY_ENV = "GRAPHAUDIT_TEST_LLM_KEY"
KEY = "sk-test-Very-Secret-0123456789"
Scripted = tuple[int, object, dict[str, str], float]
"""One answer: HTTP status, body (JSON value, text, bytes or a function of the request headers), headers, delay."""


class FakeServer:
    """Answers POST /v1/chat/completions from a script of (status, body, headers, delay_s), then with
    ``answer(request body)`` (by default a success that echoes the prompt); records every request's path,
    headers, JSON body and arrival time (``time.monotonic``). A body may be a function of the request headers."""

    def __init__(self) -> None:
        self.script: list[Scripted] = []
        self.requests: list[dict] = []
        self.answer: Callable[[dict], Scripted] = lambda body: (200, completion(body), {}, 0.0)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                arrival = time.monotonic()
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body, "at": arrival})
                status, payload, headers, delay = server.script.pop(0) if server.script else server.answer(body)
                time.sleep(delay)
                data = encode(payload(self.headers) if callable(payload) else payload)
                try:
                    self.send_response(status)
                    for name, value in {"Content-Type": "application/json", **headers}.items():
                        self.send_header(name, value)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out before this (deliberately late) answer

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def __enter__(self) -> FakeServer:
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def encode(payload: object) -> bytes:
    if isinstance(payload, str):
        return payload.encode()
    return payload if isinstance(payload, bytes) else json.dumps(payload).encode()


def completion(body: dict, finish_reason: str | None = "stop", **message: object) -> dict:
    """A chat completion echoing the prompt (``message`` overrides fields of the choice's message)."""
    prompt = body["messages"][-1]["content"]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1700000000,
        "model": body["model"],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": f"answer to {prompt}", **message},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }
