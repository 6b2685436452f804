"""The report counts cases as they stream: its figures equal the exact ones computed from every
value at once, groups whose samples are spread out included, and its memory does not grow
with the number of cases."""

from __future__ import annotations

import json
import random
import statistics
import tracemalloc
from collections.abc import Iterator
from dataclasses import astuple
from itertools import combinations
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from rewardkit.report import build_report, estimate, pass_at_k, pass_hat_k
from rewardkit.report._load import open_run
from rewardkit.report._report import Scan
from rewardkit.report._run import Case, JudgeResult, Run


class Sample(NamedTuple):
    id: str
    group: str | None
    reward: float | None
    judges: dict[str, bool | int | float]
    length: int


def _samples(seed: int = 3) -> list[Sample]:
    """Groups of 1 to 7 samples in shuffled order: a bool check, a 1-5 star judge, a float
    judge that is sometimes missing, lengths, and samples without a reward or a group."""
    rng = random.Random(seed)
    samples = []
    for g in range(40):
        for _ in range(rng.randint(1, 7)):
            judges: dict[str, bool | int | float] = {
                "tests": rng.random() < 0.5,
                "stars": rng.randint(1, 5),
            }
            if rng.random() < 0.8:
                judges["style"] = round(rng.random(), 3)
            reward = None if rng.random() < 0.05 else round(rng.random(), 4)
            group = f"p{g}" if g < 36 else None
            samples.append(Sample(f"s{len(samples)}", group, reward, judges, rng.randint(50, 500)))
    rng.shuffle(samples)
    return samples


def _write(path: Path, samples: list[Sample]) -> Path:
    path.write_text("".join(json.dumps(s._asdict()) + "\n" for s in samples))
    return path


def _exact(samples: list[Sample], threshold: float) -> dict[str, Any]:
    """The figures from every value at once, the way the report computed them before it
    streamed (lists in memory, two-pass sums)."""
    judges: dict[str, list[bool | float]] = {}
    rows = []
    for s in samples:
        values = {k: float(v) for k, v in s.judges.items()}
        for name, value in s.judges.items():
            judges.setdefault(name, []).append(value if isinstance(value, bool) else float(value))
        if s.reward is not None:
            values["reward"] = s.reward
        rows.append((s.group, s.length, values))
    by_group: dict[str, list[bool]] = {}
    for s in samples:
        if s.group is not None and s.reward is not None:
            by_group.setdefault(s.group, []).append(s.reward >= threshold)
    repeated = [g for g in by_group.values() if len(g) > 1]
    smallest = min(map(len, repeated))
    pass_k = [
        (
            k,
            sum(pass_at_k(len(g), sum(g), k) for g in repeated) / len(repeated),
            sum(pass_hat_k(len(g), sum(g), k) for g in repeated) / len(repeated),
        )
        for k in sorted({k for k in (1, 2, 4) if k <= smallest} | {smallest})
    ]
    names = list(dict.fromkeys(n for _, _, v in rows for n in v))
    zero, ends = {}, {}
    for name in names:
        column = [v[name] for _, _, v in rows if name in v]
        groups: dict[str, list[float]] = {}
        for g, _, v in rows:
            if g is not None and name in v:
                groups.setdefault(g, []).append(v[name])
        varied = [g for g in groups.values() if len(g) > 1]
        zero[name] = sum(max(g) == min(g) for g in varied) / len(varied)
        low, high = (0.0, 1.0) if all(0 <= x <= 1 for x in column) else (min(column), max(column))
        ends[name] = (column.count(low) / len(column), column.count(high) / len(column))
    correlations = {}
    for a, b in combinations(names, 2):
        xs, ys = zip(*[(v[a], v[b]) for _, _, v in rows if a in v and b in v], strict=True)
        correlations[(a, b)] = statistics.correlation(xs, ys)
    lengths = [(g, float(n), v["reward"]) for g, n, v in rows if "reward" in v]
    means = {
        g: (
            statistics.fmean(n for h, n, _ in lengths if h == g),
            statistics.fmean(r for h, _, r in lengths if h == g),
        )
        for g, _, _ in lengths
    }
    inside = [(n - means[g][0], r - means[g][1]) for g, n, r in lengths if g is not None]
    return {
        "reward": estimate([s.reward for s in samples if s.reward is not None]),
        "judges": {name: estimate(values) for name, values in judges.items()},
        "pass_k": pass_k,
        "groups": len({g for g, _, _ in rows if g is not None}),
        "zero": zero,
        "ends": ends,
        "correlations": correlations,
        "length": statistics.correlation([n for _, n, _ in lengths], [r for *_, r in lengths]),
        "within": statistics.correlation(*zip(*inside, strict=True)),
    }


def _assert_same(path: Path, samples: list[Sample], *, exact_intervals: bool) -> None:
    report = build_report(path, pass_threshold=0.5)
    want = _exact(samples, 0.5)
    stats, found = report.stats, report.diagnostics
    assert found is not None
    got = {j.name: astuple(j.estimate) for j in stats.judges}
    got["reward"] = astuple(stats.reward)
    expected = {name: astuple(e) for name, e in want["judges"].items()}
    expected["reward"] = astuple(want["reward"])
    assert got.keys() == expected.keys()
    for name, figures in got.items():
        assert figures == (expected[name] if exact_intervals else pytest.approx(expected[name]))
    assert [p.k for p in stats.pass_k] == [k for k, _, _ in want["pass_k"]]
    for p, (_, at, hat) in zip(stats.pass_k, want["pass_k"], strict=True):
        assert (p.pass_at_k, p.pass_hat_k) == pytest.approx((at, hat))
    assert found.groups == want["groups"]
    assert {c.name: c.zero_variance for c in found.criteria} == want["zero"]
    assert {c.name: (c.at_min, c.at_max) for c in found.criteria} == want["ends"]
    assert found.correlations == pytest.approx(want["correlations"])
    assert found.length_correlation == pytest.approx(want["length"])
    assert found.length_correlation_within == pytest.approx(want["within"])
    assert not report.run.problems


def test_streaming_figures_equal_the_exact_ones(tmp_path: Path) -> None:
    samples = _samples()
    _assert_same(_write(tmp_path / "r.jsonl", samples), samples, exact_intervals=True)


def test_past_the_kept_values_the_sums_give_the_same_intervals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # below BOOTSTRAP_MAX_N a column keeps its values; past it, Wilson and normal from sums
    monkeypatch.setattr("rewardkit.core._stats.BOOTSTRAP_MAX_N", 10)
    monkeypatch.setattr("rewardkit.core._moments.BOOTSTRAP_MAX_N", 10)
    samples = _samples()
    report = build_report(_write(tmp_path / "r.jsonl", samples))
    assert report.stats.reward.method == "normal"
    assert {j.estimate.method for j in report.stats.judges} == {"wilson", "normal"}
    _assert_same(tmp_path / "r.jsonl", samples, exact_intervals=False)


def test_groups_that_come_back_after_they_closed_are_read_again_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("rewardkit.report._groups.MAX_OPEN", 2)  # shuffled: most come back
    reads = []
    monkeypatch.setattr(
        "rewardkit.report._report.open_run", lambda path: reads.append(path) or open_run(path)
    )
    samples = _samples()
    _assert_same(_write(tmp_path / "r.jsonl", samples), samples, exact_intervals=True)
    assert len(reads) == 2


def test_too_many_spread_out_groups_are_approximate_and_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("rewardkit.report._groups.MAX_OPEN", 2)
    monkeypatch.setattr("rewardkit.report._groups.MAX_HELD", 3)
    samples = _samples()
    report = build_report(_write(tmp_path / "r.jsonl", samples))
    [problem] = report.run.problems
    assert "the samples of over 3 groups are spread out" in problem.message
    assert report.diagnostics is not None
    assert report.diagnostics.groups > _exact(samples, 0.5)["groups"]  # returns count again


def test_problems_past_the_cap_are_counted_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("rewardkit.report._run.MAX_PROBLEMS", 3)
    path = tmp_path / "r.jsonl"
    path.write_text('{"reward": 1.0}\n' + "not json\n" * 10)
    problems = build_report(path).run.problems
    assert len(problems) == 4
    assert problems[-1].message == "more than 3 problems; the rest are not listed"


def _cases(n: int) -> Iterator[Case]:
    """`n` result lines' cases: groups of 8, three judges, one in 50 without a reward."""
    rng = random.Random(n)
    for i in range(n):
        judges = (
            JudgeResult(name="correct", status="scored", value=float(rng.random() < 0.4)),
            JudgeResult(name="format", status="scored", value=rng.random() < 0.97),
            JudgeResult(name="quality", status="scored", value=rng.random()),
        )
        reward = None if i % 50 == 0 else rng.random()
        yield Case(id=f"s{i}", reward=reward, judges=judges, group=f"p{i // 8}", length=i % 300)


def _peak_bytes(n: int) -> int:
    run = Run(kind="results", source="r.jsonl")
    tracemalloc.start()
    try:
        scan = Scan(run, _cases(n), pass_threshold=0.5)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert scan.summary.stats(scan.groups).cases == n
    return peak


def test_memory_does_not_grow_with_the_number_of_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    # the fixed-size parts made small (the page's cases, the open groups, the values kept for
    # the bootstrap, the Bloom filter), so that what is left is whatever could grow per case
    monkeypatch.setattr("rewardkit.report._report.MAX_CASES", 100)
    monkeypatch.setattr("rewardkit.report._groups.MAX_OPEN", 50)
    monkeypatch.setattr("rewardkit.report._groups._BLOOM_LOG2", 16)
    monkeypatch.setattr("rewardkit.core._moments.BOOTSTRAP_MAX_N", 100)
    monkeypatch.setattr("rewardkit.core._stats.BOOTSTRAP_MAX_N", 100)
    small, large = _peak_bytes(2_000), _peak_bytes(20_000)
    # 18,000 more cases: keeping even 2 bytes of each would add 36 kB
    assert large < small * 1.2, (small, large)
