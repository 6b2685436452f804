"""Speed figures of README.md's "Measured" table, each checked side by side with its baseline.

Marked `timing`: they skip unless asked for (`pytest --timing`, or `REWARDKIT_TIMING=1`; CI
runs them). Each is a ratio to a baseline measured in the same loop, alternating, so another
job on the machine slows both sides; each tolerance is about twice the ratio the README states,
so a regression that pulls in a heavy import or doubles the cost of a sample still fails.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable

import pytest

import rewardkit as rk

pytestmark = pytest.mark.timing


def _timer(work: Callable[[], object], clock: Callable[[], float]) -> Callable[[], float]:
    """A measure of `work`: how far `clock` moves while it runs."""

    def once() -> float:
        start = clock()
        work()
        return clock() - start

    return once


def _alternating(runs: int, **sides: Callable[[], float]) -> dict[str, float]:
    """The median of `runs` measures of each side, taken in turn."""
    measures: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(runs):
        for name, measure in sides.items():
            measures[name].append(measure())
    return {name: statistics.median(values) for name, values in measures.items()}


def _python(code: str) -> Callable[[], object]:
    return lambda: subprocess.run([sys.executable, "-c", code], check=True)


def test_import_rewardkit_costs_a_few_interpreter_starts() -> None:
    """README: `import rewardkit` 30 ms in a fresh interpreter, whose floor
    (`python -c 'import sys'`) is 9 ms: 3.3 starts. Heavy imports are lazy."""
    times = _alternating(
        9,
        bare=_timer(_python("import sys"), time.perf_counter),
        rewardkit=_timer(_python("import rewardkit"), time.perf_counter),
    )
    ratio = times["rewardkit"] / times["bare"]
    assert ratio < 7, f"import rewardkit: {ratio:.1f} bare interpreter starts ({times})"


@rk.reward_function
def _exact(messages: list[dict[str, str]], ground_truth: str = "", **kwargs: object) -> bool:
    return messages[-1]["content"].strip() == ground_truth


def test_score_batch_costs_a_few_plain_loops() -> None:
    """README: `rk.load(...).score_batch`, no deadline, 7.5 µs of CPU a sample against 3.5 µs
    for a plain loop calling the same `@reward_function`: 2.1 times (the bound leaves twice
    that for a loaded machine)."""
    samples = [
        {"prompt": "2+2?", "completion": str(i), "ground_truth": str(i)} for i in range(2000)
    ]

    def plain() -> None:
        for sample in samples:
            messages = [
                {"role": "user", "content": sample["prompt"]},
                {"role": "assistant", "content": sample["completion"]},
            ]
            float(_exact(messages=messages, ground_truth=sample["ground_truth"]).score)

    with rk.load({"exact": _exact}) as scorer:
        assert [r.reward for r in scorer.score_batch(samples[:100])] == [1.0] * 100  # warm
        cpu = _alternating(
            7,
            plain=_timer(plain, time.process_time),
            score_batch=_timer(lambda: scorer.score_batch(samples), time.process_time),
        )
    ratio = cpu["score_batch"] / cpu["plain"]
    assert ratio < 4.5, f"score_batch: {ratio:.1f} times the plain loop's CPU ({cpu})"
