"""Completion lengths from the rollouts file a results file was scored from (joined by `id`)."""

from __future__ import annotations

from pathlib import Path

from rewardkit._errors import UntrustedInputError
from rewardkit._untrusted import loads_json
from rewardkit.report._load import lines
from rewardkit.report._run import Run

__all__ = ["completion_length", "rollout_lengths"]


def completion_length(sample: object) -> int | None:
    """The characters of a rollout's `completion`, else of its last assistant message.

    >>> completion_length({"messages": [{"role": "assistant", "content": "four"}]})
    4
    """
    if not isinstance(sample, dict):
        return None
    completion = sample.get("completion")
    if isinstance(completion, str):
        return len(completion)
    messages = completion if isinstance(completion, list) else sample.get("messages")
    if isinstance(messages, list):
        for message in reversed(messages):
            if isinstance(message, dict) and message.get("role") == "assistant":
                content = message.get("content")
                return len(content) if isinstance(content, str) else None
    return None


def rollout_lengths(rollouts: Path, run: Run) -> dict[str, int]:
    """Each rollout's completion length by id (default: line number); none when the file
    cannot be read, which is `run`'s problem."""
    found: dict[str, int] = {}
    try:
        for number, line in lines(rollouts):
            try:
                sample = loads_json(line, f"{rollouts}:{number}")
            except ValueError:
                continue  # `rewardkit score` reported it already
            length = completion_length(sample)
            if length is not None:
                key = sample.get("id", number) if isinstance(sample, dict) else number
                found[str(key)] = length
    except (OSError, UntrustedInputError) as exc:
        run.problem(str(rollouts), str(exc))
        return {}
    return found
