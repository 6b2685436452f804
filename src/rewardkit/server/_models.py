"""The service's request and response bodies (they make its OpenAPI schema)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "BatchIn",
    "ChatMessage",
    "ErrorOut",
    "ResultOut",
    "SampleIn",
    "ValidateIn",
    "ValidateOut",
]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatMessage(BaseModel):
    """One chat turn; extra keys (`tool_calls`, `name`, ...) are kept."""

    model_config = ConfigDict(extra="allow")
    role: str
    content: Any
    """Text, content parts, or `null` (e.g. with `tool_calls`)."""


class SampleIn(_Strict):
    """One rollout; every field optional, each reward reads what it needs."""

    messages: list[ChatMessage] | None = None
    prompt: str | list[ChatMessage] | None = None
    completion: str | list[ChatMessage] | None = None
    ground_truth: Any = None
    workspace: str | None = Field(
        default=None, description="a directory on the server, inside its --workspace-root"
    )
    trajectory: Any = None
    metadata: dict[str, Any] | None = Field(
        default=None, description="echoed back in the result (e.g. an `id`)"
    )


class BatchIn(_Strict):
    """Samples scored concurrently; results come back in the same order."""

    samples: list[SampleIn]


class ValidateIn(_Strict):
    """A configuration to check, as a path on the server."""

    config: str = Field(
        min_length=1, description="a tests directory or an eval.yaml, on the server"
    )


class ResultOut(BaseModel):
    """One sample's result; `reward` is `null` when the sample is invalid (never a silent 0)."""

    reward: float | None
    valid: bool
    judges: dict[str, float | None]
    rewards: dict[str, float]
    error: str | None
    reason: str | None
    metadata: dict[str, Any]
    duration_s: float


class ValidateOut(BaseModel):
    """A valid configuration and what it will compute."""

    valid: bool
    kind: str
    plan: str


class ErrorOut(BaseModel):
    """Every error response."""

    detail: str
    errors: list[dict[str, Any]] | None = None
