"""`reward_kit.rewards.code_execution`: code rewards, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import fractional_code_reward, local_code_execution_reward

__all__ = ["fractional_code_reward", "local_code_execution_reward"]
