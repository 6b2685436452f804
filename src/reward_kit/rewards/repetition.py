"""`reward_kit.rewards.repetition`: repetition rewards, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import diversity_reward, repetition_penalty_reward
from rewardkit.functions.helpers import get_ngrams

__all__ = ["diversity_reward", "get_ngrams", "repetition_penalty_reward"]
