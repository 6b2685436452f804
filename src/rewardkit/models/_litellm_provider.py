"""Every other provider through LiteLLM (the `llm` extra), imported only when one is used.

What a model accepts comes from LiteLLM's local model map (no network), with the judge's
`supports` overrides on top; LiteLLM's own retries are off, so ours are the only ones.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from rewardkit.models import _litellm
from rewardkit.models._capabilities import Capabilities, plan
from rewardkit.models._provider import Answer, Prepared
from rewardkit.models._request import CompletionRequest
from rewardkit.models._route import Route
from rewardkit.models._usage import Usage

__all__ = ["LiteLLMProvider", "litellm_capabilities"]


class LiteLLMProvider:
    """Sends requests with `litellm.acompletion`."""

    def __init__(self) -> None:
        self._capabilities: dict[str, Capabilities] = {}
        self._holding = False
        self._litellm: Any = None

    async def prepare(self, request: CompletionRequest, route: Route) -> Prepared:
        litellm = self._litellm = await _litellm.load()
        if not self._holding:
            self._holding = True
            _litellm.users.hold()
        caps = self._capabilities.get(request.model)
        if caps is None:
            caps = self._capabilities[request.model] = litellm_capabilities(litellm, request.model)
        planned = plan(request, caps)
        kwargs: dict[str, Any] = {
            "model": request.model,
            "messages": planned.messages,
            "max_retries": 0,  # ours are the only retries, so counts and budgets hold
            **planned.params,
        }
        if route.base_url is not None:
            kwargs["api_base"] = route.base_url
        if route.key is not None:
            kwargs["api_key"] = route.key
        if planned.schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "judge_response", "schema": planned.schema, "strict": True},
            }
        if planned.reasoning_effort is not None:
            kwargs["reasoning_effort"] = planned.reasoning_effort
        return Prepared(kwargs, planned.dropped)

    async def send(self, prepared: Prepared, timeout: float) -> Answer:
        # What is left of the request's deadline; the client's own deadline ends it anyway.
        response = await self._litellm.acompletion(**prepared.payload, timeout=timeout)
        return Answer(_text(response), Usage.from_response(response, _cost(response)))

    async def aclose(self) -> None:
        """Let LiteLLM's HTTP sessions close once no open client uses them (idempotent)."""
        if self._holding:
            self._holding = False
            await _litellm.users.release()


def litellm_capabilities(litellm: ModuleType, model: str) -> Capabilities:
    """What LiteLLM's local model map says `model` accepts."""
    params = _supported_params(litellm, model)
    return Capabilities(
        schema=_ask(litellm, "supports_response_schema", model)
        and (params is None or "response_format" in params),
        reasoning=_ask(litellm, "supports_reasoning", model)
        and (params is None or "reasoning_effort" in params),
        params=params,
    )


def _supported_params(litellm: ModuleType, model: str) -> frozenset[str] | None:
    """The OpenAI parameters LiteLLM maps for `model`, or `None` when it cannot say."""
    try:
        provider = litellm.get_llm_provider(model=model)
        params = litellm.get_supported_openai_params(
            model=provider[0], custom_llm_provider=provider[1]
        )
    except Exception:  # an unmapped model or provider: LiteLLM cannot say
        return None
    return frozenset(params) if isinstance(params, list) else None


def _ask(litellm: ModuleType, function: str, model: str) -> bool:
    try:
        return bool(getattr(litellm, function)(model=model))
    except Exception:  # LiteLLM raises for models missing from its map: "not supported"
        return False


def _text(response: Any) -> str:
    try:
        content = response.choices[0].message.content
    except (AttributeError, IndexError, TypeError):
        return ""
    return content if isinstance(content, str) else ""


def _cost(response: Any) -> float | None:
    """LiteLLM's own estimate (it prices every response it can; asking again costs ≈1 ms)."""
    hidden = getattr(response, "_hidden_params", None)
    cost = hidden.get("response_cost") if isinstance(hidden, dict) else None
    return cost if isinstance(cost, int | float) and cost >= 0 else None
