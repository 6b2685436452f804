"""Anthropic's Messages API over `_http`.

OpenAI-format messages are translated: system messages become `system`, `image_url`
blocks become `image` blocks (base64 data URLs or plain URLs). A JSON schema is asked for
as a forced tool call whose input is the reply; with `reasoning_effort` (a thinking budget,
which forced tool calls do not allow) the schema goes into the system prompt instead.
"""

from __future__ import annotations

import json
from typing import Any

from rewardkit.models._capabilities import native_capabilities, plan
from rewardkit.models._http import Http
from rewardkit.models._provider import Answer, Prepared
from rewardkit.models._request import CompletionRequest
from rewardkit.models._route import Route
from rewardkit.models._usage import Usage

__all__ = ["DEFAULT_BASE", "AnthropicProvider", "messages_body", "reply_text"]

DEFAULT_BASE = "https://api.anthropic.com"
VERSION = "2023-06-01"
TOOL = "judge_response"
MAX_TOKENS = 4096
"""Sent when the judge sets none (the API requires one)."""
BUDGETS = {"minimal": 1024, "low": 1024, "medium": 2048, "high": 4096, "xhigh": 8192}
BUDGETS["max"] = 16384
"""Thinking tokens per `reasoning_effort` (`none`: no thinking)."""


class AnthropicProvider:
    """Sends requests to `route.base_url` + `/v1/messages`."""

    def __init__(self, http: Http) -> None:
        self.http = http

    async def prepare(self, request: CompletionRequest, route: Route) -> Prepared:
        planned = plan(request, native_capabilities("anthropic", route.model))
        params = dict(planned.params)
        system, messages = messages_body(planned.messages)
        body: dict[str, Any] = {
            "model": route.model,
            "max_tokens": params.pop("max_tokens", MAX_TOKENS),
            "messages": messages,
        }
        if "stop" in params:
            stop = params.pop("stop")
            body["stop_sequences"] = [stop] if isinstance(stop, str) else stop
        body.update(params)
        budget = BUDGETS.get(planned.reasoning_effort or "none")
        if budget is not None:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
            body["max_tokens"] = max(body["max_tokens"], budget + MAX_TOKENS)
        if planned.schema is not None and budget is None:
            body["tools"] = [
                {"name": TOOL, "description": "Record the verdict.", "input_schema": planned.schema}
            ]
            body["tool_choice"] = {"type": "tool", "name": TOOL}
        elif planned.schema is not None:
            schema = json.dumps(planned.schema, ensure_ascii=False)
            system.append(f"Reply with one JSON object matching this JSON schema:\n{schema}")
        if system:
            body["system"] = "\n\n".join(system)
        headers = {"anthropic-version": VERSION}
        if route.key:
            headers["x-api-key"] = route.key
        return Prepared((_url(route.base_url or DEFAULT_BASE), headers, body), planned.dropped)

    async def send(self, prepared: Prepared, timeout: float) -> Answer:
        url, headers, body = prepared.payload
        data, _ = await self.http.post(url, headers, body, timeout)
        usage = data.get("usage") if isinstance(data, dict) else None
        return Answer(reply_text(data), Usage.from_anthropic(usage))

    async def aclose(self) -> None:
        await self.http.aclose()


def _url(base: str) -> str:
    base = base.rstrip("/")
    if base.endswith("/v1/messages"):
        return base
    return f"{base}/messages" if base.endswith("/v1") else f"{base}/v1/messages"


def messages_body(messages: list[dict[str, Any]]) -> tuple[list[str], list[dict[str, Any]]]:
    """The system texts and the Messages API turns of OpenAI-format `messages`."""
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if message.get("role") == "system":
            system.append(content if isinstance(content, str) else _text_of(content))
            continue
        role = "assistant" if message.get("role") == "assistant" else "user"
        blocks = content if isinstance(content, str) else [_block(b) for b in content or []]
        turns.append({"role": role, "content": blocks})
    return system, turns


def _text_of(content: Any) -> str:
    parts = content if isinstance(content, list) else []
    return "\n".join(str(b.get("text", "")) for b in parts if isinstance(b, dict))


def _block(block: Any) -> dict[str, Any]:
    if not isinstance(block, dict):
        return {"type": "text", "text": ""}
    if block.get("type") != "image_url":
        return {"type": "text", "text": str(block.get("text", ""))}
    image = block.get("image_url")
    url = str(image.get("url", "")) if isinstance(image, dict) else str(image or "")
    if url.startswith("data:") and ";base64," in url:
        media, data = url[5:].split(";base64,", 1)
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def reply_text(data: Any) -> str:
    """The forced tool call's input as JSON, else the text blocks joined ("" when none)."""
    blocks = data.get("content") if isinstance(data, dict) else None
    if not isinstance(blocks, list):
        return ""
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "tool_use":
            return json.dumps(block.get("input"), ensure_ascii=False)
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    return "".join(t for t in texts if isinstance(t, str))
