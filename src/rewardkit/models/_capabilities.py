"""What a model accepts, from a small table, and what of a request is sent because of it.

The native providers know models from this table, never by importing LiteLLM:

- `openai/`: `response_format` for gpt-4o, gpt-4.1, gpt-4.5, gpt-5, o1, o3, o4;
  `reasoning_effort` for o1, o3, o4, gpt-5 (not `-chat`); images for all but gpt-3.5,
  gpt-4 (not `-turbo`), o1-mini, o1-preview, o3-mini.
- `anthropic/`: `response_format` for every model (as a forced tool call);
  `reasoning_effort` (as a thinking budget) for claude-3-7 and the claude-*-4 families on;
  images for every model.
- `hosted_vllm/` and any other model with a base URL: no `response_format`, no
  `reasoning_effort`, images.

A model the table does not know gets the last row: the reply is still asked for as JSON
by the judge's prompt, and nothing the server may refuse is sent. A judge can override any
of the three (`supports` in a judge TOML; `CompletionRequest.supports`). Models routed to
LiteLLM get LiteLLM's own answers (`_litellm_provider`), with the same override on top.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rewardkit.models._request import CompletionRequest

__all__ = ["OPENAI_PARAMS", "Capabilities", "Planned", "native_capabilities", "plan"]


@dataclass(frozen=True)
class Capabilities:
    """What one model accepts."""

    schema: bool
    """A JSON-schema `response_format`."""
    reasoning: bool
    """`reasoning_effort`."""
    params: frozenset[str] | None
    """The extra parameters it takes, or `None` when unknown (all are sent)."""
    images: bool = True
    """Image content blocks (without: each is replaced by a note, and `images` is dropped)."""

    def overridden(self, supports: Mapping[str, bool]) -> Capabilities:
        """These capabilities with a judge's `supports` overrides applied."""
        return replace(
            self,
            schema=supports.get("response_format", self.schema),
            reasoning=supports.get("reasoning_effort", self.reasoning),
            images=supports.get("images", self.images),
        )


OPENAI_PARAMS = frozenset(
    {"temperature", "top_p", "max_tokens", "max_completion_tokens", "stop", "seed", "n"}
    | {"presence_penalty", "frequency_penalty", "logit_bias", "logprobs", "top_logprobs"}
    | {"user", "service_tier", "metadata", "store", "verbosity", "tools", "tool_choice"}
    | {"parallel_tool_calls", "prediction", "modalities", "web_search_options"}
)
"""The chat-completions parameters sent to OpenAI-compatible servers (others are dropped)."""
ANTHROPIC_PARAMS = frozenset({"temperature", "top_p", "top_k", "max_tokens", "stop", "metadata"})

_OPENAI_SCHEMA = re.compile(r"(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1(?!-mini|-preview)|o3|o4)")
_OPENAI_REASONING = re.compile(r"(o1|o3|o4|gpt-5)(?!.*-chat)")
_OPENAI_NO_IMAGES = re.compile(r"(gpt-3\.5|gpt-4(?!o|\.|-turbo)|o1-mini|o1-preview|o3-mini)")
_CLAUDE_REASONING = re.compile(r"claude-(3-7|(sonnet|opus|haiku)-[4-9]|[4-9])")


def native_capabilities(provider: str, model: str) -> Capabilities:
    """The table's answer for `model` (without its prefix) under a native `provider`."""
    if provider == "anthropic":
        return Capabilities(
            schema=True, reasoning=bool(_CLAUDE_REASONING.match(model)), params=ANTHROPIC_PARAMS
        )
    if provider == "openai":
        return Capabilities(
            schema=bool(_OPENAI_SCHEMA.match(model)),
            reasoning=bool(_OPENAI_REASONING.match(model)),
            params=OPENAI_PARAMS,
            images=not _OPENAI_NO_IMAGES.match(model),
        )
    return Capabilities(schema=False, reasoning=False, params=OPENAI_PARAMS)


@dataclass(frozen=True)
class Planned:
    """What of a request is sent: each field is `None` when it is not."""

    messages: list[dict[str, Any]]
    """A deep copy of the messages (images replaced by notes when unsupported)."""
    schema: dict[str, Any] | None
    reasoning_effort: str | None
    params: dict[str, Any]
    dropped: tuple[str, ...]
    """The names of what the caller asked for and the model does not take."""


def plan(request: CompletionRequest, caps: Capabilities) -> Planned:
    """Split `request` into what `caps` lets through and what is dropped (in that order:
    `response_format`, `reasoning_effort`, the extra parameters, `images`)."""
    caps = caps.overridden(request.supports)
    dropped: list[str] = []
    schema = copy.deepcopy(dict(request.schema)) if request.schema is not None else None
    if schema is not None and not caps.schema:
        schema = None
        dropped.append("response_format")
    effort = request.reasoning_effort
    if effort is not None and not caps.reasoning:
        effort = None
        dropped.append("reasoning_effort")
    params: dict[str, Any] = {}
    for name, value in request.params.items():
        if caps.params is None or name in caps.params:
            params[name] = copy.deepcopy(value)
        else:
            dropped.append(name)
    messages = [dict(copy.deepcopy(m)) for m in request.messages]
    if not caps.images and _strip_images(messages):
        dropped.append("images")
    return Planned(messages, schema, effort, params, tuple(dropped))


def _strip_images(messages: list[dict[str, Any]]) -> bool:
    """Replace image blocks by a note saying so; whether there were any."""
    found = False
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for i, block in enumerate(content):
            if isinstance(block, dict) and block.get("type") == "image_url":
                note = "[an image was left out: this model does not accept images]"
                content[i] = {"type": "text", "text": note}
                found = True
    return found
