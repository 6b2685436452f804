"""Which model-call failures are worth retrying, how long to wait, and what to say after.

Transient failures (429, 5xx, connection resets, timeouts) are retried with exponential
backoff and jitter, honouring a provider's `Retry-After`, within `RetryPolicy`'s attempt
counts and time budget and the request's own deadline. Permanent ones (401/403,
400/404/422, a refused answer: too large, a redirect) are not retried at all. The
provider's exception (our native providers' `ProviderError`, LiteLLM's, the OpenAI SDK's) is
classified by its HTTP status and class names, so nothing here imports LiteLLM.
"""

from __future__ import annotations

import email.utils
import math
import os
import random
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from rewardkit.core._errors import (
    JudgeAuthError,
    JudgeBadReply,
    JudgeError,
    JudgeRateLimited,
    JudgeRequestError,
    JudgeTimeout,
    JudgeUnavailable,
)
from rewardkit.models._provider import BadAnswer

__all__ = [
    "Failure",
    "RetryPolicy",
    "classify",
    "judge_error",
    "overloaded",
    "provider_message",
    "redact",
    "retry_after",
    "status_of",
]

Failure = Literal["timeout", "rate_limit", "unavailable", "auth", "request", "answer"]
"""What kind of failure one attempt met; the first three are transient."""

TRANSIENT: frozenset[Failure] = frozenset({"timeout", "rate_limit", "unavailable"})


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How hard one request tries before its outcome becomes an error.

    The defaults suit real providers; tests use tiny delays.
    """

    max_attempts: int = 6
    """Calls per request for transient errors, the first included (1 = never retry)."""
    max_timeouts: int = 2
    """Of those, how many may be timeouts (HTTP 408) before giving up; the request's own
    timeout ends it, retries included."""
    base_delay: float = 1.0
    """Seconds before the first retry; doubled for each later one."""
    max_delay: float = 30.0
    """Cap on one backoff wait (a provider's `Retry-After` may ask for longer)."""
    budget: float = 600.0
    """Seconds from a request's first call after which no retry starts or is waited for."""
    parse_attempts: int = 3
    """Calls allowed to get a reply the parser accepts (RewardKit: 3)."""

    def __post_init__(self) -> None:
        for name in ("max_attempts", "max_timeouts", "parse_attempts"):
            if getattr(self, name) < 1:
                raise ValueError(
                    f"RetryPolicy.{name} must be at least 1 (got {getattr(self, name)})"
                )
        for name in ("base_delay", "max_delay", "budget"):
            value = getattr(self, name)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"RetryPolicy.{name} must be a finite number ≥ 0 (got {value})")

    def backoff(self, retry: int) -> float:
        """Seconds to wait before retry number `retry` (1-based): half fixed, half random."""
        delay: float = min(self.max_delay, self.base_delay * 2.0 ** (retry - 1))
        return delay / 2 + random.uniform(0, delay / 2)


def classify(exc: BaseException) -> Failure:
    """The kind of failure a provider (or LiteLLM, or asyncio) exception stands for."""
    if isinstance(exc, BadAnswer):
        return "answer"
    names = {cls.__name__ for cls in type(exc).__mro__}
    status = status_of(exc)
    if isinstance(exc, TimeoutError) or names & {"Timeout", "APITimeoutError"} or status == 408:
        return "timeout"
    if status == 429 or "RateLimitError" in names:
        return "rate_limit"
    if _NO_KEY.search(str(exc)):  # LiteLLM reports some missing keys as HTTP 500
        return "auth"
    if isinstance(exc, ConnectionError) or "APIConnectionError" in names:
        return "unavailable"
    if status in (401, 403):
        return "auth"
    if status is not None and (status >= 500 or status in (409, 425)):
        return "unavailable"
    return "request"


OVERLOAD_STATUSES = frozenset({429, 503, 529})
"""Answers saying the provider is overloaded: rate limited, unavailable, Anthropic's 529."""


def overloaded(exc: BaseException) -> bool:
    """Whether `exc` says the provider wants fewer calls at once (lowers the model's limit)."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    return status_of(exc) in OVERLOAD_STATUSES or bool(
        names & {"RateLimitError", "ServiceUnavailableError", "OverloadedError"}
    )


_NO_KEY = re.compile(
    r"missing credentials|missing \w+ api key|api[_ ]key (is )?(not set|missing|required)"
    r"|no api[_ ]key",
    re.IGNORECASE,
)


def status_of(exc: BaseException) -> int | None:
    """The HTTP status an exception carries, if any."""
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) and not isinstance(status, bool) else None


def retry_after(exc: BaseException) -> float | None:
    """Seconds the provider asked to wait (`retry-after-ms` or `Retry-After`), if it did."""
    headers: Any = getattr(exc, "headers", None)
    if headers is None:
        headers = getattr(exc, "litellm_response_headers", None)
    if headers is None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
    if not isinstance(headers, Mapping) and not callable(getattr(headers, "get", None)):
        return None
    millis = _number(headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000
    value = headers.get("retry-after")
    seconds = _number(value)
    if seconds is not None or not isinstance(value, str):
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _number(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number >= 0 else None


_KEYLIKE = re.compile(r"\b(sk-[A-Za-z0-9_\-]{6,}|Bearer\s+[A-Za-z0-9._\-]{6,})")
_SECRET_ENV = re.compile(r"(_KEY|_TOKEN|_SECRET)$")
_PREFIX = re.compile(r"^(litellm\.\w+:\s*)?(\w+Error:\s*)?")


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """`text` with the given secrets, provider keys from the environment and key-like
    tokens (`sk-…`, `Bearer …`) replaced by `***`."""
    values = {s for s in secrets if s and len(s) >= 4}
    values |= {v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8}
    for value in sorted(values, key=len, reverse=True):
        text = text.replace(value, "***")
    return _KEYLIKE.sub("***", text)


def provider_message(exc: BaseException, secrets: tuple[str, ...] = ()) -> str:
    """The provider's error text without LiteLLM's class-name prefixes, redacted, short."""
    text = str(getattr(exc, "message", None) or exc) or type(exc).__name__
    text = _PREFIX.sub("", " ".join(text.split()))
    text = redact(text, secrets)
    return text if len(text) <= 300 else text[:297] + "..."


def judge_error(
    failure: Failure,
    exc: BaseException,
    *,
    model: str,
    attempts: int,
    elapsed: float,
    timeout: float,
    secrets: tuple[str, ...] = (),
    note: str = "",
) -> JudgeError:
    """Our exception for `exc` after `attempts` calls, with a message that says what to do."""
    status = status_of(exc)
    said = provider_message(exc, secrets)
    code = f"HTTP {status}: " if status is not None and failure != "timeout" else ""
    tried = f"{attempts} call{'s' if attempts != 1 else ''} in {elapsed:.1f}s"
    if failure == "timeout":
        return JudgeTimeout(
            f"{model}: no reply within the {timeout:g}s timeout ({tried}{note}). "
            "Raise the judge's timeout or check the provider's status.",
            model=model,
            attempts=attempts,
            status=status,
        )
    kinds: dict[Failure, tuple[type[JudgeError], str]] = {
        "rate_limit": (JudgeRateLimited, "rate limited by the provider"),
        "unavailable": (JudgeUnavailable, "the provider failed"),
        "auth": (JudgeAuthError, "credentials refused or missing"),
        "request": (JudgeRequestError, "the provider rejected the request"),
        "answer": (JudgeBadReply, "the answer was refused"),
    }
    cls, what = kinds[failure]
    return cls(
        f"{model}: {what} ({code}{said}) after {tried}{note}. {_fix(failure, model)}".rstrip(),
        model=model,
        attempts=attempts,
        status=status,
    )


def _fix(failure: Failure, model: str) -> str:
    provider = model.split("/", 1)[0] if "/" in model else ""
    key = f"{provider.upper().replace('-', '_')}_API_KEY" if provider else "the provider's API key"
    return {
        "rate_limit": "Lower --max-concurrent-llm or raise the provider's rate limit.",
        "unavailable": "Retry the run later or check the provider's status.",
        "auth": f"Check {key} (or the judge's api_key) and that it may use this model.",
        "request": "Check the model name and the judge's parameters.",
        "timeout": "",
        "answer": "",  # the refusal says what to do
    }[failure]
