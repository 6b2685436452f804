"""What is calibrated, and how it is run: one eval.yaml judge, or a tests directory's reward
(its judge TOMLs and criteria), each as a `Target` that scores case records."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit.core._errors import ConfigError
from rewardkit.core._outcome import Outcome

if TYPE_CHECKING:
    from rewardkit.evalyaml._judge import EvalJudge
    from rewardkit.evalyaml._suite import EvalSuite

__all__ = ["Records", "Target", "check_workspaces", "eval_target", "tests_target"]

Records = Sequence[tuple[str, dict[str, Any]]]
"""Case records by item id, as `rewardkit eval` builds them (`_labels.record_of`)."""


@dataclass(frozen=True, kw_only=True)
class Target:
    """A judge to calibrate: how to name it, its scale, and how to score records."""

    name: str
    kind: str
    where: str
    scale: tuple[float, float] | None
    """The range its numbers are on (`score_range`), if declared."""
    verdicts: bool
    """It declares pass/fail answers (an eval.yaml `feedback_type: bool`)."""
    texts: bool
    """It reads outputs as text, so the probes can change them (not a workspace)."""
    run: Callable[[Records], list[Outcome]]
    """Each record's outcome, in order; failures are outcomes."""


def eval_target(suite: EvalSuite, judge: EvalJudge, max_concurrent: int) -> Target:
    """`judge` of `suite`, run alone on each record (`score_records`)."""

    def run(records: Records) -> list[Outcome]:
        from rewardkit.compose import CompositionWarning
        from rewardkit.evalyaml._score import score_records

        alone = replace(suite, judges=(judge,), reward=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CompositionWarning)
            results = score_records(alone, list(records), max_concurrent=max_concurrent)
        return [result.outcomes[0] for result in results]

    return Target(
        name=judge.name,
        kind=judge.kind,
        where=judge.where,
        scale=judge.scale,
        verdicts=judge.feedback_type == "bool",
        texts=True,
        run=run,
    )


def tests_target(tests_dir: Path, key: str | None, max_concurrent: int) -> Target:
    """A tests directory's reward (or its reward key `key`, e.g. a subdirectory's) on each
    record's `workspace`, through `rewardkit.load`.

    Raises:
        ConfigError: the tests directory does not load.
    """
    from rewardkit.batch import load

    scorer = load(tests_dir, max_concurrent=max_concurrent)
    name = key or "reward"

    def run(records: Records) -> list[Outcome]:
        samples = [{"workspace": record["workspace"]} for _, record in records]
        outcomes = []
        for result in scorer.score_batch(samples):
            value = result.reward if key is None else result.rewards.get(key)
            if result.error is not None or value is None:
                why = result.error or f"no reward key {name!r} (keys: {sorted(result.rewards)})"
                outcomes.append(Outcome(name=name, status="error", error=why))
            else:
                outcomes.append(Outcome(name=name, status="scored", value=value, raw=value))
        return outcomes

    return Target(
        name=name,
        kind="tests",
        where=str(tests_dir),
        scale=(0.0, 1.0),
        verdicts=False,
        texts=False,
        run=run,
    )


def check_workspaces(records: Records, where: Sequence[str]) -> None:
    """Every record has a `workspace` (a tests directory judges one, never text)."""
    for (_, record), place in zip(records, where, strict=True):
        if not record.get("workspace"):
            raise ConfigError(
                "no workspace. With --tests, every item needs `workspace`: the directory "
                "the tests judge (relative to the labels file)",
                path=place,
                key="workspace",
            )
