"""Per-key figures of a Harbor job: each key of the trials' `reward.json`, as the trials stream.

Harbor's `reward.json` is a flat object of named rewards (a `rewardkit` tests dir writes one
key per subdirectory, plus `reward.toml`'s), and every key flows into the job's metrics
(`spec/eval-yaml-and-harbor.md` §B.3, §B.7). The report gives each key what it gives the
reward: the mean with its 95% interval (`Column`, so the same estimators), the pass rate at
the pass threshold, and how many trials have it. A key missing from a trial is left out of
that key's figures, not counted as 0 as Harbor's `mean` metric counts it, so keys may have
different n; `missing` says how many trials with reward keys lacked it.

Fixed in size whatever the number of trials: at most `MAX_KEYS` keys are tabulated (the
first to appear); the values of further keys are only counted, and the report says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rewardkit.core._moments import Column
from rewardkit.core._stats import Estimate

__all__ = ["MAX_KEYS", "MAX_NAME", "KeyStats", "Keys", "short"]

MAX_KEYS = 64
"""The most reward keys tabulated, the first to appear."""
MAX_NAME = 60
"""Characters of a key's name shown in a table; a longer one is cut, with an ellipsis."""


def short(name: str, cap: int = MAX_NAME) -> str:
    """`name` cut to `cap` characters, the last an ellipsis when it was cut.

    >>> short("correctness"), short("x" * 70, 8)
    ('correctness', 'xxxxxxx…')
    """
    return name if len(name) <= cap else name[: cap - 1] + "…"


@dataclass(frozen=True, kw_only=True)
class KeyStats:
    """One reward key across the trials that have it."""

    name: str
    estimate: Estimate
    """The mean of the key's values with its 95% interval (`estimate.n` trials have it)."""
    passes: int
    """Values at or above the pass threshold."""
    missing: int
    """Trials with reward keys but not this one (left out of its figures, not counted 0)."""

    @property
    def pass_rate(self) -> float | None:
        """The share of the key's values at or above the pass threshold."""
        n = self.estimate.n
        return self.passes / n if n else None


class _Key:
    __slots__ = ("column", "passes")

    def __init__(self) -> None:
        self.column = Column()
        self.passes = 0


class Keys:
    """The reward keys of trials as they stream: `add` each trial's keys, then `stats`.

    Example:
        >>> keys = Keys(pass_threshold=1.0)
        >>> keys.add({"correctness": 1.0, "style": 0.5})
        >>> keys.add({"correctness": 0.0})
        >>> [(k.name, k.estimate.mean, k.pass_rate, k.missing) for k in keys.stats()]
        [('correctness', 0.5, 0.5, 0), ('style', 0.5, 0.0, 1)]
    """

    def __init__(self, pass_threshold: float = 1.0) -> None:
        self.pass_threshold = pass_threshold
        self.keys: dict[str, _Key] = {}
        """Key → its values, in order of first appearance."""
        self.trials = 0
        """Trials with at least one reward key."""
        self.left_out = 0
        """Values of keys past `MAX_KEYS`, not tabulated."""

    def add(self, rewards: Mapping[str, float]) -> None:
        """Count one trial's reward keys (none: a trial without a readable reward file)."""
        if not rewards:
            return
        self.trials += 1
        for name, value in rewards.items():
            key = self.keys.get(name)
            if key is None:
                if len(self.keys) >= MAX_KEYS:
                    self.left_out += 1
                    continue
                key = self.keys[name] = _Key()
            key.column.add(float(value))
            key.passes += value >= self.pass_threshold

    def stats(self) -> tuple[KeyStats, ...]:
        """Every tabulated key, in order of first appearance."""
        return tuple(
            KeyStats(
                name=name,
                estimate=key.column.estimate(),
                passes=key.passes,
                missing=self.trials - key.column.n,
            )
            for name, key in self.keys.items()
        )

    @property
    def warning(self) -> str | None:
        """Why some keys are not tabulated; `None` when every key is."""
        if not self.left_out:
            return None
        return (
            f"more than {MAX_KEYS} distinct reward keys: only the first {MAX_KEYS} to appear "
            f"are tabulated ({self.left_out:,} values of the others left out)"
        )
