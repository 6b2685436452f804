"""`SampleResult`: the reward of one sample, every judge outcome, and why it is invalid."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rewardkit._outcome import Outcome

__all__ = ["SampleResult", "one_judge", "scored"]


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

    def __reduce_ex__(self, protocol: Any) -> Any:
        # With a deadline, every result crosses a pipe: the common one (one judge scored,
        # its score the reward) goes as its four numbers and names, and is rebuilt from them.
        if type(self) is SampleResult and self.error is None and len(self.outcomes) == 1:
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
                return _one_scored, (reward, outcome.name, outcome.duration_ms, self.duration_s)
        return super().__reduce_ex__(protocol)

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
        return {o.name: o.value for o in self.outcomes}


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


def _one_scored(reward: float, name: str, duration_ms: float, duration_s: float) -> SampleResult:
    """A result pickled by `SampleResult.__reduce_ex__`, unpickled."""
    return one_judge(reward, scored(name, reward, duration_ms), duration_s)
