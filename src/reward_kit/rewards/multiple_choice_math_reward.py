"""`reward_kit.rewards.multiple_choice_math_reward`: option-letter answers, from rewardkit."""

from rewardkit.functions.builtin import multiple_choice_math_reward
from rewardkit.functions.builtin.math._choice import extract_mcq_option

__all__ = ["extract_mcq_option", "multiple_choice_math_reward"]
