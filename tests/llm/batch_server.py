"""A local fake of both providers' batch APIs, with their live chat endpoints beside them.

`BatchServer(protocol="openai")` serves `POST /v1/chat/completions` (live), `POST /v1/files`
(a multipart upload), `POST /v1/batches`, `GET /v1/batches/{id}` and
`GET /v1/files/{id}/content`; `BatchServer(protocol="anthropic")` serves `POST /v1/messages`
(live), `POST /v1/messages/batches`, `GET /v1/messages/batches/{id}` and its `results_url`.
Every answer, live or batched, is `respond(body)`'s text for the request body, so a batch run
and a live run see the same answers. A batch ends after `ticks` polls; a request for which
`fails(body)` is true fails inside its batch (and is answered normally when sent live). It
counts live calls, batched requests and polls, and checks the key on every request.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler
from typing import Any

from server import KEY, Protocol, _completion, _message, _Server, ok

__all__ = ["BatchServer"]


class BatchServer:
    """Both kinds of endpoint on an ephemeral port (see the module docstring)."""

    def __init__(
        self,
        respond: Callable[[dict[str, Any]], str],
        *,
        protocol: Protocol = "openai",
        ticks: int = 2,
        fails: Callable[[dict[str, Any]], bool] = lambda body: False,
    ) -> None:
        self.respond, self.protocol, self.ticks, self.fails = respond, protocol, ticks, fails
        self.live = 0
        self.batched = 0
        self.polls = 0
        self.results_url: str | None = None
        """Overrides the `results_url` Anthropic batches give (a hostile server's)."""
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.lock = threading.Lock()
        self._httpd = _Server(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def url(self) -> str:
        """The base URL to give a client (`.../v1` for OpenAI, the root for Anthropic)."""
        return self.root if self.protocol == "anthropic" else f"{self.root}/v1"

    def __enter__(self) -> BatchServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The provider's answer to one chat request."""
        reply = ok(self.respond(body))
        return _message(body, reply) if self.protocol == "anthropic" else _completion(body, reply)

    def start(self, requests: list[tuple[str, dict[str, Any]]]) -> str:
        """A new batch of `(custom_id, body)`; its id."""
        with self.lock:
            name = f"batch_{len(self.batches)}"
            self.batches[name] = {"requests": requests, "polls": 0}
            self.batched += len(requests)
        return name

    def status(self, name: str) -> dict[str, Any]:
        with self.lock:
            self.polls += 1
            batch = self.batches[name]
            batch["polls"] += 1
            ended = batch["polls"] >= self.ticks
        if self.protocol == "anthropic":
            url = self.results_url or f"{self.root}/v1/messages/batches/{name}/results"
            state = "ended" if ended else "in_progress"
            return {"id": name, "processing_status": state, "results_url": url if ended else None}
        return {
            "id": name,
            "status": "completed" if ended else "in_progress",
            "output_file_id": f"out-{name}" if ended else None,
        }

    def results(self, name: str) -> bytes:
        lines = []
        for custom_id, body in self.batches[name]["requests"]:
            failed = self.fails(body)
            if self.protocol == "anthropic":
                result = (
                    {"type": "errored", "error": {"type": "api_error", "message": "overloaded"}}
                    if failed
                    else {"type": "succeeded", "message": self.answer(body)}
                )
                lines.append({"custom_id": custom_id, "result": result})
            else:
                response = (
                    {"status_code": 500, "body": {"error": {"message": "server error"}}}
                    if failed
                    else {"status_code": 200, "body": self.answer(body)}
                )
                lines.append({"custom_id": custom_id, "response": response, "error": None})
        return "".join(json.dumps(line) + "\n" for line in lines).encode()


def _uploaded(content_type: str, data: bytes) -> bytes:
    """The `file` part of a multipart/form-data body."""
    boundary = content_type.split("boundary=", 1)[1].strip('"').encode()
    for part in data.split(b"--" + boundary):
        head, _, content = part.partition(b"\r\n\r\n")
        if b'name="file"' in head:
            return content.removesuffix(b"\r\n")
    raise ValueError("no file part")


def _handler(server: BatchServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _authorised(self) -> bool:
            if server.protocol == "anthropic":
                given = self.headers.get("x-api-key", "")
            else:
                given = self.headers.get("authorization", "").removeprefix("Bearer ")
            if given != KEY:
                self._send(401, {"error": {"message": "Incorrect API key provided"}})
            return given == KEY

        def do_POST(self) -> None:
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if not self._authorised():
                return
            if self.path in ("/v1/chat/completions", "/v1/messages"):
                with server.lock:
                    server.live += 1
                self._send(200, server.answer(json.loads(data)))
            elif self.path == "/v1/files":
                name = f"file-{len(server.files)}"
                server.files[name] = _uploaded(self.headers["Content-Type"], data)
                self._send(200, {"id": name, "object": "file", "purpose": "batch"})
            elif self.path == "/v1/batches":
                lines = server.files[json.loads(data)["input_file_id"]].decode().splitlines()
                requests = [(r["custom_id"], r["body"]) for r in map(json.loads, lines)]
                self._send(200, {"id": server.start(requests), "status": "validating"})
            elif self.path == "/v1/messages/batches":
                requests = [(r["custom_id"], r["params"]) for r in json.loads(data)["requests"]]
                name = server.start(requests)
                self._send(200, {"id": name, "processing_status": "in_progress"})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_GET(self) -> None:
            if not self._authorised():
                return
            parts = self.path.strip("/").split("/")
            if parts[:2] == ["v1", "batches"] or parts[:3] == ["v1", "messages", "batches"]:
                if parts[-1] == "results":
                    self._send_raw(server.results(parts[-2]))
                else:
                    self._send(200, server.status(parts[-1]))
            elif parts[:2] == ["v1", "files"] and parts[-1] == "content":
                self._send_raw(server.results(parts[2].removeprefix("out-")))
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            self._send_raw(json.dumps(payload).encode(), status)

        def _send_raw(self, data: bytes, status: int = 200) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet."""

    return Handler
