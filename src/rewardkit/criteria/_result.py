"""Turn what a criterion returned into a score: bool → 1/0, a finite number as-is."""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any

from rewardkit.core._errors import CriterionError

__all__ = ["Scored", "score_result"]

_DICT_KEYS = ("score", "reasoning", "confidence", "model")


@dataclass(frozen=True)
class Scored:
    """A criterion's normalized result."""

    value: float
    raw: bool | int | float
    reasoning: str | None = None
    confidence: float | None = None
    model: str | None = None


def score_result(name: str, result: Any) -> Scored:
    """Normalize `result`: a bool, a finite real number, or a dict with `score`.

    Raises:
        CriterionError: for any other type, a non-finite number, or a malformed dict.
    """
    if isinstance(result, dict):
        return _from_dict(name, result)
    if _is_bool(result):
        return Scored(1.0 if result else 0.0, bool(result))
    if isinstance(result, numbers.Real):
        value = float(result)
        if not math.isfinite(value):
            raise CriterionError(f"Criterion {name!r} returned {value!r}; scores must be finite.")
        if value > 1.0 or value < 0.0:
            bound = "exceeds 1.0" if value > 1.0 else "is below 0.0"
            warnings.warn(
                f"Criterion {name!r} returned {value:.4f} which {bound}; score will not be "
                f"clamped — verify your criterion logic.",
                stacklevel=2,
            )
        raw = int(result) if isinstance(result, numbers.Integral) else value
        return Scored(value, raw)
    if hasattr(result, "score"):  # an EvaluateResult / MetricResult from a reward function
        return _from_evaluation(name, result)
    raise CriterionError(
        f"Criterion {name!r} returned {type(result).__name__}, expected bool, int, or float "
        f"(bare or under 'score' in a dict)."
    )


def _from_evaluation(name: str, result: Any) -> Scored:
    error = getattr(result, "error", None)
    if error or getattr(result, "is_score_valid", True) is False:
        raise CriterionError(
            f"Criterion {name!r}: the reward function reported {error or 'an invalid score'}."
        )
    scored = score_result(name, result.score)
    reason = getattr(result, "reason", None)
    return Scored(scored.value, scored.raw, reasoning=str(reason) if reason else None)


def _is_bool(result: Any) -> bool:
    # numpy.bool_ is not a numbers.Real; accept it by duck type without importing numpy.
    return isinstance(result, bool) or type(result).__name__ in ("bool_", "bool")


def _from_dict(name: str, result: dict[Any, Any]) -> Scored:
    extra = sorted(str(k) for k in result if k not in _DICT_KEYS)
    if extra or "score" not in result:
        problem = f"unknown keys {extra}" if extra else "no 'score' key"
        raise CriterionError(
            f"Criterion {name!r} returned a dict with {problem}; allowed keys: "
            f"{', '.join(_DICT_KEYS)}."
        )
    if isinstance(result["score"], dict):
        raise CriterionError(f"Criterion {name!r} returned a nested dict under 'score'.")
    scored = score_result(name, result["score"])
    reasoning = result.get("reasoning")
    confidence = result.get("confidence")
    if confidence is not None and not (
        isinstance(confidence, numbers.Real) and 0.0 <= float(confidence) <= 1.0
    ):
        raise CriterionError(
            f"Criterion {name!r}: confidence must be in [0, 1] (got {confidence!r})."
        )
    model = result.get("model")
    return Scored(
        scored.value,
        scored.raw,
        reasoning=str(reasoning) if reasoning else None,
        confidence=float(confidence) if confidence is not None else None,
        model=str(model) if model is not None else None,
    )
