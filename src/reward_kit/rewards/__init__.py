"""`reward_kit.rewards`: reward-kit's built-in reward functions, served by rewardkit.

Import paths such as `from reward_kit.rewards.math import math_reward` keep working; the
functions are those of `rewardkit.functions.builtin`. Where a module and its function
share a name (`bfcl_reward`, `list_comparison_math_reward`, `multiple_choice_math_reward`),
the attribute here is the function, as in reward-kit.
"""

from reward_kit.rewards import (
    accuracy,
    accuracy_length,
    apps_coding_reward,
    code_execution,
    deepcoder_reward,
    format,
    function_calling,
    json_schema,
    language_consistency,
    length,
    math,
    reasoning_steps,
    repetition,
    tag_count,
)
from reward_kit.rewards.accuracy import accuracy_reward
from reward_kit.rewards.accuracy_length import cosine_scaled_accuracy_length_reward
from reward_kit.rewards.apps_coding_reward import evaluate_apps_solution
from reward_kit.rewards.bfcl_reward import bfcl_reward
from reward_kit.rewards.code_execution import fractional_code_reward, local_code_execution_reward
from reward_kit.rewards.deepcoder_reward import deepcoder_code_reward
from reward_kit.rewards.format import format_reward
from reward_kit.rewards.function_calling import (
    composite_function_call_reward,
    exact_tool_match_reward,
    llm_judge_reward,
    schema_jaccard_reward,
)
from reward_kit.rewards.json_schema import json_schema_reward, json_schema_reward_with_llm_judge
from reward_kit.rewards.language_consistency import language_consistency_reward
from reward_kit.rewards.length import cosine_length_reward, length_reward
from reward_kit.rewards.list_comparison_math_reward import list_comparison_math_reward
from reward_kit.rewards.math import math_reward
from reward_kit.rewards.multiple_choice_math_reward import multiple_choice_math_reward
from reward_kit.rewards.reasoning_steps import reasoning_steps_reward, sequence_reward
from reward_kit.rewards.repetition import diversity_reward, repetition_penalty_reward
from reward_kit.rewards.tag_count import tag_count_reward

__all__ = [
    "accuracy",
    "accuracy_length",
    "accuracy_reward",
    "apps_coding_reward",
    "bfcl_reward",
    "code_execution",
    "composite_function_call_reward",
    "cosine_length_reward",
    "cosine_scaled_accuracy_length_reward",
    "deepcoder_code_reward",
    "deepcoder_reward",
    "diversity_reward",
    "evaluate_apps_solution",
    "exact_tool_match_reward",
    "format",
    "format_reward",
    "fractional_code_reward",
    "function_calling",
    "json_schema",
    "json_schema_reward",
    "json_schema_reward_with_llm_judge",
    "language_consistency",
    "language_consistency_reward",
    "length",
    "length_reward",
    "list_comparison_math_reward",
    "llm_judge_reward",
    "local_code_execution_reward",
    "math",
    "math_reward",
    "multiple_choice_math_reward",
    "reasoning_steps",
    "reasoning_steps_reward",
    "repetition",
    "repetition_penalty_reward",
    "schema_jaccard_reward",
    "sequence_reward",
    "tag_count",
    "tag_count_reward",
]
