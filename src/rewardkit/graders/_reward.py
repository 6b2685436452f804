"""A grader file as a reward function: what `load_backend` runs for a `.json` source.

The grader's value is mapped from its range (a `score_model`'s `range`, else [0, 1]) into
[0, 1] and clamped; a `multi`'s `calculate_output` result is clamped. An error anywhere in
the tree (a failed model call, a raising or hanging `python` grader, a template naming a
field the sample lacks) makes the reward an error, which the run's `on_error` policy counts.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.graders._grade import Grader, calls_model, grade, grade_now, scale
from rewardkit.graders._graded import Graded
from rewardkit.graders._input import grader_input
from rewardkit.graders._load import load_grader
from rewardkit.graders._multi import Multi
from rewardkit.graders._python import PythonGrader, start_jail
from rewardkit.types import EvaluateResult

__all__ = ["GraderReward", "load_reward"]


@dataclass(frozen=True, kw_only=True)
class GraderReward:
    """The grader of the file at `path`, called like a `@reward_function`.

    Example:
        >>> import json, pathlib, tempfile
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "grader.json"
        >>> _ = path.write_text(json.dumps({"type": "string_check", "name": "exact",
        ...     "operation": "eq", "input": "{{ sample.output_text }}",
        ...     "reference": "{{ item.reference_answer }}"}))
        >>> load_reward(path)([{"role": "assistant", "content": "4"}], ground_truth="4").score
        1.0
    """

    grader: Grader
    path: Path

    @property
    def name(self) -> str:
        """The grader's `name`: the reward's judge name."""
        return self.grader.name

    def __reduce__(self) -> tuple[Callable[[Path], GraderReward], tuple[Path]]:
        return load_reward, (self.path,)  # by its file: a compiled formula does not pickle

    def function(self) -> Callable[..., Any]:
        """What the batch backend calls: asynchronous when the grader calls a model."""
        return self.ascore if calls_model(self.grader) else self

    def __call__(
        self, messages: list[Mapping[str, Any]], ground_truth: Any = None, metadata: Any = None
    ) -> EvaluateResult:
        if calls_model(self.grader):
            return asyncio.run(self.ascore(messages, ground_truth, metadata))
        return self._result(grade_now(self.grader, grader_input(messages, ground_truth, metadata)))

    async def ascore(
        self, messages: list[Mapping[str, Any]], ground_truth: Any = None, metadata: Any = None
    ) -> EvaluateResult:
        """`__call__` for graders that call a model: one client for the sample's calls."""
        from rewardkit.models import ModelClient

        given = grader_input(messages, ground_truth, metadata)
        cache = os.environ.get("REWARDKIT_CACHE_DIR") or None
        async with ModelClient(cache_dir=cache) as client:
            return self._result(await grade(self.grader, given, client))

    def _result(self, graded: Graded) -> EvaluateResult:
        if graded.value is None:
            return EvaluateResult(score=0.0, reason=graded.reason or None, error=graded.error)
        low, high = scale(self.grader)
        reward = min(1.0, max(0.0, (graded.value - low) / (high - low)))
        return EvaluateResult(score=reward, reason=graded.reason)


def load_reward(path: Path) -> GraderReward:
    """The grader file at `path` as a reward function.

    Raises:
        ConfigError: the file is not a valid grader (see `load_grader`).
    """
    path = Path(path).resolve()
    reward = GraderReward(grader=load_grader(path), path=path)
    if _runs_python(reward.grader):
        start_jail()
    return reward


def _runs_python(grader: Grader) -> bool:
    if isinstance(grader, Multi):
        return any(_runs_python(sub) for _, sub in grader.graders)
    return isinstance(grader, PythonGrader)
