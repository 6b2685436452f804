"""A chat-completion request as data: its fields, its cache key, and what a call returned.

`CompletionRequest` holds what the caller wants; each provider turns it into its own wire
format, sending the JSON schema, `reasoning_effort` and each extra parameter only when the
model supports them (see `_capabilities`; RewardKit always sends `reasoning_effort`, which
makes gpt-4o and claude-3-5-haiku raise).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rewardkit.models._usage import Usage

__all__ = ["FEATURES", "CompletionRequest", "CompletionResult", "Message", "feature_flags"]

Message = Mapping[str, Any]
"""One OpenAI-format chat message, e.g. `{"role": "user", "content": "..."}`."""

KEY_FORMAT = "rewardkit-judge-request/1"
FEATURES = ("images", "reasoning_effort", "response_format")
"""What a request's `supports` may declare about its model."""


def feature_flags(value: Mapping[Any, Any], error: Callable[[str, str], object]) -> dict[str, bool]:
    """A `supports` mapping's valid flags; each bad entry goes to `error(message, key)`
    (`key` as `supports.<name>`), for a judge TOML and an eval.yaml judge alike."""
    from rewardkit.core._errors import did_you_mean

    for key, flag in value.items():
        if key not in FEATURES:
            hint = did_you_mean(str(key), FEATURES)
            error(f"unknown key {key!r}; valid: {', '.join(FEATURES)}.{hint}", f"supports.{key}")
        elif not isinstance(flag, bool):
            error(f"must be true or false (got {flag!r})", f"supports.{key}")
    return {k: v for k, v in value.items() if k in FEATURES and isinstance(v, bool)}


_RESERVED = frozenset(
    {"model", "messages", "response_format", "reasoning_effort", "timeout", "api_key"}
    | {"api_base", "base_url", "max_retries", "num_retries", "stream"}
)


@dataclass(frozen=True, kw_only=True, repr=False)
class CompletionRequest:
    """Everything one chat-completion call needs; `key()` names its answer.

    >>> hi = [{"role": "user", "content": "hi"}]
    >>> CompletionRequest(model="openai/gpt-4o", messages=hi)
    CompletionRequest(model='openai/gpt-4o', messages=1, sample=0, key='180ca4b2894f')
    """

    model: str
    """`provider/model` as LiteLLM spells it, e.g. `openai/gpt-4o` or
    `anthropic/claude-sonnet-4-5`."""
    messages: Sequence[Message]
    """OpenAI-format messages (stored as a tuple)."""
    schema: Mapping[str, Any] | None = None
    """JSON schema of the reply, sent as `response_format` when the model supports it."""
    timeout: float = 300.0
    """Seconds one call may take."""
    reasoning_effort: str | None = None
    """Sent only when set and the model supports it."""
    api_base: str | None = None
    api_key: str | None = None
    """Never part of `key()`, a repr, a message or a cache file."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Further parameters (`temperature`, `max_tokens`, ...), each sent if supported."""
    supports: Mapping[str, bool] = field(default_factory=dict)
    """Overrides of the capability table for this model, e.g. `{"response_format": True}`
    (keys: `FEATURES`)."""
    sample: int = 0
    """Which of a judge's repeated samples this is: samples are distinct requests, never
    shared or answered from one another's cache entry."""

    def __post_init__(self) -> None:
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError(f"CompletionRequest.model must be a model name (got {self.model!r})")
        if not (isinstance(self.timeout, int | float) and math.isfinite(self.timeout)) or (
            self.timeout <= 0
        ):
            raise ValueError(
                f"CompletionRequest.timeout must be > 0 seconds (got {self.timeout!r})"
            )
        messages = tuple(self.messages)
        if not messages or not all(isinstance(m, Mapping) and "role" in m for m in messages):
            raise ValueError("CompletionRequest.messages must be dicts with a 'role', at least one")
        reserved = sorted(_RESERVED & set(self.params))
        if reserved:
            raise ValueError(
                f"CompletionRequest.params may not set {', '.join(reserved)}: "
                "use the request's own fields"
            )
        unknown = sorted(set(self.supports) - set(FEATURES))
        if unknown or not all(isinstance(v, bool) for v in self.supports.values()):
            raise ValueError(
                f"CompletionRequest.supports must map {', '.join(FEATURES)} to true or false "
                f"(got {dict(self.supports)!r})"
            )
        object.__setattr__(self, "messages", messages)
        object.__setattr__(self, "_key", _digest(self))

    def key(self) -> str:
        """sha256 of a canonical JSON of what determines the answer (no timeout, no key)."""
        key: str = self.__dict__["_key"]
        return key

    def __repr__(self) -> str:
        return (
            f"CompletionRequest(model={self.model!r}, messages={len(self.messages)}, "
            f"sample={self.sample}, key={self.key()[:12]!r})"
        )


def _digest(request: CompletionRequest) -> str:
    document = {
        "format": KEY_FORMAT,
        "model": request.model,
        "api_base": request.api_base,
        "messages": request.messages,
        "schema": request.schema,
        "reasoning_effort": request.reasoning_effort,
        "params": request.params,
        "sample": request.sample,
    }
    if request.supports:  # only when set, so keys of requests without it stay as they were
        document["supports"] = dict(request.supports)
    try:
        text = json.dumps(
            document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"CompletionRequest for {request.model}: messages, schema and params must be "
            f"JSON data ({exc})"
        ) from None
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, kw_only=True)
class CompletionResult:
    """What one `complete` call got, and what it cost."""

    text: str
    """The reply's text (the one the parser accepted, when there is a parser)."""
    usage: Usage
    """Tokens and cost of the calls this result made (zero for cache hits and shared calls)."""
    attempts: int
    """Calls this result made: retries and re-asks included, 0 for a cache hit."""
    cached: bool = False
    """Answered from the persistent cache."""
    shared: bool = False
    """The reply came from an identical request that was already in flight."""
    duration_ms: float = 0.0
    dropped: tuple[str, ...] = ()
    """Requested parameters (or `images`) not sent because the model does not support them."""
