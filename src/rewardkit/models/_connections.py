"""Keep-alive HTTP/1.1 connections straight over asyncio, with h11 reading the answers.

The direct way to a model server (no proxy): one request per connection at a time, idle
connections reused most recently used first. httpx's pool rescans its connections for every
request and wraps each call in several layers: at 32 calls in flight it cost over 1 ms of
CPU a call, several times what these connections cost (`benchmarks/llm_cpu.py --ways
direct,httpx` compares them). h11 (httpx's own HTTP/1.1 parser, so always installed) bounds
what an untrusted answer may do to the parser: a head over 16 KiB, a bad chunk, a body
longer than declared are protocol errors.

`timeout` bounds each socket operation (connect, send, each read), as httpx's does; a
timeout raises `TimeoutError`, any other failure of the exchange `ConnectionError`. A
connection whose exchange did not end cleanly is dropped, never reused.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

import h11

__all__ = ["ConnectionPool", "Response"]

KEEP_IDLE = 5.0
"""Seconds an idle connection is kept (httpx's keep-alive expiry; servers drop theirs)."""
MAX_IDLE = 64
"""Idle connections kept per origin."""
READ = 64 << 10


@dataclass(frozen=True)
class _Target:
    """What a URL says about where and how to send (cached per URL)."""

    origin: tuple[str, int, bool]
    """Host, port, and whether it is TLS."""
    path: bytes
    host: bytes
    """The `Host` header."""


@lru_cache(maxsize=64)
def _target(url: str) -> _Target:
    parts = urlsplit(url)
    tls = parts.scheme == "https"
    port = parts.port or (443 if tls else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    host = parts.hostname or ""
    shown = f"[{host}]" if ":" in host else host
    header = shown if parts.port in (None, 443 if tls else 80) else f"{shown}:{port}"
    return _Target((host, port, tls), path.encode("ascii"), header.encode("ascii"))


@dataclass(eq=False)
class _Connection:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    state: h11.Connection = field(default_factory=lambda: h11.Connection(h11.CLIENT))
    idle_since: float = 0.0

    def usable(self) -> bool:
        """Still open, and idle for less than `KEEP_IDLE` seconds."""
        fresh = time.monotonic() - self.idle_since < KEEP_IDLE
        return fresh and not self.reader.at_eof() and not self.writer.is_closing()

    def reusable(self) -> bool:
        """Both sides finished their messages and neither asked to close."""
        return self.state.our_state is h11.DONE and self.state.their_state is h11.DONE


class _Exchange:
    """One request on one connection; each read from the socket is bounded anew."""

    def __init__(self, connection: _Connection, limit: asyncio.Timeout, timeout: float) -> None:
        self.connection = connection
        self._limit = limit
        self._timeout = timeout

    def rearm(self) -> None:
        """Give the next socket operation `timeout` seconds."""
        self._limit.reschedule(asyncio.get_running_loop().time() + self._timeout)

    async def event(self) -> Any:
        """The next h11 event of the answer."""
        state = self.connection.state
        while (event := state.next_event()) is h11.NEED_DATA:
            self.rearm()
            state.receive_data(await self.connection.reader.read(READ))
        return event

    async def head(self) -> h11.Response:
        """The final answer's head (`100 Continue` and other 1xx heads are passed over)."""
        while not isinstance(event := await self.event(), h11.Response):
            if isinstance(event, h11.ConnectionClosed):  # h11 raises first; never loop on it
                raise h11.RemoteProtocolError("the server closed the connection unanswered")
        return event


class Response:
    """An answer's status and head; `aiter_raw()` yields its body as it comes."""

    def __init__(self, head: h11.Response, exchange: _Exchange) -> None:
        self.status_code: int = head.status_code
        self.headers: dict[str, str] = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in head.headers
        }
        """Lower-case names; a repeated header keeps its last value."""
        self._exchange = exchange

    async def aiter_raw(self) -> AsyncIterator[bytes]:
        """The body's bytes as they arrive (still encoded, as `Content-Encoding` says)."""
        while isinstance(event := await self._exchange.event(), h11.Data):
            yield bytes(event.data)


class ConnectionPool:
    """Connections by origin, for one event loop."""

    def __init__(self) -> None:
        self._idle: dict[tuple[str, int, bool], list[_Connection]] = {}
        self._tls: ssl.SSLContext | None = None
        self._closed = False

    @contextlib.asynccontextmanager
    async def stream(
        self, url: str, headers: Mapping[str, str], body: bytes, timeout: float
    ) -> AsyncIterator[Response]:
        """POST `body` (JSON) to `url`; the answer, its body read within the block."""
        target = _target(url)
        connection = None
        try:
            async with asyncio.timeout(timeout) as limit:
                connection = await self._checkout(target)
                exchange = _Exchange(connection, limit, timeout)
                exchange.rearm()
                await _send(connection, target, headers, body)
                yield Response(await exchange.head(), exchange)
        except TimeoutError:
            raise TimeoutError(f"no answer within {timeout:g}s") from None
        except (OSError, h11.ProtocolError) as exc:
            raise ConnectionError(f"{type(exc).__name__}: {exc}") from None
        finally:
            if connection is not None:
                self._checkin(target, connection)

    async def _checkout(self, target: _Target) -> _Connection:
        idle = self._idle.get(target.origin, [])
        while idle:
            connection = idle.pop()
            if connection.usable():
                connection.state.start_next_cycle()
                return connection
            connection.writer.transport.abort()
        host, port, tls = target.origin
        context = self._context() if tls else None
        reader, writer = await asyncio.open_connection(
            host, port, ssl=context, server_hostname=host if tls else None, limit=READ
        )
        return _Connection(reader, writer)

    def _checkin(self, target: _Target, connection: _Connection) -> None:
        idle = self._idle.setdefault(target.origin, [])
        if connection.reusable() and len(idle) < MAX_IDLE and not self._closed:
            connection.idle_since = time.monotonic()
            idle.append(connection)
        else:  # mid-exchange (an error, a refusal, a cancellation): its state is unknown
            connection.writer.transport.abort()

    def _context(self) -> ssl.SSLContext:
        """httpx's default: certifi's CAs, or `SSL_CERT_FILE` / `SSL_CERT_DIR` when set."""
        if self._tls is None:
            if os.environ.get("SSL_CERT_FILE"):
                context = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
            elif os.environ.get("SSL_CERT_DIR"):
                context = ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
            else:
                import certifi

                context = ssl.create_default_context(cafile=certifi.where())
            context.set_alpn_protocols(["http/1.1"])
            self._tls = context
        return self._tls

    async def aclose(self) -> None:
        """Close the idle connections (those in use close when their exchange ends)."""
        self._closed = True
        connections = [c for idle in self._idle.values() for c in idle]
        self._idle.clear()
        for connection in connections:
            connection.writer.close()
        try:
            async with asyncio.timeout(1.0):  # a TLS peer may be slow to say goodbye
                for connection in connections:
                    with contextlib.suppress(OSError):
                        await connection.writer.wait_closed()
        except TimeoutError:
            for connection in connections:
                connection.writer.transport.abort()


async def _send(
    connection: _Connection, target: _Target, headers: Mapping[str, str], body: bytes
) -> None:
    sent = [
        (b"Host", target.host),
        (b"Accept", b"*/*"),
        (b"User-Agent", b"rewardkit"),
        (b"Content-Type", b"application/json"),
        (b"Content-Length", b"%d" % len(body)),
        *((name.encode("latin-1"), value.encode("latin-1")) for name, value in headers.items()),
    ]
    state = connection.state
    request = h11.Request(method=b"POST", target=target.path, headers=sent)
    connection.writer.write(
        state.send(request) + state.send(h11.Data(data=body)) + state.send(h11.EndOfMessage())
    )
    await connection.writer.drain()
