"""An OpenAI-compatible HTTP server on 127.0.0.1 with scripted replies, for tests.

The openai SDK talks to it over real HTTP (no mocks), so retries, timeouts,
`Retry-After` handling and connection errors are the SDK's own behaviour.

Scripting API
-------------
    server = OpenAIServer().start()        # or the `openai_server` pytest fixture
    server.url                             # "http://127.0.0.1:PORT/v1" -> OPENAI_BASE_URL / base_url
    server.root                            # "http://127.0.0.1:PORT" (Azure clients take the root)

Each POST to `.../chat/completions` (OpenAI `/v1/chat/completions` or Azure
`/openai/deployments/<name>/chat/completions`) consumes the next scripted step, in order:

    server.add_json({"verdict": "skim", ...})      # a reply whose message content is json.dumps(obj)
    server.add_reply("any text", finish_reason="length", refusal=None,
                     prompt_tokens=None, completion_tokens=None, model=None, delay=0.0)
    server.add_refusal("I can't help with that.")   # message.refusal set, content null
    server.add_error(429, "slow down", headers={"Retry-After": "1"})   # any status, OpenAI error body
    server.add_error(500)
    server.add_error(413, "too large", code="tokens_limit_reached")   # `code` in the error body
    server.add_reset()                               # read the request, then RST the connection
    server.add_stall()                               # read the request, never answer (until stop())
    server.add_trickle(interval=1.0)                 # send the headers, then one body byte per interval
    server.add_raw(200, "<html>login</html>")        # exactly this body (content_type= to change the type)
    server.add_reply(..., delay=5.0)                 # answer late: a client timeout
    server.add_error(400, ..., times=3)              # any `add_*` takes times=N to queue N copies

Persistent rules (checked before the queue, consume nothing):

    server.reject_response_format("json_schema")   # 400 for requests with that response_format type
                                                   # ("json_object" too; call once per type)

When the queue is empty a request gets a 500 "no scripted reply left", with
`x-should-retry: false`, so an unexpected extra call fails loudly instead of hanging, unless

    server.set_default_json({"verdict": "skim", ...})  # the reply to every request the queue does not script

GitHub Models stand-in (github_models_limits.py has the rules, answers and headers):

    limiter = server.github_models(Limits(), per_model={...}, clock=ManualClock(), latency=0.2)
    # every chat request is first counted whole (messages + schema) and admitted or refused with GitHub's
    # 413 tokens_limit_reached or 429 UserConcurrentRequests / UserByMinute / UserByModelByDay;
    # limiter.refusals, limiter.admitted, limiter.largest_request, limiter.clock.advance(...)

Records, for assertions:

    server.requests        # every request: RecordedRequest(method, path, headers, body, time)
    server.chat_requests   # only the chat-completion ones
    req.json               # the parsed JSON body (dict) or None
    req.headers            # lower-cased header names

`GET /v1/models` lists one model (`test-model`). Usage numbers default to
len(text) // 4 of the prompt and of the reply, so cost figures are non-zero.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from servers.github_models_limits import GitHubModelsLimiter, Limits, Ticket


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    time: float

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None


@dataclass
class _Step:
    kind: str  # "reply" | "error" | "reset" | "raw" | "stall" | "trickle"
    content: str | None = None
    finish_reason: str = "stop"
    refusal: str | None = None
    status: int = 200
    message: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    model: str | None = None
    code: str | None = None


class OpenAIServer:
    """A scripted OpenAI-compatible server. Thread-safe; one instance per test."""

    def __init__(self) -> None:
        self._steps: deque[_Step] = deque()
        self._rejected_formats: set[str] = set()
        self._default: _Step | None = None
        self.limiter: GitHubModelsLimiter | None = None
        self._lock = threading.Lock()
        self._stopping = threading.Event()  # releases stalled handlers
        self.requests: list[RecordedRequest] = []
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> OpenAIServer:
        handler = _make_handler(self)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        # a short poll interval: shutdown() waits for it, once per test
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="openai-test-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    @property
    def root(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def url(self) -> str:
        return self.root + "/v1"

    # ------------------------------------------------------------------ scripting

    def _queue(self, step: _Step, times: int) -> None:
        with self._lock:
            for _ in range(times):
                self._steps.append(step)

    def add_reply(
        self,
        content: str | None,
        *,
        finish_reason: str = "stop",
        refusal: str | None = None,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        model: str | None = None,
        delay: float = 0.0,
        headers: dict[str, str] | None = None,
        times: int = 1,
    ) -> None:
        self._queue(
            _Step(
                kind="reply",
                content=content,
                finish_reason=finish_reason,
                refusal=refusal,
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                model=model,
                delay=delay,
                headers=dict(headers or {}),
            ),
            times,
        )

    def add_json(self, obj: Any, *, times: int = 1, **kwargs: Any) -> None:
        self.add_reply(json.dumps(obj, ensure_ascii=False), times=times, **kwargs)

    def add_refusal(self, text: str = "I'm sorry, I can't help with that.", *, times: int = 1) -> None:
        self.add_reply(None, refusal=text, times=times)

    def add_error(
        self,
        status: int,
        message: str = "",
        *,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
        code: str | None = None,
        times: int = 1,
    ) -> None:
        self._queue(
            _Step(kind="error", status=status, message=message or f"scripted error {status}",
                  headers=dict(headers or {}), delay=delay, code=code),
            times,
        )

    def add_reset(self, *, delay: float = 0.0, times: int = 1) -> None:
        self._queue(_Step(kind="reset", delay=delay), times)

    def add_stall(self, *, times: int = 1) -> None:
        """Accept the request and never answer: a stuck endpoint (released when the server stops)."""
        self._queue(_Step(kind="stall"), times)

    def add_trickle(self, *, interval: float = 1.0, times: int = 1) -> None:
        """Send a 200 header at once, then one byte of body per `interval`: no read ever times out."""
        self._queue(_Step(kind="trickle", delay=interval), times)

    def add_raw(self, status: int, body: str | bytes, *, content_type: str = "text/html; charset=utf-8",
                times: int = 1) -> None:
        """Answer with exactly this body: a proxy's login page, a truncated or non-OpenAI JSON document."""
        data = body.decode("latin-1") if isinstance(body, bytes) else body
        self._queue(_Step(kind="raw", status=status, content=data, headers={"Content-Type": content_type}), times)

    def github_models(self, limits: Limits | None = None, *, per_model: dict[str, Limits] | None = None,
                      clock: Any = None, latency: float = 0.0) -> GitHubModelsLimiter:
        """Enforce GitHub Models' limits on every chat request (see github_models_limits.py)."""
        self.limiter = GitHubModelsLimiter(limits or Limits(), per_model,
                                           clock if clock is not None else time.monotonic, latency)
        return self.limiter

    def set_default_json(self, obj: Any) -> None:
        """Answer every request the queue does not script with this JSON object (a long replay)."""
        with self._lock:
            self._default = _Step(kind="reply", content=json.dumps(obj, ensure_ascii=False))

    def reject_response_format(self, kind: str) -> None:
        with self._lock:
            self._rejected_formats.add(kind)

    def clear(self) -> None:
        with self._lock:
            self._steps.clear()
            self._rejected_formats.clear()
            self.requests.clear()

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._steps)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.split("?")[0].endswith("/chat/completions")]

    # ------------------------------------------------------------------ internals

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)

    def _next_step(self, body: Any) -> _Step:
        with self._lock:
            fmt = body.get("response_format") if isinstance(body, dict) else None
            kind = fmt.get("type") if isinstance(fmt, dict) else None
            if kind in self._rejected_formats:
                return _Step(
                    kind="error",
                    status=400,
                    message=f"response_format type '{kind}' is not supported by this server",
                    headers={"x-should-retry": "false"},
                )
            if not self._steps:
                if self._default is not None:
                    return self._default
                return _Step(kind="error", status=500, message="no scripted reply left",
                             headers={"x-should-retry": "false"})
            return self._steps.popleft()


def _completion(step: _Step, body: Any, counted: int | None = None) -> dict[str, Any]:
    messages = body.get("messages", []) if isinstance(body, dict) else []
    prompt_chars = sum(len(str(m.get("content") or "")) for m in messages if isinstance(m, dict))
    reply_chars = len(step.content or step.refusal or "")
    model = step.model or (body.get("model") if isinstance(body, dict) else None) or "test-model"
    estimate = counted if counted is not None else max(1, prompt_chars // 4)
    prompt_tokens = step.prompt_tokens if step.prompt_tokens is not None else estimate
    completion_tokens = step.completion_tokens if step.completion_tokens is not None else max(1, reply_chars // 4)
    message: dict[str, Any] = {"role": "assistant", "content": step.content}
    if step.refusal is not None:
        message["refusal"] = step.refusal
    return {
        "id": f"chatcmpl-test-{int(time.time() * 1000)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": step.finish_reason, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _make_handler(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep pytest output clean

        def _read_body(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _send_json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(obj).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout); nothing to answer

        def _record(self, body: bytes) -> RecordedRequest:
            req = RecordedRequest(
                method=self.command,
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body,
                time=time.monotonic(),
            )
            server._record(req)
            return req

        def do_GET(self) -> None:
            self._record(b"")
            if self.path.split("?")[0].rstrip("/").endswith("/models"):
                self._send_json(200, {"object": "list", "data": [
                    {"id": "test-model", "object": "model", "created": 0, "owned_by": "tests"}]})
            else:
                self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_POST(self) -> None:
            raw = self._read_body()
            req = self._record(raw)
            if not self.path.split("?")[0].endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            body = req.json
            if not isinstance(body, dict):
                self._send_json(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
                return
            limiter = server.limiter
            ticket: Ticket | None = None
            if limiter is not None:
                admitted = limiter.admit(body, req.headers)
                if not isinstance(admitted, Ticket):
                    self._send_json(admitted.status, admitted.body, admitted.headers)
                    return
                ticket = admitted
            try:
                if limiter is not None and limiter.latency:
                    time.sleep(limiter.latency)
                self._answer(body, ticket)
            finally:
                if limiter is not None and ticket is not None:
                    limiter.release(ticket)

        def _answer(self, body: dict[str, Any], ticket: Ticket | None) -> None:
            step = server._next_step(body)
            if step.kind == "stall":
                server._stopping.wait()
                return
            if step.kind == "trickle":
                self._trickle(step.delay)
                return
            if step.delay:
                time.sleep(step.delay)
            if step.kind == "raw":
                self._send_raw(step)
            elif step.kind == "reset":
                self._reset()
            elif step.kind == "error":
                error_type = "rate_limit_error" if step.status == 429 else "invalid_request_error"
                if step.status >= 500:
                    error_type = "server_error"
                self._send_json(step.status, {"error": {"message": step.message, "type": error_type,
                                                        "param": None, "code": step.code}}, step.headers)
            else:
                counted = ticket.prompt_tokens if ticket is not None else None
                self._send_json(200, _completion(step, body, counted), step.headers)

        def _send_raw(self, step: _Step) -> None:
            data = (step.content or "").encode("latin-1", errors="replace")
            try:
                self.send_response(step.status)
                for name, value in step.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _trickle(self, interval: float) -> None:
            try:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "1000000")
                self.end_headers()
                self.wfile.flush()
                while not server._stopping.wait(interval):
                    self.wfile.write(b" ")
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up
            self.close_connection = True

        def _reset(self) -> None:
            # SO_LINGER with a zero timeout makes close() send RST instead of FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()

        def finish(self) -> None:
            try:
                super().finish()
            except OSError:
                pass  # the socket was reset on purpose

    return Handler
