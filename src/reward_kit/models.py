"""reward-kit's `reward_kit.models`: the data types, from `rewardkit.types`.

Example:
    >>> from reward_kit.models import StepOutput
    >>> StepOutput(step_index=1, base_reward=0.5).base_reward
    0.5
"""

from __future__ import annotations

from rewardkit.types import (
    EvaluateResult,
    FunctionCall,
    Message,
    MetricResult,
    MetricRewardOutput,
    RewardOutput,
    StepOutput,
    ToolCall,
)

__all__ = [
    "EvaluateResult",
    "FunctionCall",
    "Message",
    "MetricResult",
    "MetricRewardOutput",
    "RewardOutput",
    "StepOutput",
    "ToolCall",
]
