"""The one small interface every provider implements, and the errors an HTTP answer raises.

A provider turns a `CompletionRequest` into a payload once (`prepare`: what is sent and
what is dropped), then sends that payload as many times as the client's retries ask
(`send`). It raises its failures as they are (`ProviderError`, `BadAnswer`, `TimeoutError`,
`ConnectionError`, or LiteLLM's own exceptions); `_retry.classify` reads them all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from rewardkit.models._request import CompletionRequest
from rewardkit.models._route import Route
from rewardkit.models._usage import Usage

__all__ = ["Answer", "BadAnswer", "Prepared", "Provider", "ProviderError"]


class ProviderError(Exception):
    """A provider answered with an HTTP error status."""

    def __init__(self, status_code: int, message: str, headers: Mapping[str, str]) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.message = message
        self.headers = headers
        """The answer's headers (`Retry-After` is read from them)."""


class BadAnswer(Exception):
    """An answer refused as it came (over the size cap, a redirect, an unknown encoding);
    sending the same request again would get the same, so it is never retried."""


@dataclass(frozen=True)
class Prepared:
    """A request in a provider's own terms, ready to be sent (and sent again)."""

    payload: Any
    dropped: tuple[str, ...]
    """What the caller asked for and the model does not take (see `_capabilities.plan`)."""


@dataclass(frozen=True)
class Answer:
    """One successful call: the reply's text and what it cost."""

    text: str
    usage: Usage


class Provider(Protocol):
    """Sends chat requests to one kind of endpoint."""

    async def prepare(self, request: CompletionRequest, route: Route) -> Prepared:
        """The payload for `request` along `route` (may load what the provider needs)."""
        ...

    async def send(self, prepared: Prepared, timeout: float) -> Answer:
        """One call; raises the provider's failure unchanged."""
        ...

    async def aclose(self) -> None:
        """Release connections (idempotent)."""
        ...
