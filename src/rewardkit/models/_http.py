"""One pooled `httpx.AsyncClient` per model client, and JSON POSTs that fail in our terms.

httpx is imported on first use, so building a plan never pays for it. Connections are kept
alive between calls (a judge's 64 requests reuse a handful of sockets). A transport failure
becomes `ConnectionError` (retried), a timeout `TimeoutError` (retried within the timeout
count), and an HTTP error status a `ProviderError` carrying the provider's own message.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from rewardkit.models._provider import ProviderError

if TYPE_CHECKING:
    import httpx

__all__ = ["Http", "error_message"]


class Http:
    """Lazily opened, pooled HTTP clients: one for `https://` URLs, one for `http://`."""

    def __init__(self) -> None:
        self._clients: dict[bool, httpx.AsyncClient] = {}

    def _open(self, url: str) -> httpx.AsyncClient:
        tls = not url.startswith("http://")
        if tls not in self._clients:
            httpx = load_httpx()

            # Our limiter bounds calls in flight; the pool only keeps their sockets alive.
            limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
            # A plain-HTTP client (a local server) never does TLS, so it skips loading the
            # CA bundle (≈40 ms, a fifth of a verifier's start-up).
            self._clients[tls] = httpx.AsyncClient(limits=limits, timeout=None, verify=tls)
        return self._clients[tls]

    async def post(
        self, url: str, headers: Mapping[str, str], body: Mapping[str, Any], timeout: float
    ) -> tuple[Any, Mapping[str, str]]:
        """The JSON body and headers of a 2xx answer to a POST of `body`."""
        httpx = load_httpx()
        client = self._open(url)
        try:
            response = await client.post(url, json=body, headers=dict(headers), timeout=timeout)
        except httpx.TimeoutException:
            raise TimeoutError(f"no answer within {timeout:g}s") from None
        except httpx.RequestError as exc:  # resets, refused connections, bad answers
            raise ConnectionError(f"{type(exc).__name__}: {exc}") from None
        if response.status_code >= 400:
            message = error_message(response.text)
            raise ProviderError(response.status_code, message, response.headers)
        try:
            data = response.json()
        except ValueError:
            raise ConnectionError(
                f"the answer (HTTP {response.status_code}) is not JSON: {response.text[:200]!r}"
            ) from None
        return data, response.headers

    async def aclose(self) -> None:
        """Close every pooled connection (idempotent)."""
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()


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
