"""What a results file's rollouts hold (joined by `id`): completion lengths, and the prompt
and completion texts of the cases the page lists."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rewardkit.core._errors import UntrustedInputError
from rewardkit.core._untrusted import loads_json
from rewardkit.report._load import lines
from rewardkit.report._run import Run

__all__ = ["completion_length", "completion_text", "prompt_text", "rollout_lengths", "samples"]


def completion_text(sample: object) -> str | None:
    """A rollout's `completion`, else its last assistant message.

    >>> completion_text({"messages": [{"role": "assistant", "content": "four"}]})
    'four'
    """
    if not isinstance(sample, dict):
        return None
    completion = sample.get("completion")
    if isinstance(completion, str):
        return completion
    messages = completion if isinstance(completion, list) else sample.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "assistant":
                content = message.get("content")
                return content if isinstance(content, str) else None
    return None


def completion_length(sample: object) -> int | None:
    """The characters of a rollout's completion (see `completion_text`).

    >>> completion_length({"completion": "four"})
    4
    """
    text = completion_text(sample)
    return None if text is None else len(text)


def prompt_text(sample: dict[str, Any]) -> str | None:
    """A rollout's `prompt`, else its messages before the completion, one `role: text` each.

    >>> prompt_text({"messages": [{"role": "user", "content": "2+2?"},
    ...                           {"role": "assistant", "content": "4"}]})
    'user: 2+2?'
    """
    prompt = sample.get("prompt")
    if isinstance(prompt, str):
        return prompt
    messages = prompt if isinstance(prompt, list) else sample.get("messages")
    if not isinstance(messages, list):
        return None
    messages = [m for m in messages if isinstance(m, dict)]
    last = messages[-1].get("role") if messages else None
    if prompt is None and "completion" not in sample and last == "assistant":
        messages = messages[:-1]  # the completion itself
    return "\n\n".join(f"{m.get('role', '?')}: {_content(m.get('content'))}" for m in messages)


def _content(content: object) -> str:
    """A message's text: a string, or the `text` of its parts."""
    if isinstance(content, list):
        parts = (p.get("text") for p in content if isinstance(p, dict))
        return "\n".join(p for p in parts if isinstance(p, str))
    return content if isinstance(content, str) else ""


def samples(rollouts: Path) -> Iterator[tuple[str, object]]:
    """Each rollout with its id (default: its line number); lines that are not JSON skipped
    (`rewardkit score` reported them already).

    Raises:
        OSError, UntrustedInputError: the file cannot be read, or is over the cap.
    """
    for number, line in lines(rollouts):
        try:
            sample = loads_json(line, f"{rollouts}:{number}")
        except ValueError:
            continue
        key = sample.get("id", number) if isinstance(sample, dict) else number
        yield str(key), sample


def rollout_lengths(rollouts: Path, run: Run) -> dict[str, int]:
    """Each rollout's completion length by id; none when the file cannot be read, which is
    `run`'s problem."""
    found: dict[str, int] = {}
    try:
        for key, sample in samples(rollouts):
            length = completion_length(sample)
            if length is not None:
                found[key] = length
    except (OSError, UntrustedInputError) as exc:
        run.problem(str(rollouts), str(exc))
        return {}
    return found
