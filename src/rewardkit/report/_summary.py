"""A run's statistics: the reward and each judge with its interval, and pass@k / pass^k."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

from rewardkit.report._run import JudgeResult, Run
from rewardkit.report._stats import Estimate, estimate, pass_at_k, pass_hat_k

__all__ = ["JudgeStats", "PassAtK", "RunStats", "run_stats"]


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


def run_stats(run: Run, *, pass_threshold: float = 1.0) -> RunStats:
    """Statistics of `run`; a sample passes (for pass@k) when its reward >= `pass_threshold`."""
    rewards = [c.reward for c in run.cases if c.reward is not None]
    by_name: dict[str, list[JudgeResult]] = {}  # one pass: a case may carry many judges
    for case in run.cases:
        for judge in case.judges:
            by_name.setdefault(judge.name, []).append(judge)
    return RunStats(
        reward=estimate(rewards),
        invalid=len(run.cases) - len(rewards),
        judges=tuple(_judge(name, by_name.get(name, [])) for name in run.judge_names),
        pass_k=_pass_k(run, pass_threshold),
        pass_threshold=pass_threshold,
    )


def _judge(name: str, results: list[JudgeResult]) -> JudgeStats:
    values = [j.value for j in results if j.status == "scored" and j.value is not None]
    kinds = {isinstance(v, bool) for v in values}
    metric: Literal["pass_rate", "mean", "none"] = (
        "pass_rate" if kinds == {True} else "mean" if kinds == {False} else "none"
    )
    return JudgeStats(
        name=name,
        metric=metric,
        estimate=estimate(values if metric != "none" else []),
        statuses=dict(Counter(j.status for j in results)),
    )


def _pass_k(run: Run, threshold: float) -> tuple[PassAtK, ...]:
    groups: dict[str, list[bool]] = {}
    for case in run.cases:
        if case.group is not None and case.reward is not None:
            groups.setdefault(case.group, []).append(case.reward >= threshold)
    repeated = [g for g in groups.values() if len(g) > 1]
    if not repeated:
        return ()
    largest = min(len(g) for g in repeated)
    ks = sorted({k for k in (1, 2, 4, 8, 16, 32, 64) if k <= largest} | {largest})
    return tuple(
        PassAtK(
            k=k,
            pass_at_k=sum(pass_at_k(len(g), sum(g), k) for g in repeated) / len(repeated),
            pass_hat_k=sum(pass_hat_k(len(g), sum(g), k) for g in repeated) / len(repeated),
            groups=len(repeated),
        )
        for k in ks
    )
