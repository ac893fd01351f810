"""A loopback OpenAI chat-completions server for tests (test infrastructure, no product code).

``OpenAIServer`` is a threaded ``http.server`` on a free 127.0.0.1 port that speaks enough of the
OpenAI REST protocol that pydantic-ai's real ``OpenAIChatModel`` (through the real ``openai`` SDK and
its HTTP client) works against it unchanged: the model is pointed at ``server.base_url`` exactly as
an operator points ``LLM_BASE_URL`` at Ollama, vLLM or llama.cpp. Nothing is faked above the network
edge, so what these tests see is what the product would send and receive::

    with OpenAIServer() as server:
        server.queue(output({"title": "Dentist"}))        # the model's next answer
        ...run an agent against OpenAIChatModel(..., OpenAIProvider(base_url=server.base_url))...
        server.chat_requests[0].system_prompt              # what the agent sent

Implemented:

- ``POST /v1/chat/completions`` (non-streamed): answers the next queued reply as a ``chat.completion``
  object (``id``, ``created``, ``model`` echoed from the request, ``choices[0].message`` with
  ``content`` and/or ``tool_calls``, ``finish_reason``, ``usage`` with prompt/completion/total tokens).
  pydantic-ai asks for structured output with a tool (``final_result`` by default) whose JSON schema
  is the output type's, and reads the call's ``arguments`` string; ``output()`` answers that way.
- ``GET /v1/models``: the list of model ids in ``models``.
- Faults, queued like any reply: ``malformed()`` (tool-call arguments that are not JSON),
  ``tool_call()`` with a name the agent never offered, ``http_error()`` / ``rate_limited()`` (429 with
  ``Retry-After``; the SDK honours it and retries on its own, as it does a 500), ``delayed()``
  (answer only after a wait, for a client timeout). A request with nothing queued answers 400
  ``no reply queued`` (which the SDK does not retry), so a test that under-queues fails at once.
- ``responder``: a function of each chat request returning its reply, used instead of the queue:
  a reply chosen by reading the request (its prompt, its output tool), which keeps answers right when
  a client asks several questions at once and the order they arrive in is not fixed.
- ``api_key``: when set, requests without ``Authorization: Bearer <api_key>`` answer 401
  ``invalid_api_key`` as OpenAI does. Ollama ignores the header, so by default any key passes.
- ``flavour="ollama"``: replies shaped as Ollama's OpenAI-compatible endpoint shapes them
  (``system_fingerprint: fp_ollama``, no ``finish_reason``, ``content: ""`` beside tool calls, models
  ``owned_by: library``); Ollama serves it at ``http://host:11434/v1``, as this server serves ``/v1``.
- Observation: ``requests`` records every HTTP request (method, path, lower-cased headers, parsed
  JSON body); ``chat_requests`` is the chat-completions ones, with ``messages``, ``system_prompt``
  and ``tools`` (name -> function definition, parameters being the JSON schema sent);
  ``answer_spans`` is when the server was busy with each request (``time.perf_counter()`` at the start
  of handling it, its headers read, and after its answer was written), so a client can tell its own
  time from the server's.

Not implemented: streaming (``stream: true`` answers 400), the Responses API, embeddings, images,
audio, logprobs, ``n`` > 1, token counting (usage is what each reply says, 50 in / 10 out by default).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "Completion",
    "Delayed",
    "HttpError",
    "OpenAIServer",
    "RecordedRequest",
    "Responder",
    "ToolCall",
    "delayed",
    "http_error",
    "malformed",
    "output",
    "rate_limited",
    "text",
    "tool_call",
]

Flavour = Literal["openai", "ollama"]
# An HTTP answer: status, extra headers, JSON body.
_Answer = tuple[int, tuple[tuple[str, str], ...], dict[str, Any]]


# --------------------------------------------------------------------------- replies


@dataclass(frozen=True)
class ToolCall:
    """One function call in an answer; ``arguments`` is raw text, so it can be invalid JSON."""

    name: str
    arguments: str


@dataclass(frozen=True)
class Completion:
    """A chat completion: text, tool calls or both, and the tokens it reports."""

    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    prompt_tokens: int = 50
    completion_tokens: int = 10


@dataclass(frozen=True)
class HttpError:
    """An HTTP error in OpenAI's error JSON (``{"error": {"message", "type", "code"}}``)."""

    status: int
    message: str
    type: str
    code: str | None = None
    headers: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Delayed:
    """``reply``, answered only after ``seconds`` (cut short when the server stops)."""

    seconds: float
    reply: Reply


Reply = Completion | HttpError | Delayed


def output(
    arguments: dict[str, Any],
    *,
    tool: str = "final_result",
    prompt_tokens: int = 50,
    completion_tokens: int = 10,
) -> Completion:
    """The model calls the output tool with ``arguments``: how pydantic-ai gets structured output."""
    return tool_call(tool, arguments, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)


def tool_call(
    name: str, arguments: dict[str, Any], *, prompt_tokens: int = 50, completion_tokens: int = 10
) -> Completion:
    """The model calls tool ``name`` (offered or not) with ``arguments`` as JSON."""
    return Completion(
        tool_calls=(ToolCall(name, json.dumps(arguments)),),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )


def malformed(
    arguments: str = '{"title": "Dentist", ',
    *,
    tool: str = "final_result",
    prompt_tokens: int = 50,
    completion_tokens: int = 10,
) -> Completion:
    """The model calls ``tool`` with arguments that are not JSON (a truncated object by default)."""
    return Completion(
        tool_calls=(ToolCall(tool, arguments),),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
    )


def text(content: str) -> Completion:
    """The model answers in plain text, calling no tool."""
    return Completion(content=content)


def http_error(
    status: int,
    message: str = "The server had an error while processing your request.",
    *,
    type: str = "server_error",
    code: str | None = None,
    headers: dict[str, str] | None = None,
) -> HttpError:
    """An HTTP error answer (a 500 by default)."""
    return HttpError(status, message, type, code, tuple((headers or {}).items()))


def rate_limited(retry_after: float = 0.05) -> HttpError:
    """OpenAI's 429, with ``Retry-After`` in seconds (fractions are honoured by the openai SDK)."""
    return http_error(
        429,
        "Rate limit reached for requests. Please try again later.",
        type="requests",
        code="rate_limit_exceeded",
        headers={"Retry-After": f"{retry_after:g}"},
    )


def delayed(seconds: float, reply: Reply) -> Delayed:
    """``reply`` after ``seconds``: longer than the client's timeout makes it give up first."""
    return Delayed(seconds, reply)


# --------------------------------------------------------------------------- observation


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] = field(default_factory=dict)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def system_prompt(self) -> str:
        """The system (or developer) messages' text, joined by blank lines."""
        return "\n\n".join(m["content"] for m in self.messages if m.get("role") in ("system", "developer"))

    @property
    def tools(self) -> dict[str, dict[str, Any]]:
        """Offered tools by name: each ``{"name", "description", "parameters", ...}``."""
        return {t["function"]["name"]: t["function"] for t in self.body.get("tools", [])}


# Chooses the reply to one chat request by reading it (``OpenAIServer(responder=...)``).
Responder = Callable[[RecordedRequest], Reply]


# --------------------------------------------------------------------------- the server


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    app: OpenAIServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in two writes: without this, Nagle + delayed ACK stall each answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.app._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.app._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _dispatch(self) -> None:
        started = time.perf_counter()
        try:
            self._answer()
        finally:
            self.server.app._spent(started, time.perf_counter())

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {key.lower(): value for key, value in self.headers.items()}
        status, reply_headers, body = self.server.app._handle(self.command, self.path, headers, raw)
        payload = json.dumps(body).encode()
        try:
            self.send_response(status)
            for key, value in reply_headers:
                self.send_header(key, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            # The client gave up waiting (a ``delayed`` reply past its timeout) and closed the socket.
            self.close_connection = True

    def do_GET(self) -> None:
        self._dispatch()

    def do_POST(self) -> None:
        self._dispatch()


class OpenAIServer:
    """An OpenAI chat-completions stand-in replaying queued replies; see the module docstring."""

    def __init__(
        self,
        *,
        flavour: Flavour = "openai",
        api_key: str | None = None,
        models: tuple[str, ...] = ("gpt-4.1-mini",),
        responder: Responder | None = None,
    ) -> None:
        self.flavour = flavour
        self.responder = responder
        self.api_key = api_key
        self.models = models
        self.requests: list[RecordedRequest] = []
        self.answer_spans: list[tuple[float, float]] = []
        self._replies: deque[Reply] = deque()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> OpenAIServer:
        httpd = _HTTPServer(("127.0.0.1", 0), _Handler)
        httpd.app = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, args=(0.05,), name="openai-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._connections.add(conn)
            else:
                self._connections.discard(conn)

    @property
    def url(self) -> str:
        assert self._httpd is not None, "start() the server first"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def base_url(self) -> str:
        """What ``LLM_BASE_URL`` (the SDK's ``base_url``) is set to: the ``/v1`` root."""
        return f"{self.url}/v1"

    # ------------------------------------------------------------------ replies and observation

    def queue(self, *replies: Reply) -> None:
        """Answer the next chat-completions requests with ``replies``, in order."""
        with self._lock:
            self._replies.extend(replies)

    def _spent(self, started: float, ended: float) -> None:
        with self._lock:
            self.answer_spans.append((started, ended))

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # ------------------------------------------------------------------ protocol

    def _handle(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> _Answer:
        route = path.split("?")[0]
        body = json.loads(raw) if raw else {}
        recorded = RecordedRequest(method, route, headers, body)
        with self._lock:
            self.requests.append(recorded)
        if (refused := self._refusal(headers)) is not None:
            return self._error(refused)
        if method == "GET" and route == "/v1/models":
            owner = "library" if self.flavour == "ollama" else "system"
            models = [{"id": m, "object": "model", "created": 0, "owned_by": owner} for m in self.models]
            return 200, (), {"object": "list", "data": models}
        if method == "POST" and route == "/v1/chat/completions":
            return self._chat(recorded)
        unknown = f"Unknown request URL: {method} {route}."
        return self._error(http_error(404, unknown, type="invalid_request_error", code="unknown_url"))

    def _refusal(self, headers: dict[str, str]) -> HttpError | None:
        if self.api_key is None or headers.get("authorization") == f"Bearer {self.api_key}":
            return None
        return http_error(
            401, "Incorrect API key provided.", type="invalid_request_error", code="invalid_api_key"
        )

    def _chat(self, request: RecordedRequest) -> _Answer:
        body = request.body
        if body.get("stream"):
            return self._error(
                http_error(400, "This loopback server does not stream.", type="invalid_request_error")
            )
        if self.responder is not None:
            reply: Reply | None = self.responder(request)
        else:
            with self._lock:
                reply = self._replies.popleft() if self._replies else None
        if reply is None:
            return self._error(
                http_error(
                    400, "Loopback server: no reply queued for this request.", type="invalid_request_error"
                )
            )
        while isinstance(reply, Delayed):
            self._stopping.wait(reply.seconds)
            reply = reply.reply
        if isinstance(reply, HttpError):
            return self._error(reply)
        return 200, (), self._completion(reply, str(body.get("model", "")))

    def _completion(self, reply: Completion, model: str) -> dict[str, Any]:
        n = next(self._ids)
        ollama = self.flavour == "ollama"
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{n}_{i}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                }
                for i, call in enumerate(reply.tool_calls)
            ]
            if ollama and reply.content is None:
                message["content"] = ""
        choice: dict[str, Any] = {"index": 0, "message": message, "logprobs": None}
        if not ollama:
            choice["finish_reason"] = "tool_calls" if reply.tool_calls else "stop"
        answer: dict[str, Any] = {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [choice],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            },
        }
        if ollama:
            answer["system_fingerprint"] = "fp_ollama"
        return answer

    @staticmethod
    def _error(error: HttpError) -> _Answer:
        body = {"error": {"message": error.message, "type": error.type, "param": None, "code": error.code}}
        return error.status, error.headers, body
