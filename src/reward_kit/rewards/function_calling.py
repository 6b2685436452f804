"""`reward_kit.rewards.function_calling`: the tool-call reward, from `rewardkit.functions.builtin`.

reward-kit 0.4.1 kept three older names that warn and delegate to
`exact_tool_match_reward`; so do these.
"""

from __future__ import annotations

import warnings
from typing import Any

from rewardkit.functions.builtin import exact_tool_match_reward
from rewardkit.functions.helpers import (
    calculate_jaccard_similarity,
    extract_schema_properties,
    match_function_call,
)
from rewardkit.types import EvaluateResult

__all__ = [
    "calculate_jaccard_similarity",
    "composite_function_call_reward",
    "exact_tool_match_reward",
    "extract_schema_properties",
    "llm_judge_reward",
    "match_function_call",
    "schema_jaccard_reward",
]


def _deprecated(
    name: str, messages: Any, ground_truth: Any, kwargs: dict[str, Any]
) -> EvaluateResult:
    warnings.warn(
        f"`{name}` is deprecated and will be removed in a future version. "
        "Please use `exact_tool_match_reward`.",
        DeprecationWarning,
        stacklevel=3,
    )
    result: EvaluateResult = exact_tool_match_reward(messages, ground_truth, **kwargs)
    return result


def schema_jaccard_reward(messages: Any, ground_truth: Any = None, **kwargs: Any) -> EvaluateResult:
    """Deprecated: use `exact_tool_match_reward`."""
    return _deprecated("schema_jaccard_reward", messages, ground_truth, kwargs)


def llm_judge_reward(messages: Any, ground_truth: Any = None, **kwargs: Any) -> EvaluateResult:
    """Deprecated: use `exact_tool_match_reward`."""
    return _deprecated("llm_judge_reward", messages, ground_truth, kwargs)


def composite_function_call_reward(
    messages: Any, ground_truth: Any = None, **kwargs: Any
) -> EvaluateResult:
    """Deprecated: use `exact_tool_match_reward`."""
    return _deprecated("composite_function_call_reward", messages, ground_truth, kwargs)
