"""Built-in reward functions, named and parametrised like Fireworks reward-kit 0.4.1's.

Each is a `@reward_function` over OpenAI-format `messages` (dicts or `Message`s) that
scores `messages[-1]`, the assistant's response, and returns an `EvaluateResult`. Those
needing optional packages import them on first call and say which extra to install:
`math` (math-verify), `json` (jsonschema), `similarity` (rapidfuzz), `nlg` (sacrebleu,
rouge-score). Where one behaves differently from reward-kit's, its docstring says how.
"""

from rewardkit.functions.builtin.code._apps import evaluate_apps_solution
from rewardkit.functions.builtin.code._code import (
    fractional_code_reward,
    local_code_execution_reward,
)
from rewardkit.functions.builtin.code._deepcoder import deepcoder_code_reward
from rewardkit.functions.builtin.json._json import json_schema_reward, json_valid_reward
from rewardkit.functions.builtin.json._json_judge import json_schema_reward_with_llm_judge
from rewardkit.functions.builtin.math._accuracy_length import cosine_scaled_accuracy_length_reward
from rewardkit.functions.builtin.math._choice import multiple_choice_math_reward
from rewardkit.functions.builtin.math._exact import accuracy_reward, exact_match_reward
from rewardkit.functions.builtin.math._math import math_reward
from rewardkit.functions.builtin.math._number_list import list_comparison_math_reward
from rewardkit.functions.builtin.text._format import format_reward, tag_count_reward
from rewardkit.functions.builtin.text._language import language_consistency_reward
from rewardkit.functions.builtin.text._length import cosine_length_reward, length_reward
from rewardkit.functions.builtin.text._reasoning import reasoning_steps_reward, sequence_reward
from rewardkit.functions.builtin.text._repetition import diversity_reward, repetition_penalty_reward
from rewardkit.functions.builtin.text._similarity import (
    bleu_reward,
    rouge_reward,
    text_similarity_reward,
)
from rewardkit.functions.builtin.tools._bfcl import bfcl_reward
from rewardkit.functions.builtin.tools._tools import exact_tool_match_reward

__all__ = [
    "accuracy_reward",
    "bfcl_reward",
    "bleu_reward",
    "cosine_length_reward",
    "cosine_scaled_accuracy_length_reward",
    "deepcoder_code_reward",
    "diversity_reward",
    "evaluate_apps_solution",
    "exact_match_reward",
    "exact_tool_match_reward",
    "format_reward",
    "fractional_code_reward",
    "json_schema_reward",
    "json_schema_reward_with_llm_judge",
    "json_valid_reward",
    "language_consistency_reward",
    "length_reward",
    "list_comparison_math_reward",
    "local_code_execution_reward",
    "math_reward",
    "multiple_choice_math_reward",
    "reasoning_steps_reward",
    "repetition_penalty_reward",
    "rouge_reward",
    "sequence_reward",
    "tag_count_reward",
    "text_similarity_reward",
]
