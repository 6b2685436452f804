"""reward-kit's `reward_kit.agent.models.StepData`: one step of an RL rollout.

Example:
    >>> from reward_kit.agent.models import StepData
    >>> step = StepData(
    ...     system_step_index=0,
    ...     observation_data={"prompt": "hi"},
    ...     action_taken={"type": "text", "content": "hello"},
    ...     resulting_messages_history=[{"role": "assistant", "content": "hello"}],
    ... )
    >>> step.is_done, step.base_reward
    (False, None)
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from rewardkit.types import Message

__all__ = ["StepData"]


class StepData(BaseModel):
    """What happened at one step of a rollout, and the rewards assigned to it later."""

    system_step_index: int
    """The step's position in the rollout."""
    observation_data: Any
    """What the policy saw."""
    action_taken: dict[str, Any]
    """What the policy did, e.g. `{"type": "text", "content": ...}` or a tool call."""
    raw_policy_output: str | None = None
    resulting_messages_history: list[Message]
    """The conversation after the step."""
    policy_logprobs: dict[str, Any] | None = None
    policy_value_estimate: float | None = None
    is_done: bool = False
    step_info: dict[str, Any] = Field(default_factory=dict)
    """Free-form details, e.g. `assistant_turn_index` (matched to `StepOutput.step_index`)."""
    base_reward: float | None = None
    advantage: float | None = None
    return_to_go: float | None = None
