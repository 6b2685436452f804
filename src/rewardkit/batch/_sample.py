"""`Sample`: what one rollout hands to a reward, checked once at the edge."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardkit.core._errors import RewardKitError, did_you_mean

__all__ = ["FIELDS", "Sample", "SampleError", "as_sample"]

FIELDS = ("messages", "prompt", "completion", "ground_truth", "workspace", "trajectory", "metadata")
_KNOWN = frozenset(FIELDS)


class SampleError(RewardKitError, ValueError):
    """A sample is missing a field its reward needs, or a field has the wrong type."""


@dataclass(frozen=True, kw_only=True)
class Sample:
    """One rollout to score. Every field is optional; each reward reads what it needs.

    Example:
        >>> as_sample({"prompt": "2+2?", "completion": "4"}).chat()[-1]
        {'role': 'assistant', 'content': '4'}
    """

    messages: list[dict[str, Any]] | None = None
    """The conversation, as `{"role", "content"}` dicts."""
    prompt: str | list[dict[str, Any]] | None = None
    """The prompt, as text or (conversational) messages."""
    completion: str | list[dict[str, Any]] | None = None
    """The model's answer, as text or (conversational) messages."""
    ground_truth: Any = None
    workspace: Path | None = None
    """A directory the rollout left behind (tests dirs need one)."""
    trajectory: Any = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def chat(self) -> list[dict[str, Any]]:
        """`messages`, else the conversation built from `prompt` and `completion`.

        Raises:
            SampleError: when the sample has neither `messages` nor `completion`.
        """
        if self.messages is not None:
            return self.messages
        if self.completion is None:
            raise SampleError(
                "sample has no 'messages' and no 'completion'; reward functions need one "
                "(e.g. {'prompt': '...', 'completion': '...'})"
            )
        return _turns(self.prompt, "user") + _turns(self.completion, "assistant")

    def text(self) -> str | None:
        """The completion as text: `completion`, else the last message's content."""
        if isinstance(self.completion, str):
            return self.completion
        turns = self.completion or self.messages
        if turns:
            content = turns[-1].get("content")
            return content if isinstance(content, str) else None
        return None


def as_sample(data: Sample | Mapping[str, Any]) -> Sample:
    """Check a mapping's fields and build a `Sample` (a `Sample` is returned as is).

    Raises:
        SampleError: naming the unknown or invalid field and what it must be.
    """
    if isinstance(data, Sample):
        return data
    if not isinstance(data, Mapping):
        raise SampleError(f"a sample must be a mapping of {', '.join(FIELDS)} (got {_kind(data)})")
    if not data.keys() <= _KNOWN:
        key = next(key for key in data if key not in _KNOWN)
        hint = did_you_mean(str(key), FIELDS)
        raise SampleError(f"unknown sample field {key!r}.{hint} Fields: {', '.join(FIELDS)}")
    workspace = data.get("workspace")
    if workspace is not None and not isinstance(workspace, str | Path):
        raise SampleError(f"sample field 'workspace' must be a path (got {_kind(workspace)})")
    return Sample(
        messages=_messages("messages", data.get("messages"), text_ok=False),  # type: ignore[arg-type]
        prompt=_messages("prompt", data.get("prompt"), text_ok=True),
        completion=_messages("completion", data.get("completion"), text_ok=True),
        ground_truth=data.get("ground_truth"),
        workspace=None if workspace is None else Path(workspace),
        trajectory=data.get("trajectory"),
        metadata=_metadata(data.get("metadata")),
    )


def _messages(name: str, value: object, *, text_ok: bool) -> str | list[dict[str, Any]] | None:
    if value is None or (text_ok and isinstance(value, str)):
        return value
    if isinstance(value, list):
        for i, item in enumerate(value):
            if not isinstance(item, Mapping) or "role" not in item:
                raise SampleError(
                    f"sample field {name!r}[{i}] must be a message mapping with 'role' and "
                    f"'content' (got {_kind(item)})"
                )
        return [dict(item) for item in value]
    want = "text or a list of messages" if text_ok else "a list of messages"
    raise SampleError(f"sample field {name!r} must be {want} (got {_kind(value)})")


def _metadata(value: object) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SampleError(f"sample field 'metadata' must be a mapping (got {_kind(value)})")
    return dict(value)


def _turns(value: str | list[dict[str, Any]] | None, role: str) -> list[dict[str, Any]]:
    if value is None:
        return []
    return [{"role": role, "content": value}] if isinstance(value, str) else list(value)


def _kind(value: object) -> str:
    return f"{type(value).__name__} {value!r}"[:80]
