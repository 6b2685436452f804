"""`reward_kit.rewards.language_consistency`: the response language reward, from rewardkit."""

from rewardkit.functions.builtin import language_consistency_reward
from rewardkit.functions.builtin.text._language import (
    count_words_by_language,
    detect_dominant_language,
)

__all__ = ["count_words_by_language", "detect_dominant_language", "language_consistency_reward"]
