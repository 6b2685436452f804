"""Pooled HTTP connections for the native providers, and JSON POSTs that fail in our terms.

A model server is reached directly (`_connections`: keep-alive HTTP/1.1 over asyncio, a
fraction of httpx's CPU a call), or through httpx where httpx's extras matter: a proxy in the
environment (`HTTPS_PROXY` and the like, or the system's on macOS and Windows), credentials
in the URL, a scheme other than http(s). Both are imported on first use, so building a plan
never pays for them. Connections are kept alive between calls (a judge's 64 requests reuse a
handful of sockets). A transport failure becomes `ConnectionError` (retried), a timeout
`TimeoutError`, and an HTTP error status a `ProviderError` carrying the provider's own message.

An answer is untrusted bytes. Its body is streamed and decoded here (gzip a bounded piece at
a time) and refused once its decoded size passes the cap (`REWARDKIT_MAX_ANSWER_MIB`), so a
call never holds more than the cap plus one piece; a redirect is refused, never followed.
Both raise `BadAnswer`, which is not retried. The whole call's deadline is the caller's.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sys
import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from rewardkit.core._errors import ConfigError
from rewardkit.models._provider import BadAnswer, ProviderError

if TYPE_CHECKING:
    import httpx

    from rewardkit.models._connections import ConnectionPool

__all__ = [
    "CAP_ENV",
    "MAX_ANSWER_MIB",
    "Http",
    "answer_cap",
    "error_message",
    "proxies_configured",
    "read_capped",
]

MAX_ANSWER_MIB = 16
"""The default cap on one answer's decoded body (MiB): a judge's reply is a few KiB."""
CAP_ENV = "REWARDKIT_MAX_ANSWER_MIB"
PIECE = 64 << 10
"""The most bytes one step of decoding yields (a gzip bomb grows 1000-fold per chunk)."""


class Streamed(Protocol):
    """An answer being read: ours (`_connections.Response`) or httpx's."""

    @property
    def status_code(self) -> int: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    def aiter_raw(self) -> AsyncIterator[bytes]: ...


class Http:
    """The run's connections: one direct pool, and httpx clients (`https`, `http`) for the
    URLs that need httpx (see the module docstring)."""

    def __init__(self) -> None:
        self._pool: ConnectionPool | None = None
        self._clients: dict[bool, httpx.AsyncClient] = {}
        self._proxied = proxies_configured()
        self.max_answer_bytes = answer_cap()

    async def post(
        self, url: str, headers: Mapping[str, str], body: Mapping[str, Any], timeout: float
    ) -> tuple[Any, Mapping[str, str]]:
        """The JSON body and headers of a 2xx answer to a POST of `body`.

        `timeout` bounds each socket operation; the caller bounds the whole call.
        """
        # Encoded as httpx encodes `json=`; only gzip is asked for, since it is the only
        # coding decoded here with a bound.
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        sent = {**headers, "Accept-Encoding": "gzip"}
        async with self._stream(url, sent, content.encode(), timeout) as response:
            _refuse_redirect(response)
            data = await read_capped(response, self.max_answer_bytes)
        status = response.status_code
        if status >= 400:
            message = error_message(data.decode("utf-8", errors="replace"))
            raise ProviderError(status, message, response.headers)
        try:
            return json.loads(data), response.headers
        except (ValueError, RecursionError):  # RecursionError: nested past the parser's depth
            start = data[:200].decode("utf-8", errors="replace")
            raise ConnectionError(f"the answer (HTTP {status}) is not JSON: {start!r}") from None

    def _stream(
        self, url: str, headers: Mapping[str, str], content: bytes, timeout: float
    ) -> contextlib.AbstractAsyncContextManager[Streamed]:
        if self._proxied or not _direct(url):
            return self._httpx_stream(url, headers, content, timeout)
        if self._pool is None:
            from rewardkit.models._connections import ConnectionPool

            self._pool = ConnectionPool()
        return self._pool.stream(url, headers, content, timeout)

    @contextlib.asynccontextmanager
    async def _httpx_stream(
        self, url: str, headers: Mapping[str, str], content: bytes, timeout: float
    ) -> AsyncIterator[Streamed]:
        httpx = load_httpx()
        sent = {**headers, "Content-Type": "application/json"}
        try:
            async with self._open(url).stream(
                "POST", url, content=content, headers=sent, timeout=timeout
            ) as response:
                yield response
        except httpx.TimeoutException:
            raise TimeoutError(f"no answer within {timeout:g}s") from None
        except httpx.RequestError as exc:  # resets, refused connections, bad answers
            raise ConnectionError(f"{type(exc).__name__}: {exc}") from None

    def _open(self, url: str) -> httpx.AsyncClient:
        tls = not url.startswith("http://")
        if tls not in self._clients:
            httpx = load_httpx()

            # Our limiter bounds calls in flight; the pool only keeps their sockets alive.
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
            # A plain-HTTP client (a local server) never does TLS, so it skips loading the
            # CA bundle (≈40 ms, a fifth of a verifier's start-up).
            # A redirect is refused (`_refuse_redirect`): the key is never sent on elsewhere.
            self._clients[tls] = httpx.AsyncClient(
                limits=limits, timeout=None, verify=tls, follow_redirects=False
            )
        return self._clients[tls]

    async def aclose(self) -> None:
        """Close every pooled connection (idempotent)."""
        pool, self._pool = self._pool, None
        clients, self._clients = list(self._clients.values()), {}
        if pool is not None:
            await pool.aclose()
        for client in clients:
            await client.aclose()


@lru_cache(maxsize=64)
def _direct(url: str) -> bool:
    """True when our own connections can take `url`: http(s), no credentials in it."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and "@" not in parts.netloc


def proxies_configured(env: Mapping[str, str] = os.environ) -> bool:
    """True when httpx would look for a proxy: an `http`, `https` or `all` proxy in the
    environment (either case), or on macOS and Windows in the system's settings."""
    if sys.platform in ("darwin", "win32"):
        from urllib.request import getproxies

        found = getproxies()
    else:
        found = {k.lower()[:-6]: v for k, v in env.items() if k.lower().endswith("_proxy")}
    return any(found.get(scheme) for scheme in ("http", "https", "all"))


def load_httpx() -> ModuleType:
    """httpx, imported without its command-line tool.

    `import httpx` also imports `httpx._main` (click, rich's console, pygments) when those
    are installed, ≈30 ms of a verifier's start-up that a client never uses. The CLI stays
    importable afterwards; only the `httpx.main` name is a stub in this process.
    """
    if "httpx" in sys.modules:
        return sys.modules["httpx"]
    block = "httpx._main" not in sys.modules
    if block:
        sys.modules["httpx._main"] = None  # type: ignore[assignment]  # ImportError: skipped
    try:
        import httpx
    finally:
        if block:
            del sys.modules["httpx._main"]
    return httpx


def answer_cap(env: Mapping[str, str] = os.environ) -> int:
    """`REWARDKIT_MAX_ANSWER_MIB` in bytes, checked (default `MAX_ANSWER_MIB`)."""
    value = (env.get(CAP_ENV) or "").strip()
    if not value:
        return MAX_ANSWER_MIB << 20
    try:
        mib = float(value)
    except ValueError:
        mib = math.nan
    if not (math.isfinite(mib) and mib > 0):
        raise ConfigError(
            f"{CAP_ENV} must be a positive number of MiB (got {value!r}); "
            f"unset it for the default of {MAX_ANSWER_MIB}"
        )
    return max(1, int(mib * (1 << 20)))


async def read_capped(response: Streamed, cap: int) -> bytearray:
    """The decoded body of `response`; `BadAnswer` once it passes `cap` bytes."""
    decode = _decoder(response.headers.get("content-encoding", ""))
    data = bytearray()
    async for raw in response.aiter_raw():
        for piece in decode(raw):
            if len(data) + len(piece) > cap:
                raise BadAnswer(
                    f"model answer exceeded {cap} bytes; raise {CAP_ENV} (MiB, default "
                    f"{MAX_ANSWER_MIB}) if the model's answers are really this long"
                )
            data += piece
    return data


def _decoder(coding: str) -> Callable[[bytes], Iterable[bytes]]:
    """A function from a raw chunk of the body to its decoded pieces."""
    name = coding.strip().lower()
    if name in ("", "identity"):
        return lambda raw: (raw,)
    if name in ("gzip", "x-gzip"):
        return _Gunzip().feed
    raise BadAnswer(f"the answer's Content-Encoding {coding!r} was not asked for (only gzip is)")


class _Gunzip:
    """Decodes gzip `PIECE` bytes of output at a time, members one after another."""

    def __init__(self) -> None:
        self._z = zlib.decompressobj(zlib.MAX_WBITS | 16)

    def feed(self, raw: bytes) -> Iterator[bytes]:
        while raw:
            try:
                piece = self._z.decompress(raw, PIECE)
            except zlib.error as exc:
                raise BadAnswer(f"the answer's gzip body is corrupt ({exc})") from None
            raw = self._z.unconsumed_tail
            if self._z.eof:  # RFC 1952 allows further members; unused_data would grow
                raw, self._z = self._z.unused_data, zlib.decompressobj(zlib.MAX_WBITS | 16)
            yield piece


def _refuse_redirect(response: Streamed) -> None:
    if 300 <= response.status_code < 400:
        where = response.headers.get("location", "nowhere (no Location header)")
        raise BadAnswer(
            f"the endpoint redirected (HTTP {response.status_code}) to {where!r}, which is "
            "not followed: set the base URL to the final address"
        )


def error_message(text: str) -> str:
    """The message of an error body in OpenAI's, Anthropic's or vLLM's shape, else the text."""
    try:
        data = json.loads(text)
    except ValueError:
        return text.strip()[:300] or "(empty error body)"
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        for value in (error, data.get("message"), data.get("detail")):
            if isinstance(value, str) and value:
                return value
    return text.strip()[:300]
