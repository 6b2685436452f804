"""Read what a built-in scores: the model's response and the ground truth.

Every built-in scores `messages[-1]`, which must come from the assistant; each accepts
messages as `Message` objects or as plain OpenAI-format dicts, and text content either as
a string or as a list of content parts (only the text parts count).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.types import EvaluateResult, MetricResult

__all__ = [
    "NoResponse",
    "content_text",
    "field",
    "no_response",
    "reference_texts",
    "response_message",
    "response_text",
    "zero_result",
]


class NoResponse(Exception):
    """`messages` holds no assistant response to score (the message says why)."""


def field(message: object, name: str) -> Any:
    """`message[name]` for a dict, `message.name` for an object; `None` when absent."""
    if isinstance(message, Mapping):
        return message.get(name)
    return getattr(message, name, None)


def content_text(content: object) -> str:
    """The text of a message's `content`: a string, content parts, or `None` (→ "")."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        texts = [field(part, "text") for part in content if field(part, "type") in ("text", None)]
        return "\n".join(text for text in texts if isinstance(text, str))
    return str(content)


def response_message(messages: Sequence[object] | None) -> object:
    """The last message, which must come from the assistant.

    Raises:
        NoResponse: `messages` is empty or its last message is not the assistant's.
    """
    if not messages:
        raise NoResponse("no messages were given")
    last = messages[-1]
    role = field(last, "role")
    if role != "assistant":
        raise NoResponse(f"the last message comes from {role!r}, not from the assistant")
    return last


def response_text(messages: Sequence[object] | None) -> str:
    """The text of the assistant's response (see `response_message`)."""
    return content_text(field(response_message(messages), "content"))


def zero_result(metric: str, reason: str) -> EvaluateResult:
    """A score of 0.0 whose one metric, `metric`, fails for `reason`."""
    return EvaluateResult(
        score=0.0,
        reason=reason,
        metrics={metric: MetricResult(score=0.0, reason=reason, success=False)},
    )


def no_response(metric: str, problem: NoResponse) -> EvaluateResult:
    """The zero score a built-in gives when there is no response to score."""
    return zero_result(metric, f"Nothing to score: {problem}.")


def _is_message(value: object) -> bool:
    return field(value, "role") is not None and not isinstance(value, str)


def reference_texts(ground_truth: object, *, function: str) -> list[str]:
    """The acceptable reference answers given as `ground_truth`.

    Accepted shapes: a string or a number (one reference); a message (its text); a list
    of messages, i.e. the expected conversation (the text of its last assistant message,
    or of its last message); a list of strings (several acceptable references).

    Raises:
        TypeError: `ground_truth` has none of those shapes (the message names `function`).
    """
    if isinstance(ground_truth, str):
        return [ground_truth]
    if isinstance(ground_truth, int | float) and not isinstance(ground_truth, bool):
        return [str(ground_truth)]
    if _is_message(ground_truth):
        return [content_text(field(ground_truth, "content"))]
    if isinstance(ground_truth, Sequence) and ground_truth:
        items = list(ground_truth)
        if all(_is_message(item) for item in items):
            answers = [m for m in items if field(m, "role") == "assistant"] or items
            return [content_text(field(answers[-1], "content"))]
        if all(isinstance(item, str) for item in items):
            return [str(item) for item in items]
    raise TypeError(
        f"{function}: ground_truth must be a string, a message, a list of messages or a "
        f"non-empty list of strings (got {type(ground_truth).__name__}: {ground_truth!r:.80})"
    )
