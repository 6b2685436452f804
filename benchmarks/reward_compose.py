"""Reward composition throughput: 100,000 cases, five judges, one process.

The block is parsed (and its formula compiled) once; `compose_reward` then runs per case,
with normalization from the judges' declared ranges, gating, and the final clamp. Reports
the median of several runs for the expression mode, the weighted mode and the default
composition (no `reward:` block). The goal is >= 200,000 cases/s for the expression mode.

    python benchmarks/reward_compose.py [--cases 100000] [--runs 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Mapping

from rewardkit.compose import (
    JudgeInfo,
    JudgeValue,
    RewardBlock,
    compose_reward,
    parse_reward_block,
)

FORMULA = "0.3*a + 0.2*b + 0.2*min(c, d) + 0.3*(e if a > 0.5 else 0)"
JUDGES = {
    "a": JudgeInfo(name="a", score_range=(1.0, 5.0)),
    "b": JudgeInfo(name="b", score_range=(0.0, 10.0)),
    "c": JudgeInfo(name="c", score_range=(0.0, 1.0)),
    "d": JudgeInfo(name="d"),  # falls back to [1, 5]
    "e": JudgeInfo(name="e", score_range=(-1.0, 1.0)),
}
GOAL = 200_000


def make_cases(count: int, seed: int = 0) -> list[Mapping[str, JudgeValue]]:
    """Random judge values on each judge's own scale (a few skips, no gates)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        values = {
            "a": JudgeValue(value=rng.uniform(1, 5)),
            "b": JudgeValue(value=float(rng.randint(0, 10))),
            "c": JudgeValue(value=rng.random()),
            "d": JudgeValue(value=rng.uniform(1, 5)),
            "e": JudgeValue(value=rng.uniform(-1, 1)),
        }
        cases.append(values)
    return cases


def rate(
    cases: list[Mapping[str, JudgeValue]], block: RewardBlock | None, runs: int
) -> tuple[float, float]:
    """Median cases/s over `runs` passes, and the mean reward (a checksum)."""
    timings, total = [], 0.0
    for _ in range(runs):
        start = time.perf_counter()
        total = 0.0
        for values in cases:
            total += compose_reward(values, block, JUDGES)
        timings.append(time.perf_counter() - start)
    return len(cases) / statistics.median(timings), total / len(cases)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    cases = make_cases(args.cases)
    blocks: dict[str, RewardBlock | None] = {
        "expression": parse_reward_block({"formula": FORMULA}, JUDGES),
        "weighted": parse_reward_block(
            {"weights": {"a": 0.3, "b": 0.2, "c": 0.2, "d": 0.1, "e": 0.2}}, JUDGES
        ),
        "default": None,
    }
    python = sys.version.split()[0]
    print(f"{args.cases:,} cases x 5 judges, median of {args.runs} runs (Python {python})")
    results = {}
    for mode, block in blocks.items():
        per_second, mean = rate(cases, block, args.runs)
        results[mode] = per_second
        print(f"  {mode:<10} {per_second:>12,.0f} cases/s   (mean reward {mean:.4f})")
    verdict = "ok" if results["expression"] >= GOAL else "BELOW GOAL"
    print(f"expression mode goal: >= {GOAL:,} cases/s -> {verdict}")
    if results["expression"] < GOAL:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
