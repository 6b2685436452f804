"""`EvaluateResult`, `MetricResult` and `StepOutput`: what a reward function returns; and
the deprecated `RewardOutput` and `MetricRewardOutput`, kept so old reward functions run.

Public through `rewardkit.types`. The fields and their order follow reward-kit 0.4.1, with
these differences on purpose:

- `MetricResult.success` exists, as the reward-kit docs teach (0.4.1 silently drops it);
  given, it also sets `is_score_valid` (0.4.1's name for the flag) and is kept in dumps.
- Scores must be finite; a metric's score is not bounded to [0, 1] (a reward may be
  any finite number, and a bound made 0.4.1's own built-ins crash).
- Assignments are validated (`result.score = "x"` raises), and dict-style access reads
  fields only, with no deprecation warning. Iterating a result yields its keys, as in 0.4.1.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, FiniteFloat, model_validator

from rewardkit.core._messages import DictAccess
from rewardkit.core._outcome import Outcome

if TYPE_CHECKING:
    from pydantic._internal._model_construction import ModelMetaclass
else:
    ModelMetaclass = type(BaseModel)  # the same class, without importing a private module

__all__ = ["EvaluateResult", "MetricResult", "MetricRewardOutput", "RewardOutput", "StepOutput"]

_RESULT_CONFIG = ConfigDict(validate_assignment=True, extra="ignore")


class MetricResult(DictAccess, BaseModel):  # type: ignore[misc]  # iterates keys, not pairs
    """The score of one component (one metric) of an evaluation.

    Example:
        >>> metric = MetricResult(score=0.8, reason="clear and concise", success=True)
        >>> metric["score"], metric.success, metric.is_score_valid
        (0.8, True, True)
        >>> MetricResult(score=0.0, reason="wrong format", is_score_valid=False).model_dump()
        {'is_score_valid': False, 'score': 0.0, 'reason': 'wrong format'}
    """

    model_config = _RESULT_CONFIG
    _hidden_when_none: ClassVar[frozenset[str]] = frozenset({"success"})

    is_score_valid: bool = True
    """reward-kit 0.4.1's pass/fail flag (its built-ins set it False when a check fails)."""
    score: FiniteFloat
    """The metric's score, typically in [0, 1]; any finite number is accepted."""
    reason: str
    """Why this score was given."""
    success: bool | None = Field(default=None, exclude_if=lambda value: value is None)
    """Did the metric pass, as the reward-kit docs teach; when given it also sets
    `is_score_valid`. `None` (not given) is left out of `model_dump()` and `keys()`."""

    @model_validator(mode="before")
    @classmethod
    def _one_success_flag(cls, data: Any) -> Any:
        if not isinstance(data, dict) or data.get("success") is None:
            return data
        if "is_score_valid" not in data:
            return {**data, "is_score_valid": data["success"]}
        if data["success"] != data["is_score_valid"]:
            raise ValueError(
                f"success={data['success']!r} and is_score_valid={data['is_score_valid']!r} "
                "disagree; they are the same flag, so pass only one of them"
            )
        return data


class StepOutput(DictAccess, BaseModel):  # type: ignore[misc]  # iterates keys, not pairs
    """The reward of one step (one assistant turn) of a multi-turn rollout, for RL.

    Example:
        >>> StepOutput(step_index=0, base_reward=0.5).metrics
        {}
    """

    model_config = _RESULT_CONFIG

    step_index: int | str
    """Which step: the assistant turn's index, or an id."""
    base_reward: FiniteFloat
    """The step's reward (any finite number)."""
    metrics: dict[str, Any] = Field(default_factory=dict)
    """Free-form per-step details."""
    reason: str | None = None


class EvaluateResult(DictAccess, BaseModel):  # type: ignore[misc]  # iterates keys, not pairs
    """The result of a reward function: an overall score plus per-metric results.

    Example:
        >>> result = EvaluateResult(
        ...     score=0.75,
        ...     reason="meets the bar",
        ...     metrics={"clarity": MetricResult(score=0.8, reason="clear")},
        ... )
        >>> result["score"], result.metrics["clarity"].score, result.error
        (0.75, 0.8, None)
    """

    model_config = _RESULT_CONFIG

    score: FiniteFloat
    """The overall score, typically in [0, 1]; any finite number is accepted."""
    is_score_valid: bool = True
    """False when the score should not be trusted (reward-kit 0.4.1 field)."""
    reason: str | None = None
    """Why this score was given."""
    metrics: dict[str, MetricResult] = Field(default_factory=dict)
    """Component metrics by name; dict values are validated into `MetricResult`s."""
    step_outputs: list[StepOutput] | None = None
    """Per-step rewards of a multi-turn rollout (RL)."""
    error: str | None = None
    """Set when the evaluation itself failed; the score is then not a real score."""

    def to_reward_output(self) -> RewardOutput:
        """Convert to the deprecated `RewardOutput` (score and metric scores/reasons only).

        Emits one `DeprecationWarning`: the result is a deprecated type.

        Example:
            >>> import warnings
            >>> with warnings.catch_warnings():
            ...     warnings.simplefilter("ignore", DeprecationWarning)
            ...     EvaluateResult(score=0.8).to_reward_output().score
            0.8
        """
        warnings.warn(deprecation_message("RewardOutput"), DeprecationWarning, stacklevel=2)
        metrics = {k: {"score": m.score, "reason": m.reason} for k, m in self.metrics.items()}
        # `model_validate` does not call the classes, so the warning above is the only one.
        return RewardOutput.model_validate({"score": self.score, "metrics": metrics})

    def to_outcome(self, name: str, *, weight: float = 1.0) -> Outcome:
        """The engine's record of this result, for the judge `name`.

        A result with `error` set becomes an `error` outcome (its score kept in `raw`);
        otherwise the outcome is `scored` with `value=score`. Metrics go to
        `extra["metrics"]` as plain dicts `{name: {"score", "reason", "success"}}`.

        Example:
            >>> outcome = EvaluateResult(score=0.5, reason="half").to_outcome("quality")
            >>> outcome.status, outcome.value, outcome.reasoning
            ('scored', 0.5, 'half')
        """
        extra: dict[str, Any] = {}
        if self.metrics:
            extra["metrics"] = {
                key: {"score": m.score, "reason": m.reason, "success": m.success}
                for key, m in self.metrics.items()
            }
        failed = self.error is not None
        if self.is_score_valid == failed:  # not what `from_outcome` would infer from the status
            extra["is_score_valid"] = self.is_score_valid
        if self.step_outputs is not None:
            extra["step_outputs"] = [step.model_dump() for step in self.step_outputs]
        return Outcome(
            name=name,
            status="error" if failed else "scored",
            value=None if failed else self.score,
            raw=self.score,
            weight=weight,
            reasoning=self.reason,
            error=self.error,
            extra=extra,
        )

    @classmethod
    def from_outcome(cls, outcome: Outcome) -> EvaluateResult:
        """Build a result from the engine's `Outcome` (the inverse of `to_outcome`).

        An outcome without a value (error, timeout, skipped) gives `score` 0.0 (or the
        score it kept in `raw`) and `is_score_valid=False`; error and timeout outcomes
        set `error` (to the outcome's message, or to its status when it has none).

        Example:
            >>> from rewardkit import Outcome
            >>> EvaluateResult.from_outcome(Outcome(name="x", status="timeout")).error
            'timeout'
        """
        extra = outcome.extra
        raw = outcome.raw
        if outcome.value is not None:
            score = outcome.value
        elif isinstance(raw, int | float) and not isinstance(raw, bool) and math.isfinite(raw):
            score = float(raw)
        else:
            score = 0.0
        error = None
        if outcome.failed:
            error = outcome.status if outcome.error is None else outcome.error
        return cls(
            score=score,
            is_score_valid=extra.get("is_score_valid", outcome.status == "scored"),
            reason=outcome.reasoning,
            metrics=extra.get("metrics", {}),
            step_outputs=extra.get("step_outputs"),
            error=error,
        )


# The deprecated `RewardOutput` and `MetricRewardOutput`, kept so old reward functions run.
# Constructing either emits one `DeprecationWarning`; `to_evaluate_result()` converts to the
# current types (without a warning: it is the way out).

_REPLACEMENT = {
    "RewardOutput": "return an EvaluateResult instead (RewardOutput.to_evaluate_result() converts)",
    "MetricRewardOutput": "use MetricResult(score=..., reason=..., success=...) instead",
}


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
