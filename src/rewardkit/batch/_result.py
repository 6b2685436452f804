"""`SampleResult`: the reward of one sample, every judge outcome, and why it is invalid."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from rewardkit.core._outcome import Outcome

__all__ = ["SampleResult", "judged", "one_judge", "scored"]


@dataclass(frozen=True, kw_only=True)
class SampleResult:
    """One sample's result. `reward is None` means invalid: never a silent 0.

    Example:
        >>> SampleResult(reward=None, error="deadline of 1s exceeded").valid
        False
    """

    reward: float | None
    """The scalar reward in [0, 1], or `None` when the sample could not be scored."""
    outcomes: tuple[Outcome, ...] = ()
    """Every judge's outcome, errors and skips included."""
    rewards: dict[str, float] = field(default_factory=dict)
    """Every reward key (a tests dir's `reward.json`; else just `reward`)."""
    error: str | None = None
    """Why the sample is invalid: a bad field, a judge error, or the deadline."""
    duration_s: float = 0.0
    _judge: ClassVar[str | None] = None
    """The one judge of a `judged` result (its outcome not built yet), else `None`."""
    _judge_ms: ClassVar[float] = 0.0

    def __getattr__(self, name: str) -> Any:
        # `judged` keeps its one outcome as a name and a time, and builds it on first read:
        # a result is then one object for the garbage collector to track, not five.
        if name != "outcomes" or self._judge is None:
            raise AttributeError(f"'SampleResult' object has no attribute '{name}'")
        outcomes = (scored(self._judge, self.reward, self._judge_ms),)  # type: ignore[arg-type]
        _set(self, "outcomes", outcomes)
        return outcomes

    def __reduce_ex__(self, protocol: Any) -> Any:
        # With a deadline, every result crosses a pipe: the common one (one judge scored,
        # its score the reward) goes as its four numbers and names, and is rebuilt from them.
        if type(self) is not SampleResult:
            return object.__reduce_ex__(self, protocol)
        if self._judge is not None:
            return judged, (self.reward, self._judge, self._judge_ms, self.duration_s)
        if self.error is None and len(self.outcomes) == 1:
            outcome, reward = self.outcomes[0], self.reward
            if (
                type(reward) is float
                and type(outcome) is Outcome
                and type(outcome.raw) is float
                and type(outcome.value) is float
                and type(outcome.weight) is float
                and type(self.rewards) is dict
                and type(outcome.extra) is dict
                and self.rewards == {"reward": reward}
                and vars(outcome) == _scored_fields(outcome.name, reward, outcome.duration_ms)
            ):
                return judged, (reward, outcome.name, outcome.duration_ms, self.duration_s)
        return object.__reduce_ex__(self, protocol)

    @property
    def valid(self) -> bool:
        """True when the sample has a reward."""
        return self.reward is not None

    @property
    def reason(self) -> str | None:
        """The error, else the judges' reasons joined (`name: reason`)."""
        if self.error is not None:
            return self.error
        reasons = [f"{o.name}: {o.reasoning}" for o in self.outcomes if o.reasoning]
        return "; ".join(reasons) or None

    @property
    def judges(self) -> dict[str, float | None]:
        """Each judge's value (`None` when it was skipped or failed)."""
        if self._judge is not None:
            return {self._judge: self.reward}
        return {o.name: o.value for o in self.outcomes}


del SampleResult.outcomes  # its default lives in `__init__`; a `judged` result builds its own

# A frozen dataclass's `__init__` sets each field through `object.__setattr__`, which costs
# more than scoring a sample: `scored` gives an outcome a copy of a template `__dict__`, and
# `one_judge` sets the result's five fields with a local `object.__setattr__`.
_new = object.__new__
_set = object.__setattr__
_OUTCOME = dict(vars(Outcome(name="", status="scored")))
"""Every field of an `Outcome`, at its default (a copy: not the instance's own dict)."""


def _scored_fields(name: str, value: float, duration_ms: float) -> dict[str, Any]:
    fields = _OUTCOME.copy()
    fields["name"] = name
    fields["value"] = fields["raw"] = value
    fields["duration_ms"] = duration_ms
    fields["extra"] = {}
    return fields


def scored(name: str, value: float, duration_ms: float) -> Outcome:
    """`Outcome(name=name, status="scored", value=value, raw=value, duration_ms=...)`, sooner."""
    outcome = _new(Outcome)
    _set(outcome, "__dict__", _scored_fields(name, value, duration_ms))
    return outcome


def one_judge(reward: float, outcome: Outcome, duration_s: float) -> SampleResult:
    """`SampleResult(reward=reward, outcomes=(outcome,), rewards={"reward": reward},
    duration_s=duration_s)`, sooner."""
    result = _new(SampleResult)
    _set(result, "reward", reward)
    _set(result, "outcomes", (outcome,))
    _set(result, "rewards", {"reward": reward})
    _set(result, "error", None)
    _set(result, "duration_s", duration_s)
    return result


def judged(reward: float, judge: str, duration_ms: float, duration_s: float) -> SampleResult:
    """`one_judge(reward, scored(judge, reward, duration_ms), duration_s)`, sooner: the
    outcome is built when `outcomes` is first read (also how such a result is unpickled)."""
    result = _new(SampleResult)
    _set(result, "reward", reward)
    _set(result, "_judge", judge)
    _set(result, "_judge_ms", duration_ms)
    _set(result, "rewards", {"reward": reward})
    _set(result, "error", None)
    _set(result, "duration_s", duration_s)
    return result
