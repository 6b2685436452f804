"""`reward_kit.rewards.bfcl_reward`: the BFCL multi-turn reward, from rewardkit."""

from rewardkit.functions.builtin import bfcl_reward

__all__ = ["bfcl_reward"]
