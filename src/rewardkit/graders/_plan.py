"""What `rewardkit check grader.json` prints: the grader tree and how it becomes a reward."""

from __future__ import annotations

from typing import Any

from rewardkit.graders._grade import Grader, scale
from rewardkit.graders._model import LabelModel, ScoreModel
from rewardkit.graders._multi import Multi
from rewardkit.graders._python import PythonGrader
from rewardkit.graders._similarity import TextSimilarity
from rewardkit.graders._string_check import StringCheck

__all__ = ["describe_grader", "grader_data"]


def describe_grader(grader: Grader, where: str) -> str:
    """The plan as text: the reward's formula, then one line per grader."""
    lines = [f"{where}: OpenAI grader {grader.name!r} ({grader.kind})"]
    lines.append(f"reward = {_reward(grader)}")
    lines += _lines(grader, grader.name, "  ")
    return "\n".join(lines)


def grader_data(grader: Grader) -> dict[str, Any]:
    """The plan as data (`rewardkit check --json`): the grader tree and the reward."""
    return _node(grader) | {"reward": _reward(grader)}


def _node(grader: Grader) -> dict[str, Any]:
    node: dict[str, Any] = {"name": grader.name, "type": grader.kind, "what": _what(grader)}
    if isinstance(grader, Multi):
        node["graders"] = {key: _node(sub) for key, sub in grader.graders}
    return node


def _reward(grader: Grader) -> str:
    if isinstance(grader, Multi):
        return f"{grader.formula.source}, clamped to [0, 1]"
    low, high = scale(grader)
    if (low, high) == (0.0, 1.0):
        return grader.name
    return f"{grader.name} mapped from [{low:g}, {high:g}] to [0, 1]"


def _lines(grader: Grader, key: str, indent: str) -> list[str]:
    lines = [f"{indent}{key}: {grader.kind}, {_what(grader)}"]
    if isinstance(grader, Multi):
        for sub_key, sub in grader.graders:
            lines += _lines(sub, sub_key, indent + "  ")
    return lines


def _what(grader: Grader) -> str:
    if isinstance(grader, StringCheck):
        return f"{grader.input.source!r} {grader.operation} {grader.reference.source!r}"
    if isinstance(grader, TextSimilarity):
        return f"{grader.metric}({grader.input.source!r}, {grader.reference.source!r})"
    if isinstance(grader, ScoreModel):
        low, high = grader.range
        return f"{grader.call.model} scores in [{low:g}, {high:g}]"
    if isinstance(grader, LabelModel):
        return f"{grader.call.model} labels; passing: {', '.join(grader.passing_labels)}"
    if isinstance(grader, PythonGrader):
        return f"grade(sample, item) in the jail, deadline {grader.timeout:g}s"
    return f"calculate_output = {grader.formula.source}"
