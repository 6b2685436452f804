"""A chat-completion request as data: its fields, its cache key, and what is sent for it.

`CompletionRequest` holds what the caller wants; `litellm_kwargs` turns it into the
arguments of `litellm.acompletion`, sending the JSON schema, `reasoning_effort` and each
extra parameter only when LiteLLM says the model supports it (RewardKit always sends
`reasoning_effort`, which makes gpt-4o and claude-3-5-haiku raise).
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from rewardkit.judges import _litellm
from rewardkit.judges._usage import Usage

__all__ = [
    "Capabilities",
    "CompletionRequest",
    "CompletionResult",
    "Message",
    "capabilities",
    "litellm_kwargs",
]

Message = Mapping[str, Any]
"""One OpenAI-format chat message, e.g. `{"role": "user", "content": "..."}`."""

KEY_FORMAT = "rewardkit-judge-request/1"
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
    """A LiteLLM model name, e.g. `openai/gpt-4o` or `anthropic/claude-sonnet-4-5`."""
    messages: Sequence[Message]
    """OpenAI-format messages (stored as a tuple)."""
    schema: Mapping[str, Any] | None = None
    """JSON schema of the reply, sent as `response_format` when the model supports it."""
    timeout: float = 300.0
    """Seconds one call may take."""
    reasoning_effort: str | None = None
    """Sent only when set and LiteLLM says the model supports it."""
    api_base: str | None = None
    api_key: str | None = None
    """Never part of `key()`, a repr, a message or a cache file."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Further parameters (`temperature`, `max_tokens`, ...), each sent if supported."""
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
    """Requested parameters not sent because LiteLLM says the model does not support them."""


@dataclass(frozen=True)
class Capabilities:
    """What LiteLLM says one model accepts."""

    schema: bool
    """A JSON-schema `response_format`."""
    reasoning: bool
    """`reasoning_effort`."""
    params: frozenset[str] | None
    """The OpenAI parameters it maps, or `None` when LiteLLM cannot say (all are sent)."""


def capabilities(litellm: ModuleType, model: str) -> Capabilities:
    """Ask LiteLLM (from its local model map, no network) what `model` accepts."""
    return Capabilities(
        schema=_litellm.supports_response_schema(litellm, model),
        reasoning=_litellm.supports_reasoning(litellm, model),
        params=_litellm.supported_params(litellm, model),
    )


def litellm_kwargs(
    request: CompletionRequest, caps: Capabilities
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The arguments of `litellm.acompletion` for `request`, and the names left out."""
    kwargs: dict[str, Any] = {
        "model": request.model,
        "messages": copy.deepcopy(list(request.messages)),
        "timeout": request.timeout,
        "max_retries": 0,  # ours are the only retries, so counts and budgets hold
    }
    if request.api_base is not None:
        kwargs["api_base"] = request.api_base
    if request.api_key is not None:
        kwargs["api_key"] = request.api_key
    dropped: list[str] = []
    if request.schema is not None:
        if caps.schema:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": "judge_response",
                    "schema": copy.deepcopy(dict(request.schema)),
                    "strict": True,
                },
            }
        else:
            dropped.append("response_format")
    if request.reasoning_effort is not None:
        if caps.reasoning:
            kwargs["reasoning_effort"] = request.reasoning_effort
        else:
            dropped.append("reasoning_effort")
    for name, value in request.params.items():
        if caps.params is None or name in caps.params:
            kwargs[name] = copy.deepcopy(value)
        else:
            dropped.append(name)
    return kwargs, tuple(dropped)
