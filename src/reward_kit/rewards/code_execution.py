"""`reward_kit.rewards.code_execution`: code rewards, from `rewardkit.functions.builtin`.

Code runs locally under limits. reward-kit 0.4.1's E2B sandbox is not supported:
`_HAS_E2B` is False, and the E2B entry points score 0 (or fail) with a reason that says so.
"""

from __future__ import annotations

from typing import Any

from rewardkit.functions.builtin import fractional_code_reward, local_code_execution_reward
from rewardkit.functions.helpers import (
    compare_outputs,
    execute_javascript_code,
    execute_python_code,
    extract_code_blocks,
    string_similarity,
)
from rewardkit.types import EvaluateResult, MetricResult

__all__ = [
    "_HAS_E2B",
    "compare_outputs",
    "e2b_code_execution_reward",
    "execute_code_with_e2b",
    "execute_javascript_code",
    "execute_python_code",
    "extract_code_blocks",
    "fractional_code_reward",
    "local_code_execution_reward",
    "string_similarity",
]

_HAS_E2B = False
_NO_E2B = (
    "E2B package not installed: rewardkit does not run code in E2B sandboxes; "
    "use local_code_execution_reward (a local subprocess under limits)"
)


def execute_code_with_e2b(code: str, language: str = "python", **kwargs: Any) -> dict[str, Any]:
    """Not supported: always `{"success": False, "error": <why>}`."""
    return {"success": False, "output": None, "error": _NO_E2B}


def e2b_code_execution_reward(messages: Any, ground_truth: Any = None, **kwargs: Any) -> Any:
    """Not supported: scores 0 with the reason in the `error` metric."""
    return EvaluateResult(
        score=0.0,
        reason=_NO_E2B,
        metrics={"error": MetricResult(score=0.0, reason=_NO_E2B, success=False)},
    )
