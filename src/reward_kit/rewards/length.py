"""`reward_kit.rewards.length`: length rewards, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import cosine_length_reward, length_reward
from rewardkit.functions.helpers import count_tokens

__all__ = ["cosine_length_reward", "count_tokens", "length_reward"]
