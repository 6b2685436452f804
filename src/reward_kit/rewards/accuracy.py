"""`reward_kit.rewards.accuracy`: answer accuracy, from `rewardkit.functions.builtin`."""

from rewardkit.functions.builtin import accuracy_reward
from rewardkit.functions.helpers import (
    compare_math_expressions,
    extract_math_expression,
    normalize_text,
    string_similarity,
)

__all__ = [
    "accuracy_reward",
    "compare_math_expressions",
    "extract_math_expression",
    "normalize_text",
    "string_similarity",
]
