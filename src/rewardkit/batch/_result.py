"""`SampleResult`: the reward of one sample, every judge outcome, and why it is invalid."""

from __future__ import annotations

from dataclasses import dataclass, field

from rewardkit._outcome import Outcome

__all__ = ["SampleResult"]


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
