"""OpenAI chat completions over `_http`: api.openai.com and every compatible server.

Works for OpenAI, vLLM, SGLang, TGI, Ollama, OpenRouter, a LiteLLM proxy and Azure's OpenAI
endpoint. What is sent follows `_capabilities`: the judge's JSON schema as a strict
`response_format`, `reasoning_effort`, the known chat parameters (`max_tokens` becomes
`max_completion_tokens` for reasoning models, which refuse the former).
"""

from __future__ import annotations

from typing import Any

from rewardkit.models._capabilities import native_capabilities, plan
from rewardkit.models._http import Http
from rewardkit.models._provider import Answer, Prepared
from rewardkit.models._request import CompletionRequest
from rewardkit.models._route import Route
from rewardkit.models._usage import Usage

__all__ = ["DEFAULT_BASE", "OpenAIProvider", "reply_text"]

DEFAULT_BASE = "https://api.openai.com/v1"
SCHEMA_NAME = "judge_response"


class OpenAIProvider:
    """Sends chat-completion requests to `route.base_url` + `/chat/completions`."""

    def __init__(self, http: Http) -> None:
        self.http = http

    async def prepare(self, request: CompletionRequest, route: Route) -> Prepared:
        caps = native_capabilities(route.provider, route.model)
        planned = plan(request, caps)
        body: dict[str, Any] = {"model": route.model, "messages": planned.messages}
        body.update(planned.params)
        if planned.schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": SCHEMA_NAME, "schema": planned.schema, "strict": True},
            }
        if planned.reasoning_effort is not None:
            body["reasoning_effort"] = planned.reasoning_effort
            if "max_tokens" in body:
                body["max_completion_tokens"] = body.pop("max_tokens")
        headers = {"Authorization": f"Bearer {route.key}"} if route.key else {}
        base = (route.base_url or DEFAULT_BASE).rstrip("/")
        url = base if base.endswith("/chat/completions") else f"{base}/chat/completions"
        return Prepared((url, headers, body), planned.dropped)

    async def send(self, prepared: Prepared, timeout: float) -> Answer:
        url, headers, body = prepared.payload
        data, answer_headers = await self.http.post(url, headers, body, timeout)
        cost = answer_headers.get("x-litellm-response-cost")  # a LiteLLM proxy prices calls
        return Answer(reply_text(data), Usage.from_openai(_get(data, "usage"), _float(cost)))

    async def aclose(self) -> None:
        await self.http.aclose()


def reply_text(data: Any) -> str:
    """The first choice's message text ("" when there is none)."""
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return ""
    return content if isinstance(content, str) else ""


def _get(data: Any, key: str) -> Any:
    return data.get(key) if isinstance(data, dict) else None


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None
