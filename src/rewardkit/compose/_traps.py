"""Silent zeros: a `reward:` block that is valid, yet scores 0.0 where its author expects more.

`rewardkit check` prints these as warnings and `rk.load` warns at load. Pure: the caller says
which judges are pass/fail and which may abstain. docs/rl.md ("What your reward really
computes") has the cases.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING

from rewardkit.compose._reward import RewardBlock

if TYPE_CHECKING:
    from rewardkit.core._outcome import Outcome

__all__ = ["LITTLE", "ScaleWatch", "silent_zero_flag", "silent_zeros"]

LITTLE = 0.5
"""A pass/fail judge that moves less of the reward than this, yet gates it, is a trap."""


def silent_zeros(
    block: RewardBlock | None, *, verdicts: Collection[str], conditions: Mapping[str, str]
) -> list[str]:
    """Each trap of `block`, as a sentence that names the key, what happens, and the fix.

    Args:
        verdicts: the judges whose value is pass/fail (`True`/`False`).
        conditions: the judges that may abstain, with their `if:` source.

    Example:
        >>> from rewardkit.compose import parse_reward_block, JudgeInfo
        >>> info = {n: JudgeInfo(name=n) for n in ("quality", "format_ok")}
        >>> block = parse_reward_block({"formula": "0.9 * quality + 0.1 * format_ok"}, info)
        >>> print(silent_zeros(block, verdicts={"format_ok"}, conditions={})[0][:65])
        reward.gate is on, so 'format_ok' (pass/fail) returning False mak
    """
    if block is None:
        return []
    return _gates(block, verdicts) + _abstentions(block, conditions)


def _read(block: RewardBlock) -> set[str]:
    """The judges the composition reads."""
    if block.judge is not None:
        return {block.judge}
    if block.expression is not None:
        return set(block.expression.names)
    return set(block.weights)


def _gates(block: RewardBlock, verdicts: Collection[str]) -> list[str]:
    if not block.gate or block.judge is not None:
        return []
    key = "reward.formula" if block.expression is not None else "reward.weights"
    traps = []
    for name in sorted(_read(block) & set(verdicts)):
        share = _share(block, name)
        if share is not None and share < LITTLE:
            traps.append(
                f"reward.gate is on, so {name!r} (pass/fail) returning False makes the reward "
                f"0.0, though {key} gives it only {share:.2g} of the reward. Set `gate: false` "
                f"to let {key} weigh it, or drop it from {key} if it is meant to gate."
            )
    return traps


def _share(block: RewardBlock, name: str) -> float | None:
    """How much of the reward `name` moves on its own: all judges at 1.0, then it at 0.0."""
    if block.expression is None:
        total = sum(block.weights.values())
        return block.weights.get(name, 0.0) / total if total > 0 else None
    every = dict.fromkeys(block.expression.names, 1.0)
    try:
        high = float(block.expression.evaluate(every))  # type: ignore[arg-type]
        low = float(block.expression.evaluate({**every, name: 0.0}))  # type: ignore[arg-type]
    except Exception:  # the formula needs values this probe does not give: no verdict
        return None
    return abs(high - low)


def _abstentions(block: RewardBlock, conditions: Mapping[str, str]) -> list[str]:
    if block.expression is None and block.judge is None:
        return []  # weighted: a judge without a value leaves both sums
    key = "reward.judge" if block.judge is not None else "reward.formula"
    return [
        f"{key} reads {name!r}, which abstains when `if: {conditions[name]}` is false; then "
        "the reward cannot be computed (`rewardkit eval` scores 0.0 with a warning, RL "
        f"scoring marks the sample invalid). Read {name!r} only where it has a value (e.g. "
        f"`{name} if ... else ...`), or use `formula: weighted`, which leaves it out."
        for name in sorted(_read(block) & set(conditions))
    ]


class ScaleWatch:
    """Judges read on the unchecked [1, 5] default, watched for a number outside it (below 1
    reads as 0.0, above 5 as 1.0: a 0-1 score always reads as 0.0).

    Whether a code judge returns 0-1 numbers shows only when it runs. `see` gives one
    message per judge, the first time; the caller shows it once, where the results arrive.

    Example:
        >>> from rewardkit.core._outcome import Outcome
        >>> watch = ScaleWatch("eval.yaml", ["exact"])
        >>> len(watch.see([Outcome(name="exact", status="scored", value=0.0, raw=0.5)]))
        1
        >>> watch.see([Outcome(name="exact", status="scored", value=0.0, raw=0.5)])
        []
    """

    def __init__(self, where: str, judges: Collection[str]) -> None:
        self.where = where
        self.left = set(judges)

    def see(self, outcomes: Iterable[Outcome]) -> list[str]:
        """The messages for judges first seen returning a number outside [1, 5]."""
        if not self.left:
            return []
        found = []
        for outcome in outcomes:
            number = outcome.raw
            if outcome.name in self.left and type(number) in (int, float) and not 1 <= number <= 5:
                self.left.discard(outcome.name)
                found.append(
                    f"{self.where}: judge {outcome.name!r} returned {number!r} and has no "
                    "score_range, so it is scored on the unchecked [1, 5] default (as "
                    f"{0.0 if number < 1 else 1.0}). Declare score_range: [lo, hi] (e.g. "
                    "[0, 1]), or return True/False for pass/fail."
                )
        return found


def silent_zero_flag(zeros: int, scored: int, noun: str) -> str | None:
    """The end-of-run warning when the reward is 0 while a judge scored above 0 on over a
    tenth of the `scored` samples (`zeros` of them): a silent zero, not a bad policy.

    Example:
        >>> silent_zero_flag(1, 100, "rollouts") is None
        True
        >>> silent_zero_flag(50, 100, "cases")[:41]
        'the reward is 0 on 50 of 100 scored cases'
    """
    if zeros * 10 <= scored:
        return None
    return (
        f"the reward is 0 on {zeros} of {scored} scored {noun} where a judge scored above 0. "
        "A code judge without score_range is read on [1, 5] (give it one, e.g. score_range: "
        "[0, 1]); else a gate or the formula zeroes them."
    )
