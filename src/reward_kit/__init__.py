"""Fireworks reward-kit compatibility: `from reward_kit import ...` runs on rewardkit.

Code written for reward-kit keeps its imports::

    from reward_kit import reward_function, EvaluateResult, MetricResult, Message

The types are rewardkit's own (`rewardkit.types`); `reward_function` is rewardkit's
decorator with reward-kit 0.4.1's `**kwargs` rule (`reward_kit.typed_interface`). The modules
`reward_kit.models`, `reward_kit.typed_interface`, `reward_kit.reward_function` and
`reward_kit.rewards` mirror reward-kit's layout, and `reward_protocol` is the same package
under 0.4.1's second name. `__version__` is the reward-kit API version served (0.4.1). Where
rewardkit differs from reward-kit 0.4.1 (it keeps `MetricResult(success=...)`, accepts
multimodal content, converts messages for any annotation, supports `async def`), the
docstrings of `rewardkit.types` and `rewardkit.reward_function` say so.

Example:
    >>> from reward_kit import EvaluateResult, reward_function
    >>> @reward_function
    ... def says_yes(messages, **kwargs):
    ...     return EvaluateResult(score=float("yes" in messages[-1]["content"]))
    >>> says_yes([{"role": "assistant", "content": "yes"}]).score
    1.0
"""

from __future__ import annotations

# Import the submodule before binding the decorator: importing `reward_kit.reward_function`
# later would otherwise replace the attribute `reward_kit.reward_function` with the module.
import reward_kit.reward_function as _reward_function_module  # noqa: F401
from reward_kit.common_utils import load_jsonl
from reward_kit.reward_function import RewardFunction
from reward_kit.typed_interface import reward_function
from rewardkit.types import (
    EvaluateResult,
    Message,
    MetricResult,
    MetricRewardOutput,
    RewardOutput,
    StepOutput,
)

__version__ = "0.4.1"

__all__ = [
    "EvaluateResult",
    "Message",
    "MetricResult",
    "MetricRewardOutput",
    "RewardFunction",
    "RewardOutput",
    "StepOutput",
    "load_jsonl",
    "reward_function",
]
