"""`reward_kit.rewards.tag_count`: the tag count reward, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import tag_count_reward

__all__ = ["tag_count_reward"]
