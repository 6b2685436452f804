"""Grading one sample with a grader tree: model calls at once, the rest inline."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rewardkit.graders._graded import Graded
from rewardkit.graders._input import GraderInput
from rewardkit.graders._model import LabelModel, ScoreModel
from rewardkit.graders._multi import Multi
from rewardkit.graders._python import PythonGrader
from rewardkit.graders._similarity import TextSimilarity
from rewardkit.graders._string_check import StringCheck

if TYPE_CHECKING:
    from rewardkit.models import ModelClient

__all__ = ["Grader", "calls_model", "grade", "grade_now", "scale"]

Grader = StringCheck | TextSimilarity | PythonGrader | ScoreModel | LabelModel | Multi
"""One grader of the file: a leaf, or a `multi` of them."""


def calls_model(grader: Grader) -> bool:
    """Whether grading needs the model transport."""
    if isinstance(grader, Multi):
        return any(calls_model(sub) for _, sub in grader.graders)
    return isinstance(grader, ScoreModel | LabelModel)


def scale(grader: Grader) -> tuple[float, float]:
    """The range of the grader's values: a `score_model`'s `range`, else [0, 1]."""
    return grader.range if isinstance(grader, ScoreModel) else (0.0, 1.0)


async def grade(grader: Grader, given: GraderInput, client: ModelClient) -> Graded:
    """`grader`'s result on `given`; a `multi`'s model calls are sent concurrently."""
    if isinstance(grader, Multi):
        subs = [grade(sub, given, client) for _, sub in grader.graders]
        return grader.combine(await asyncio.gather(*subs))
    if isinstance(grader, ScoreModel | LabelModel):
        return await grader.ask(given, client)
    return grader.evaluate(given)


def grade_now(grader: Grader, given: GraderInput) -> Graded:
    """`grade` for a tree without model graders, with no event loop."""
    if isinstance(grader, Multi):
        return grader.combine([grade_now(sub, given) for _, sub in grader.graders])
    if isinstance(grader, ScoreModel | LabelModel):
        raise TypeError(f"grader {grader.name!r} calls a model: use grade()")
    return grader.evaluate(given)
