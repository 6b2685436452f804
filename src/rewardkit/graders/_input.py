"""What a grader reads: OpenAI's `sample` and `item`, built from one of our samples.

- `sample.output_text`: the completion's text (the last assistant message's content).
- `sample.output_json`: that text parsed as JSON when it is a JSON object or array, else
  `None` (parsed under the untrusted-input caps).
- `sample.output_tools`: the `tool_calls` of the last assistant message (`[]` when none).
- `item`: the sample's `metadata`, with the ground truth added: a mapping's keys are spread
  into it, any other ground truth is `item.reference_answer`. The ground truth wins a clash.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rewardkit.core._untrusted import loads_json

__all__ = ["GraderInput", "grader_input"]


@dataclass(frozen=True)
class GraderInput:
    """The two namespaces a grader's templates and `grade(sample, item)` see."""

    sample: dict[str, Any]
    item: dict[str, Any]


def grader_input(
    messages: list[Mapping[str, Any]], ground_truth: Any = None, metadata: Any = None
) -> GraderInput:
    """OpenAI's `sample` and `item` for one conversation and its reference data.

    Example:
        >>> given = grader_input([{"role": "assistant", "content": '{"x": 1}'}], "4")
        >>> given.sample["output_json"], given.item
        ({'x': 1}, {'reference_answer': '4'})
    """
    last = messages[-1] if messages and messages[-1].get("role") == "assistant" else {}
    text = _text(last.get("content"))
    sample = {
        "output_text": text,
        "output_json": _json(text),
        "output_tools": list(last.get("tool_calls") or []),
    }
    item = dict(metadata) if isinstance(metadata, Mapping) else {}
    if isinstance(ground_truth, Mapping):
        item.update(ground_truth)
    elif ground_truth is not None:
        item["reference_answer"] = ground_truth
    return GraderInput(sample=sample, item=item)


def _text(content: object) -> str:
    """A message's content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "".join(p for p in parts if isinstance(p, str))
    return ""


def _json(text: str) -> Any:
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        data = loads_json(text, "the completion")
    except ValueError:  # not JSON, or over a cap (`CapExceeded` is a `ValueError`)
        return None
    return data if isinstance(data, dict | list) else None
