"""One sample's reward from its outcomes, under the error policy and the abstention rule.

RL scoring never turns "could not compute" into a reward of 0.0: a judge that failed counts
per `on_error` (`zero`: its lowest score; `omit`: left out; `fail`: the sample is invalid), and
a judge that abstained (skipped by `if:`, or failed under `omit`) is left out of every mode.
When that leaves the composition nothing to compute from — the single `reward.judge`, every
weighted judge, every judge of the default mean, or a judge the formula reads on this case —
the sample is invalid, saying which judges had no value and why. docs/rl.md has the table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rewardkit.core._outcome import ErrorPolicy, Outcome

if TYPE_CHECKING:
    from rewardkit.compose import JudgeInfo, JudgeValue, RewardBlock

__all__ = ["Scored", "compose_one", "compose_sample"]


@dataclass(frozen=True)
class Scored:
    """What a backend made of one sample."""

    reward: float | None
    """`None`: invalid (see `error`)."""
    outcomes: tuple[Outcome, ...]
    rewards: dict[str, float] = field(default_factory=dict)
    """Every reward key (a tests dir's `reward.json`; else just `reward`)."""
    error: str | None = None


def compose_sample(
    outcomes: tuple[Outcome, ...],
    block: RewardBlock | None,
    judges: Mapping[str, JudgeInfo],
    on_error: ErrorPolicy,
) -> Scored:
    """Compose `outcomes` into one sample's reward, or an invalid result saying why."""
    from rewardkit.compose import CompositionError, compose_reward
    from rewardkit.evalyaml._chunk import judge_value

    failed = [o for o in outcomes if o.failed]
    if failed and on_error == "fail":
        error = "; ".join(o.error or f"{o.name}: {o.status}" for o in failed)
        return Scored(None, outcomes, error=error)
    values = {
        o.name: _value(o, on_error, block, judges) if o.failed else judge_value(o) for o in outcomes
    }
    try:
        reward = compose_reward(values, block, judges, strict=True)
    except CompositionError as exc:
        return Scored(None, outcomes, error=f"{exc}{_without_value(outcomes, values)}")
    return Scored(reward, outcomes, {"reward": reward})


def compose_one(outcome: Outcome, judges: Mapping[str, JudgeInfo], on_error: ErrorPolicy) -> Scored:
    """`compose_sample` of one judge's outcome in the default composition; sooner when the
    judge scored on [0, 1], where the reward is its score (a pass/fail is 1 or 0)."""
    value = outcome.value
    info = judges.get(outcome.name)
    if (
        value is not None
        and 0.0 <= value <= 1.0
        and info is not None
        and info.score_range == (0, 1)
    ):
        raw = outcome.raw
        reward = (1.0 if raw else 0.0) if type(raw) is bool else value
        return Scored(reward, (outcome,), {"reward": reward})
    return compose_sample((outcome,), None, judges, on_error)


def _value(
    outcome: Outcome,
    on_error: ErrorPolicy,
    block: RewardBlock | None,
    judges: Mapping[str, JudgeInfo],
) -> JudgeValue:
    """A failed outcome's value under the policy."""
    from rewardkit.compose import DEFAULT_RANGE, JudgeValue

    if on_error == "omit":
        return JudgeValue(value=None)
    info = judges.get(outcome.name)  # `zero`: the bottom of its scale, so 0.0 once normalized
    fallback = block.score_range if block is not None else None
    scale = (info.score_range if info is not None else None) or fallback or DEFAULT_RANGE
    raw = block is not None and (
        outcome.name in block.raw or (outcome.name == block.judge and not block.normalize)
    )
    return JudgeValue(value=0.0 if raw else scale[0])


def _without_value(outcomes: tuple[Outcome, ...], values: Mapping[str, JudgeValue]) -> str:
    missing = [
        f"{o.name} ({o.error or o.reasoning or o.status})"
        for o in outcomes
        if values[o.name].value is None
    ]
    return f"; no value: {', '.join(missing)}" if missing else ""
