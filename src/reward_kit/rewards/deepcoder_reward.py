"""`reward_kit.rewards.deepcoder_reward`: all-tests-pass code reward, from rewardkit."""

from rewardkit.functions.builtin import deepcoder_code_reward

__all__ = ["deepcoder_code_reward"]
