"""The deprecated `RewardOutput` and `MetricRewardOutput`, kept so old reward functions run.

Constructing either emits one `DeprecationWarning`; `to_evaluate_result()` converts to the
current types (without a warning: it is the way out).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat

from rewardkit._types_results import EvaluateResult, MetricResult

__all__ = ["MetricRewardOutput", "RewardOutput", "deprecation_message"]

_REPLACEMENT = {
    "RewardOutput": "return an EvaluateResult instead (RewardOutput.to_evaluate_result() converts)",
    "MetricRewardOutput": "use MetricResult(score=..., reason=..., success=...) instead",
}


if TYPE_CHECKING:
    from pydantic._internal._model_construction import ModelMetaclass
else:
    ModelMetaclass = type(BaseModel)  # the same class, without importing a private module


class _WarnOnCall(ModelMetaclass):
    """Warn when user code calls the class, `RewardOutput(...)`.

    Not in `__init__`: pydantic also calls a custom `__init__` to build nested models and
    in `model_validate`, so conversions would warn once per metric.
    """

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        warnings.warn(deprecation_message(cls.__name__), DeprecationWarning, stacklevel=2)
        return super().__call__(*args, **kwargs)


def deprecation_message(name: str) -> str:
    """The warning text for the deprecated type `name`."""
    return f"{name} is deprecated and will be removed in a future version; {_REPLACEMENT[name]}."


class MetricRewardOutput(BaseModel, metaclass=_WarnOnCall):
    """Deprecated: the score of one metric. Use `MetricResult`.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     metric = MetricRewardOutput(score=0.9, reason="Very clear")
        >>> [w.category.__name__ for w in caught]
        ['DeprecationWarning']
        >>> metric.to_metric_result()
        MetricResult(is_score_valid=True, score=0.9, reason='Very clear', success=None)
    """

    model_config = ConfigDict(validate_assignment=True)

    score: FiniteFloat
    reason: str | None = None

    def to_metric_result(self) -> MetricResult:
        """The equivalent `MetricResult` (a missing reason becomes `""`)."""
        return MetricResult(score=self.score, reason=self.reason or "")


class RewardOutput(BaseModel, metaclass=_WarnOnCall):
    """Deprecated: a reward function's score and metrics. Use `EvaluateResult`.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore", DeprecationWarning)
        ...     output = RewardOutput(score=0.75, metrics={"clarity": {"score": 0.8}})
        >>> output.to_evaluate_result().metrics["clarity"].score
        0.8
    """

    model_config = ConfigDict(validate_assignment=True)

    score: FiniteFloat
    metrics: dict[str, MetricRewardOutput] = Field(default_factory=dict)

    def to_evaluate_result(self) -> EvaluateResult:
        """The equivalent `EvaluateResult` (no overall reason; metric reasons kept)."""
        return EvaluateResult(
            score=self.score,
            metrics={name: m.to_metric_result() for name, m in self.metrics.items()},
        )
