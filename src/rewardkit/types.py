"""The reward-function types: messages in, results out (Fireworks reward-kit compatible).

- `Message`: one chat message in the OpenAI format (`role`, `content`, tool calls, ...).
- `EvaluateResult`: what a reward function returns: `score`, `reason`, `metrics`, `error`.
- `MetricResult`: one metric of an `EvaluateResult`: `score`, `reason`, `success`.
- `StepOutput`: a per-step reward of a multi-turn rollout.
- `RewardOutput`, `MetricRewardOutput`: deprecated; they warn and convert to the above.

`EvaluateResult.to_outcome(name)` and `EvaluateResult.from_outcome(outcome)` convert to and
from the engine's per-judge record, `rewardkit.Outcome`.

Example:
    >>> from rewardkit.types import EvaluateResult, MetricResult
    >>> result = EvaluateResult(
    ...     score=0.75, metrics={"clarity": MetricResult(score=0.8, reason="clear")}
    ... )
    >>> result["metrics"]["clarity"]["reason"]
    'clear'
"""

from __future__ import annotations

from rewardkit.core._messages import ContentPart, FunctionCall, Message, ToolCall
from rewardkit.core._results import (
    EvaluateResult,
    MetricResult,
    MetricRewardOutput,
    RewardOutput,
    StepOutput,
)

__all__ = [
    "ContentPart",
    "EvaluateResult",
    "FunctionCall",
    "Message",
    "MetricResult",
    "MetricRewardOutput",
    "RewardOutput",
    "StepOutput",
    "ToolCall",
]

# The classes are documented and pickled under their public homes.
_cls: type
for _cls in (EvaluateResult, Message, MetricResult, MetricRewardOutput, RewardOutput):
    _cls.__module__ = "rewardkit"
for _cls in (FunctionCall, StepOutput, ToolCall):
    _cls.__module__ = __name__
