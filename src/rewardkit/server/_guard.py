"""`Guard`: the ASGI layer in front of the service: the token first, then a bounded body read.

It runs before FastAPI touches a request, so a request without the right token gets 401
before a single body byte is read. An accepted body is read in chunks, under a size cap (413:
no more than the cap plus one chunk is ever held) and a time limit for the whole body (408).
Refusals close the connection, so a body left unread is never read.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["Guard"]


class _Refusal(Exception):
    """An answer given before the app sees the request."""

    def __init__(self, status: int, detail: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        headers = {**(headers or {}), "Connection": "close"}
        self.response = JSONResponse({"detail": detail}, status_code=status, headers=headers)


class _Gone(Exception):
    """The client went away before its body was complete."""


class Guard:
    """Check the bearer token, then read the body under `max_bytes` and `timeout` seconds.

    Args:
        app: the service.
        token: the bearer token every path but `public` needs; `None`: no token.
        public: paths open without the token (`/healthz`, the OpenAPI schema and docs).
        max_bytes: the body size cap.
        timeout: seconds to receive the whole body.
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        public: frozenset[str],
        max_bytes: int,
        timeout: float,
    ) -> None:
        self.app = app
        self.token = None if token is None else token.encode()
        self.public = public
        self.max_bytes = max_bytes
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            self._check_headers(scope)
            body = await self._read(receive)
        except _Refusal as refusal:
            await refusal.response(scope, receive, send)
            return
        except _Gone:
            return
        await self.app(scope, _replay(body, receive), send)

    def _check_headers(self, scope: Scope) -> None:
        headers = dict(scope["headers"])
        if self.token is not None and scope["path"] not in self.public:
            _check_token(headers.get(b"authorization"), self.token)
        declared = headers.get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            raise self._too_large()

    async def _read(self, receive: Receive) -> bytes:
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(self.timeout):
                while True:
                    message = await receive()
                    if message["type"] != "http.request":
                        raise _Gone
                    chunks.append(message.get("body", b""))
                    size += len(chunks[-1])
                    if size > self.max_bytes:
                        raise self._too_large()
                    if not message.get("more_body", False):
                        return b"".join(chunks)
        except TimeoutError:
            raise _Refusal(
                408,
                f"request body not received within {self.timeout:g}s; send it at once, or "
                "raise the server's --body-timeout (env REWARDKIT_SERVER_BODY_TIMEOUT)",
            ) from None

    def _too_large(self) -> _Refusal:
        return _Refusal(
            413,
            f"request body exceeds the limit of {self.max_bytes} bytes; send a smaller body "
            "(split a batch), or raise the server's --max-body-bytes",
        )


def _check_token(header: bytes | None, expected: bytes) -> None:
    """Pass a matching `Bearer` token, or `Basic` credentials whose password is the token
    (what a client sends for `http://user:TOKEN@host/...`: OpenRLHF can send no header), each
    compared in constant time; else raise a 401."""
    scheme, _, given = (header or b"").partition(b" ")
    if scheme.lower() == b"basic":
        try:
            given = base64.b64decode(given.strip(), validate=True).partition(b":")[2]
        except binascii.Error:
            given = b""
    elif scheme.lower() != b"bearer":
        given = b""
    if given and hmac.compare_digest(given.strip(), expected):
        return
    problem = "missing" if header is None else "wrong"
    raise _Refusal(
        401,
        f"{problem} bearer token; send 'Authorization: Bearer <token>' with the server's "
        "--token (env REWARDKIT_SERVER_TOKEN), or put it in the URL as the password "
        "(http://rewardkit:<token>@host/...)",
        {"WWW-Authenticate": "Bearer"},
    )


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the body over once, then waits for the disconnect."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
