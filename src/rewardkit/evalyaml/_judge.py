"""An eval.yaml judge and how it scores one case record.

A judge returns a value, `(value, rationale)`, an object with `.value` (and `.rationale`), or
an object with `.score` (and `.reason`, like `EvaluateResult`). `None` means it abstained.
The value must be a bool or a finite number inside the judge's `score_range`; anything else
is an `error` outcome, never clamped.
"""

from __future__ import annotations

import inspect
import math
import numbers
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from rewardkit.core._errors import describe_exception
from rewardkit.core._outcome import Outcome

__all__ = ["EvalJudge", "JudgeKind", "condition_env", "ground_truth_of", "messages_of"]

JudgeKind = Literal["builtin", "check", "agent", "llm", "code"]
ScoreRange = tuple[float, float]


@dataclass(frozen=True, kw_only=True)
class EvalJudge:
    """One entry of an eval.yaml's `judges:` list, validated."""

    name: str
    kind: JudgeKind
    where: str
    """Where it is declared, e.g. `eval.yaml:12`."""
    fn: Callable[..., Any] | None = field(default=None, repr=False)
    arguments: Mapping[str, Any] = field(default_factory=dict)
    condition: Any = None
    """The compiled `if:` expression, or None."""
    score_range: ScoreRange | None = None
    description: str | None = None
    samples: int = 1
    feedback_type: str | None = None
    config: Mapping[str, Any] = field(default_factory=dict)
    """The LLM / agent fields, kept for the judges that will run them."""
    step: str | None = None
    """`step:`, the `execution.steps` id it scores: it sees that step's record of a
    multi-step run (`rewardkit.evalyaml._cases.step_record`); None: the whole case."""

    @property
    def scale(self) -> ScoreRange | None:
        """The range its numbers are read on: the declared `score_range`; for a code judge
        that is a `@reward_function`, [0, 1] (where an `EvaluateResult` score is defined, so
        its 1.0 is a full score); else None (composition's [1, 5] fallback). Only a declared
        range makes a value outside it an error."""
        if self.score_range is not None:
            return self.score_range
        if self.kind == "code" and getattr(self.fn, "__reward_function__", False):
            return (0.0, 1.0)
        return None

    def precheck(self, record: Mapping[str, Any]) -> Outcome | None:
        """The outcome when `if:` skips this case (or raises); None when the judge should run."""
        if self.condition is None:
            return None
        base = Outcome(name=self.name, status="error", description=self.description)
        try:
            if not self.condition.evaluate(condition_env(record)):
                reason = f"Skipped: if: {self.condition.source!r} is false"
                return replace(base, status="skipped", reasoning=reason)
        except Exception as exc:
            return replace(
                base, error=f"if: {self.condition.source!r} raised {describe_exception(exc)}"
            )
        return None

    def evaluate(self, record: Mapping[str, Any]) -> Outcome:
        """Score one case record; every failure is an outcome, never an exception."""
        start = time.perf_counter()
        skipped = self.precheck(record)
        if skipped is not None:
            return replace(skipped, duration_ms=_ms(start))
        if self.fn is None:
            return self._error(
                f"{self.kind} judges are not available in this version of rewardkit yet; "
                f"the judge is recorded as an error",
                start,
            )
        try:
            result = self._call(record)
        except (Exception, SystemExit) as exc:
            return self.raised(exc, start)
        return self.outcome(result, start)

    def raised(self, exc: BaseException, start: float) -> Outcome:
        """The outcome of a call that raised `exc` (started at `start`, `perf_counter`)."""
        code = getattr(self.fn and inspect.unwrap(self.fn), "__code__", None)
        return self._error(describe_exception(exc, Path(code.co_filename) if code else None), start)

    def outcome(self, result: Any, start: float) -> Outcome:
        """The outcome of a call that returned `result` (a float: a `@reward_function`'s
        finite score, as `plain_call` gives it)."""
        metrics = getattr(result, "metrics", None)
        extra = {"metrics": _metrics(metrics)} if metrics else {}
        failure = getattr(result, "error", None) or (
            getattr(result, "is_score_valid", True) is False
        )
        if failure and not isinstance(result, numbers.Number):
            error = str(failure) if isinstance(failure, str) else "the result is marked invalid"
            return self._error(f"judge {self.name!r} reported: {error}", start, extra)
        if type(result) is float:
            value, rationale = result, ""
        elif getattr(self.fn, "__reward_function__", False):  # an EvaluateResult, checked
            value, rationale = result.score, result.reason or ""
        else:
            value, rationale = _unpack(result)
        value = _plain(value)
        raw = value if value is None or isinstance(value, bool | int | float | str) else repr(value)
        problem = None if value is None else self._problem(value)
        return Outcome(  # built once: this is every sample's path
            name=self.name,
            status="skipped" if value is None else "error" if problem else "scored",
            value=None if value is None or problem else float(value),
            raw=raw,
            description=self.description,
            reasoning=rationale or None,
            error=problem,
            duration_ms=_ms(start),
            extra=extra,
        )

    def _error(self, error: str, start: float, extra: dict[str, Any] | None = None) -> Outcome:
        return Outcome(
            name=self.name,
            status="error",
            description=self.description,
            error=error,
            duration_ms=_ms(start),
            extra=extra or {},
        )

    def _call(self, record: Mapping[str, Any]) -> Any:
        assert self.fn is not None
        if self.kind == "check":
            return self.fn(record, dict(self.arguments))
        if self.kind != "code":
            return self.fn(record, **self.arguments)
        if getattr(self.fn, "__reward_function__", False):
            result = self.fn(
                messages=messages_of(record), ground_truth=ground_truth_of(record), **self.arguments
            )
        else:
            result = self.fn(outputs=record, **self.arguments)
        if inspect.iscoroutine(result):  # an `async def` judge: run on the worker's own loop
            import asyncio

            return asyncio.run(result)
        return result

    def _problem(self, value: object) -> str | None:
        if isinstance(value, bool):
            return None
        if not isinstance(value, int | float):
            return (
                f"judge {self.name!r} returned {type(value).__name__}; expected a bool or a "
                f"number (optionally as (value, rationale))"
            )
        number = float(value)
        if not math.isfinite(number):
            return f"judge {self.name!r} returned {number!r}; values must be finite"
        if self.score_range is not None:
            lo, hi = self.score_range
            if not lo <= number <= hi:
                return (
                    f"judge {self.name!r} returned {number:g}, outside its score_range "
                    f"[{lo:g}, {hi:g}] (values are never clamped)"
                )
        return None


def messages_of(record: Mapping[str, Any]) -> list[Any]:
    """The case's conversation, for `@reward_function` judges."""
    for source in (record.get("conversation"), (record.get("inputs") or {}).get("messages")):
        if isinstance(source, list):
            return source
    raise ValueError(
        "this judge is a @reward_function and needs the case's messages: add "
        "conversation.json (a list of {role, content}) to the case (for the Harbor bridge, to "
        "the tests directory), or `messages:` to input.yaml"
    )


def ground_truth_of(record: Mapping[str, Any]) -> Any:
    """`ground_truth` from the case's annotations (else its `expected` annotation)."""
    annotations = record.get("annotations") or {}
    return annotations.get("ground_truth", annotations.get("expected"))


def _metrics(metrics: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per-metric results as plain dicts, whether given as objects or as dicts."""
    fields = ("score", "reason", "success")
    return {
        str(name): {
            k: (m.get(k) if isinstance(m, Mapping) else getattr(m, k, None)) for k in fields
        }
        for name, m in metrics.items()
    }


def condition_env(record: Mapping[str, Any]) -> dict[str, object]:
    """The names an `if:` condition sees: `outputs` (the record) and `annotations`."""
    return {"outputs": record, "annotations": record.get("annotations") or {}}


def _unpack(result: Any) -> tuple[Any, str]:
    if isinstance(result, tuple) and len(result) == 2:
        return result[0], str(result[1] or "")
    if hasattr(result, "value") and not isinstance(result, numbers.Number):
        return result.value, str(getattr(result, "rationale", "") or "")
    if hasattr(result, "score") and not isinstance(result, numbers.Number):
        return result.score, str(getattr(result, "reason", "") or "")
    return result, ""


def _plain(value: Any) -> Any:
    """numpy scalars → Python bool / float; anything else unchanged."""
    if type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Real) and not isinstance(value, bool | int | float):
        return float(value)
    return value


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)
