"""Samples per second of `Scorer.score_batch` for a 5-criterion programmatic reward.

    .venv/bin/python benchmarks/score_batch.py [N]
    .venv/bin/python benchmarks/score_batch.py cpu [N] [RUNS]

Five `@reward_function` criteria (format, length, answer, keyword, no-repeat) composed by the
default mean, on N (default 10,000) samples, with `max_concurrent` 1 and 2: on threads (no
deadline, the fast path) and in forked worker processes (`deadline=10`, each sample killable).

`cpu`: the CPU-bound variant: the five criteria plus one that spends about 1.5 ms of pure
Python per sample, on N (default 2,000) samples with `score_batch(processes=1)` and
`processes=2` (the processes started by a warm-up call, not timed), RUNS (default 5) times,
interleaved; prints each run and the medians.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
from typing import Any

import rewardkit as rk


@rk.reward_function
def has_answer_tag(messages: list[dict[str, Any]], **kwargs: Any) -> bool:
    return "<answer>" in messages[-1]["content"]


@rk.reward_function
def not_too_long(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    return min(1.0, 200 / max(len(messages[-1]["content"]), 1))


@rk.reward_function
def correct(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> bool:
    found = re.search(r"<answer>(.*?)</answer>", messages[-1]["content"])
    return bool(found and found.group(1).strip() == ground_truth)


@rk.reward_function
def shows_steps(messages: list[dict[str, Any]], **kwargs: Any) -> bool:
    return "step" in messages[-1]["content"].lower()


@rk.reward_function
def no_repeats(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    words = messages[-1]["content"].split()
    return len(set(words)) / max(len(words), 1)


@rk.reward_function
def digit_balance(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    """CPU-bound on purpose: about 1.5 ms of pure Python."""
    text = messages[-1]["content"]
    total = 0
    for i in range(15_000):
        total += (ord(text[i % len(text)]) * i) % 7
    return (total % 100) / 100


def samples(n: int) -> list[dict[str, Any]]:
    return [
        {
            "prompt": f"What is {i} + {i}?",
            "completion": f"Step 1: add {i} and {i}. <answer>{2 * i + i % 3}</answer>",
            "ground_truth": str(2 * i),
        }
        for i in range(n)
    ]


def cpu_bound(n: int, runs: int) -> None:
    batch = samples(n)
    criteria = [has_answer_tag, not_too_long, correct, shows_steps, no_repeats, digit_balance]
    rates: dict[int, list[float]] = {1: [], 2: []}
    with rk.load(criteria) as scorer:
        for processes in rates:
            scorer.score_batch(batch[:50], processes=processes)  # start the processes
        for run in range(runs):
            for processes in rates:
                scorer.score_batch(batch[:50], processes=processes)  # warm this pool again
                start = time.perf_counter()
                results = scorer.score_batch(batch, processes=processes)
                elapsed = time.perf_counter() - start
                rates[processes].append(n / elapsed)
                valid = sum(r.valid for r in results)
                print(
                    f"run {run + 1}, processes={processes}: {n / elapsed:,.0f} samples/s "
                    f"({elapsed:.2f} s, {valid} valid)"
                )
    one, two = (statistics.median(rates[p]) for p in (1, 2))
    print(f"median: processes=1 {one:,.0f}/s, processes=2 {two:,.0f}/s, {two / one:.2f}x")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "cpu":
        n = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000
        cpu_bound(n, int(sys.argv[3]) if len(sys.argv) > 3 else 5)
        return
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    batch = samples(n)
    criteria = [has_answer_tag, not_too_long, correct, shows_steps, no_repeats]
    for deadline in (None, 10):
        for workers in (1, 2):
            with rk.load(criteria, max_concurrent=workers, deadline=deadline) as scorer:
                scorer.score_batch(batch[:200])  # warm-up
                start = time.perf_counter()
                results = scorer.score_batch(batch)
                elapsed = time.perf_counter() - start
            valid = sum(r.valid for r in results)
            print(
                f"deadline={deadline}, max_concurrent={workers}: {n / elapsed:,.0f} samples/s "
                f"({elapsed:.2f} s, {valid} valid)"
            )


if __name__ == "__main__":
    main()
