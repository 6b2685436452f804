"""A run's statistics, counted as its cases stream: the reward and each judge with its
interval, each reward key of a Harbor job, pass@k / pass^k, and the reward histogram."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from rewardkit.core._moments import Column
from rewardkit.core._stats import Estimate, pass_at_k, pass_hat_k
from rewardkit.report._groups import Groups
from rewardkit.report._keys import Keys, KeyStats
from rewardkit.report._run import Case

__all__ = ["BINS", "JudgeStats", "PassAtK", "RunStats", "Summary"]

BINS = 10
"""The reward histogram's bins over [0, 1]."""


@dataclass(frozen=True, kw_only=True)
class JudgeStats:
    """One judge across cases; errors, timeouts and skips counted apart, not in the mean."""

    name: str
    metric: Literal["pass_rate", "mean", "none"]
    """`pass_rate` when every scored value is a bool, `mean` when every one is a number."""
    estimate: Estimate
    statuses: dict[str, int]
    """How many cases had each status (`scored`, `skipped`, `error`, `timeout`, `missing`)."""


@dataclass(frozen=True, kw_only=True)
class PassAtK:
    """pass@k (at least one of k passes) and pass^k (all k pass), averaged over groups."""

    k: int
    pass_at_k: float
    pass_hat_k: float
    groups: int


@dataclass(frozen=True, kw_only=True)
class RunStats:
    """What the report's summary and the terminal table show."""

    reward: Estimate
    invalid: int
    """Cases without a valid reward."""
    judges: tuple[JudgeStats, ...]
    pass_k: tuple[PassAtK, ...]
    """Empty unless some group (task, prompt) has repeated samples."""
    pass_threshold: float
    reward_bins: tuple[int, ...]
    """How many rewards fall in each tenth of [0, 1] (those outside counted at the ends)."""
    keys: tuple[KeyStats, ...] = ()
    """Each key of a Harbor job's `reward.json` (`_keys.py`); empty for other inputs."""

    @property
    def key_rows(self) -> tuple[KeyStats, ...]:
        """The keys the table and the page show: all of them when there are several (one key
        is the reward itself, already shown)."""
        return self.keys if len(self.keys) > 1 else ()

    @property
    def cases(self) -> int:
        """Every case, with a reward or not."""
        return self.reward.n + self.invalid

    @property
    def failed(self) -> int:
        """Judge outcomes that errored or timed out, over every case."""
        return sum(j.statuses.get("error", 0) + j.statuses.get("timeout", 0) for j in self.judges)


class Summary:
    """`RunStats` of cases as they stream: `add` each case, then `stats`."""

    def __init__(self, pass_threshold: float = 1.0) -> None:
        self.pass_threshold = pass_threshold
        self.reward = Column()
        self.invalid = 0
        self.bins = [0] * BINS
        self.judges: dict[str, tuple[Column, Counter[str]]] = {}
        """Judge name → its scored values and its statuses, in order of first appearance."""
        self.keys = Keys(pass_threshold)

    def add(self, case: Case) -> bool | None:
        """Count `case`; whether it passes (`None` without a reward)."""
        self.keys.add(case.rewards)
        for judge in case.judges:
            found = self.judges.get(judge.name)
            if found is None:
                found = self.judges[judge.name] = (Column(), Counter())
            found[1][judge.status] += 1
            if judge.status == "scored" and judge.value is not None:
                found[0].add(judge.value)
        if case.reward is None:
            self.invalid += 1
            return None
        self.reward.add(case.reward)
        self.bins[min(BINS - 1, int(min(1.0, max(0.0, case.reward)) * BINS))] += 1
        return case.reward >= self.pass_threshold

    def stats(self, groups: Groups) -> RunStats:
        """The statistics, pass@k from the closed `groups`."""
        return RunStats(
            reward=self.reward.estimate(),
            invalid=self.invalid,
            judges=tuple(_judge(name, *found) for name, found in self.judges.items()),
            pass_k=_pass_k(groups.pass_counts),
            pass_threshold=self.pass_threshold,
            reward_bins=tuple(self.bins),
            keys=self.keys.stats(),
        )


def _judge(name: str, values: Column, statuses: Counter[str]) -> JudgeStats:
    return JudgeStats(
        name=name,
        metric=values.metric,
        estimate=values.estimate(),
        statuses=dict(statuses),
    )


def _pass_k(counts: Counter[tuple[int, int]]) -> tuple[PassAtK, ...]:
    """pass@k and pass^k averaged over groups, from `(samples, passes) → groups`."""
    if not counts:
        return ()
    groups = sum(counts.values())
    largest = min(n for n, _ in counts)
    ks = sorted({k for k in (1, 2, 4, 8, 16, 32, 64) if k <= largest} | {largest})
    shapes = sorted(counts.items())
    return tuple(
        PassAtK(
            k=k,
            pass_at_k=math.fsum(g * pass_at_k(n, c, k) for (n, c), g in shapes) / groups,
            pass_hat_k=math.fsum(g * pass_hat_k(n, c, k) for (n, c), g in shapes) / groups,
            groups=groups,
        )
        for k in ks
    )
