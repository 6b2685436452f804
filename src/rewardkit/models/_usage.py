"""Token usage and cost of model calls, in the field names of RewardKit's details files."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["Usage"]


@dataclass(frozen=True, kw_only=True)
class Usage:
    """Tokens (and cost, when it is known) spent on model calls.

    Usages add up, so a criterion's usage is the sum over its attempts and a reward's the
    sum over its criteria:

    >>> total = Usage(input_tokens=10, output_tokens=2) + Usage(input_tokens=5, cost_usd=0.01)
    >>> total.as_dict()["input_tokens"], total.cost_usd
    (15, 0.01)
    """

    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cache_read_input_tokens: int = 0
    """Prompt tokens the provider served from its prompt cache."""
    cache_creation_input_tokens: int = 0
    """Prompt tokens written to the provider's prompt cache (Anthropic)."""
    reasoning_output_tokens: int = 0
    """Output tokens spent on hidden reasoning, when the provider reports them."""
    cost_usd: float | None = None
    """The provider's reported cost (OpenRouter, a LiteLLM proxy) or LiteLLM's estimate;
    `None` when neither is known."""

    def __add__(self, other: Usage) -> Usage:
        counts = {
            f.name: getattr(self, f.name) + getattr(other, f.name)
            for f in fields(self)
            if f.name != "cost_usd"
        }
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return Usage(**counts, cost_usd=sum(costs) if costs else None)

    def as_dict(self) -> dict[str, int | float]:
        """The fields as a JSON-ready dict; `cost_usd` only when it is known."""
        out: dict[str, int | float] = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name != "cost_usd"
        }
        if self.cost_usd is not None:
            out["cost_usd"] = self.cost_usd
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Usage:
        """Read `as_dict()` output back; unknown keys and bad values are ignored."""
        counts = {f.name: _count(data.get(f.name)) for f in fields(cls) if f.name != "cost_usd"}
        return cls(**counts, cost_usd=_cost(data.get("cost_usd")))

    @classmethod
    def from_response(cls, response: Any, cost: float | None) -> Usage:
        """Read a LiteLLM `ModelResponse`'s `usage` (OpenAI and Anthropic field names)."""
        usage = getattr(response, "usage", None)
        prompt = getattr(usage, "prompt_tokens_details", None)
        completion = getattr(usage, "completion_tokens_details", None)
        return cls(
            input_tokens=_count(getattr(usage, "prompt_tokens", 0)),
            output_tokens=_count(getattr(usage, "completion_tokens", 0)),
            total_tokens=_count(getattr(usage, "total_tokens", 0)),
            cache_read_input_tokens=_count(getattr(prompt, "cached_tokens", 0)),
            cache_creation_input_tokens=_count(getattr(usage, "cache_creation_input_tokens", 0)),
            reasoning_output_tokens=_count(getattr(completion, "reasoning_tokens", 0)),
            cost_usd=_cost(cost),
        )

    @classmethod
    def from_openai(cls, usage: Any, cost: float | None = None) -> Usage:
        """Read a chat-completions JSON `usage` object (absent or malformed: zeros)."""
        data = usage if isinstance(usage, dict) else {}
        prompt = data.get("prompt_tokens_details")
        completion = data.get("completion_tokens_details")
        reported = data.get("cost")  # OpenRouter reports the price it charged
        return cls(
            input_tokens=_count(data.get("prompt_tokens")),
            output_tokens=_count(data.get("completion_tokens")),
            total_tokens=_count(data.get("total_tokens")),
            cache_read_input_tokens=_count(_get(prompt, "cached_tokens")),
            reasoning_output_tokens=_count(_get(completion, "reasoning_tokens")),
            cost_usd=_cost(cost if cost is not None else reported),
        )

    @classmethod
    def from_anthropic(cls, usage: Any) -> Usage:
        """Read a Messages API JSON `usage` object; input counts cached tokens too."""
        data = usage if isinstance(usage, dict) else {}
        fresh, out = _count(data.get("input_tokens")), _count(data.get("output_tokens"))
        read = _count(data.get("cache_read_input_tokens"))
        written = _count(data.get("cache_creation_input_tokens"))
        return cls(
            input_tokens=fresh + read + written,
            output_tokens=out,
            total_tokens=fresh + read + written + out,
            cache_read_input_tokens=read,
            cache_creation_input_tokens=written,
        )


def _get(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, dict) else None


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _cost(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        return float(value)
    return None
