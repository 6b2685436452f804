"""A real chat server on 127.0.0.1 for the LLM judge tests, in either protocol.

`ChatServer()` speaks OpenAI's chat completions (`POST /v1/chat/completions`, key in
`Authorization: Bearer`); `ChatServer(protocol="anthropic")` speaks Anthropic's Messages
API (`POST /v1/messages`, key in `x-api-key`; a forced tool call is answered with a
`tool_use` block whose input is the scripted JSON). Either answers from a script of `Reply` values (one per
request, in arrival order; `then` answers once the script is used up), or from a
`responder` function of the request body. It records every request body, the most
requests it ever had in flight at once, and the connections they came on, so tests can
check retries, limits and keep-alive from the server's side of the wire. With `tls` (a
server-side `ssl.SSLContext`) it answers on https. With `capacity` set (any time, also
mid-run), it is a rate-limited provider: a request arriving while more than `capacity` are
being answered, itself included, gets a 429 at once (see `loads` and `rejected`).

    with ChatServer(latency=0.2) as server:
        server.script(error(429, retry_after=1), ok('{"score": 1}'))
        ...  # point a client at server.url with model "openai/test-model"
        assert server.count == 2
"""

from __future__ import annotations

import dataclasses
import json
import ssl
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = [
    "KEY",
    "PROVIDERS",
    "VALID",
    "ChatServer",
    "Protocol",
    "Reply",
    "drop",
    "error",
    "ok",
    "parse",
    "schema_of",
    "slow",
]

Protocol = Literal["openai", "anthropic"]
PROVIDERS = ("openai", "anthropic", "litellm")
"""The ways the tests talk to a server: natively in either protocol, or through LiteLLM."""

VALID = '{"score": "yes", "reasoning": "the file is there"}'
KEY = "sk-test-0123456789abcdef"
"""The API key the server accepts (any other gets a 401 naming it, as OpenAI does)."""


@dataclass(frozen=True)
class Reply:
    """One scripted answer."""

    content: str = VALID
    """The assistant message's text (for status 200)."""
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    """Seconds to wait before answering, on top of the server's latency."""
    action: Literal["answer", "drop"] = "answer"
    """`drop` closes the connection without a response (a connection reset)."""
    usage: tuple[int, int] = (12, 5)
    """Prompt and completion tokens reported for a 200."""
    prompt: bool = False
    """Answer at once, without the server's `latency` (a refusal over `capacity`)."""


def ok(content: str = VALID, *, delay: float = 0.0) -> Reply:
    """A successful completion whose message text is `content`."""
    return Reply(content=content, delay=delay)


def slow(seconds: float, content: str = VALID) -> Reply:
    """A successful completion sent only after `seconds`."""
    return Reply(content=content, delay=seconds)


def error(status: int, message: str = "", *, retry_after: float | str | None = None) -> Reply:
    """An OpenAI-style error body with `status` (and `Retry-After` when given)."""
    headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
    return Reply(content=message or f"scripted error {status}", status=status, headers=headers)


def parse(text: str) -> str:
    """Read the `score` of a reply like `VALID`, also inside a ``` fence (a test parser)."""
    body = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```")
    try:
        data = json.loads(body)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    if not isinstance(data, dict) or "score" not in data:
        raise ValueError("no 'score' key")
    return str(data["score"])


def schema_of(body: dict[str, Any]) -> dict[str, Any]:
    """The JSON schema a request asks for, in either protocol ({} when none)."""
    if "response_format" in body:
        return dict(body["response_format"]["json_schema"]["schema"])
    return dict(body["tools"][0]["input_schema"]) if "tools" in body else {}


def drop() -> Reply:
    """Close the connection without answering."""
    return Reply(action="drop")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default backlog of 5 stalls bursts of connections


@dataclass
class _State:
    replies: list[Reply] = field(default_factory=list)
    then: Reply = field(default_factory=Reply)
    responder: Callable[[dict[str, Any]], Reply] | None = None
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    peers: set[tuple[str, int]] = field(default_factory=set)
    in_flight: int = 0
    max_in_flight: int = 0
    busy: int = 0
    """Requests being answered, counted until their answer starts going out."""
    loads: list[tuple[int, bool]] = field(default_factory=list)
    rejected: int = 0


class ChatServer:
    """A scriptable chat endpoint on an ephemeral port, served from a thread."""

    def __init__(
        self,
        *,
        latency: float = 0.0,
        protocol: Protocol = "openai",
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.latency = latency
        self.protocol = protocol
        self.capacity: int | None = None
        """Requests answered at once before the next gets a 429 (`None`: no limit)."""
        self._state = _State()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _handler_for(self))
        self._scheme = "http" if tls is None else "https"
        if tls is not None:
            self._httpd.socket = tls.wrap_socket(self._httpd.socket, server_side=True)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        """The base URL to give a client (`.../v1` for OpenAI, the root for Anthropic)."""
        root = f"{self._scheme}://127.0.0.1:{self._httpd.server_address[1]}"
        return root if self.protocol == "anthropic" else f"{root}/v1"

    def script(self, *replies: Reply, then: Reply | None = None) -> None:
        """Answer the next requests with `replies`, then with `then` (default: valid JSON)."""
        with self._lock:
            self._state.replies = list(replies)
            self._state.then = then or Reply()

    def respond_with(self, responder: Callable[[dict[str, Any]], Reply]) -> None:
        """Answer every request with `responder(body)` instead of the script."""
        with self._lock:
            self._state.responder = responder

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request body received so far, in arrival order."""
        with self._lock:
            return list(self._state.requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """Every request's headers (lower-cased names), in arrival order."""
        with self._lock:
            return list(self._state.headers)

    @property
    def count(self) -> int:
        """How many requests arrived."""
        with self._lock:
            return len(self._state.requests)

    @property
    def connections(self) -> int:
        """How many connections the requests came on."""
        with self._lock:
            return len(self._state.peers)

    @property
    def max_in_flight(self) -> int:
        """The most requests that were being answered at the same moment."""
        with self._lock:
            return self._state.max_in_flight

    @property
    def loads(self) -> list[tuple[int, bool]]:
        """For each request in arrival order: how many were being answered, itself
        included, and whether it was refused for being over `capacity`."""
        with self._lock:
            return list(self._state.loads)

    @property
    def rejected(self) -> int:
        """How many requests got a 429 for being over `capacity`."""
        with self._lock:
            return self._state.rejected

    def reset(self) -> None:
        """Forget the recorded requests and the script."""
        with self._lock:
            self._state = _State()

    def start(self) -> ChatServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # wakes every handler that is sleeping through a delay
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- called from handler threads ---------------------------------------------------

    def _enter(self, body: dict[str, Any], headers: dict[str, str], peer: tuple[str, int]) -> Reply:
        with self._lock:
            state = self._state
            state.requests.append(body)
            state.headers.append(headers)
            state.peers.add(peer)
            state.in_flight += 1
            state.max_in_flight = max(state.max_in_flight, state.in_flight)
            state.busy += 1
            over = self.capacity is not None and state.busy > self.capacity
            state.loads.append((state.busy, over))
            if over:
                state.rejected += 1
                refusal = error(429, f"over capacity ({self.capacity} at once)")
                return dataclasses.replace(refusal, prompt=True)
            if state.responder is not None:
                return state.responder(body)
            return state.replies.pop(0) if state.replies else state.then

    def _answering(self) -> bool:
        """The answer starts going out: the request no longer counts against `capacity`
        (so a client that sends its next request on reading it is not refused)."""
        with self._lock:
            self._state.busy -= 1
        return True

    def _leave(self, answered: bool = False) -> None:
        with self._lock:
            self._state.in_flight -= 1
            if not answered:
                self._state.busy -= 1

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    prompt, completion = reply.usage
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "test-model"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def _message(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """An Anthropic Messages answer: a forced tool call gets the JSON as its input."""
    prompt, completion = reply.usage
    block: dict[str, Any] = {"type": "text", "text": reply.content}
    forced = (body.get("tool_choice") or {}).get("name")
    if forced:
        try:
            data = json.loads(reply.content)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            block = {"type": "tool_use", "id": "toolu_test", "name": forced, "input": data}
    return {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": body.get("model", "test-model"),
        "content": [block],
        "stop_reason": "tool_use" if block["type"] == "tool_use" else "end_turn",
        "usage": {"input_tokens": prompt, "output_tokens": completion},
    }


def _anthropic_error(reply: Reply) -> dict[str, Any]:
    kinds = {401: "authentication_error", 429: "rate_limit_error", 529: "overloaded_error"}
    kind = kinds.get(reply.status, "api_error" if reply.status >= 500 else "invalid_request_error")
    return {"type": "error", "error": {"type": kind, "message": reply.content}}


def _error_body(reply: Reply) -> dict[str, Any]:
    kinds = {401: "invalid_request_error", 404: "invalid_request_error", 429: "rate_limit"}
    return {
        "error": {
            "message": reply.content,
            "type": kinds.get(reply.status, "server_error"),
            "code": reply.status,
        }
    }


def _handler_for(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real providers do
        disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms stall

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = server._enter(body, headers, self.client_address)
            anthropic = server.protocol == "anthropic"
            path = "/v1/messages" if anthropic else "/v1/chat/completions"
            if anthropic:
                given = headers.get("x-api-key", "")
            else:
                given = headers.get("authorization", "").removeprefix("Bearer ")
            if self.path != path:
                reply = error(404, f"no route {self.path} (this server speaks {path})")
            elif given != KEY:
                reply = error(401, f"Incorrect API key provided: {given}.")
            answered = False
            try:
                server._wait((0 if reply.prompt else server.latency) + reply.delay)
                if reply.action == "drop":
                    self.close_connection = True
                    self.connection.close()
                    return
                answered = server._answering()
                self._send(reply, body)
            except OSError:  # the client gave up (its timeout) and closed the socket
                self.close_connection = True
            finally:
                server._leave(answered)

        def _send(self, reply: Reply, body: dict[str, Any]) -> None:
            if server.protocol == "anthropic":
                payload = _message(body, reply) if reply.status == 200 else _anthropic_error(reply)
            else:
                payload = _completion(body, reply) if reply.status == 200 else _error_body(reply)
            data = json.dumps(payload).encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Stay quiet: tests read the recorded requests instead."""

    return Handler
