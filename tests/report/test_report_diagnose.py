"""RL-signal diagnostics on synthetic groups with known patterns."""

from __future__ import annotations

from pathlib import Path

import pytest

from rewardkit.batch import SampleResult
from rewardkit.report import build_report, diagnose


def _rows(groups: dict[str, list[dict[str, float]]]) -> list[dict[str, object]]:
    return [
        {"reward": values.get("reward", 0.5), "judges": values, "group": g}
        for g, samples in groups.items()
        for values in samples
    ]


def test_zero_variance_share_is_exact() -> None:
    # 4 groups: `a` is flat in 3 of them, `b` in 1
    groups = {
        "p0": [{"a": 1, "b": 0}, {"a": 1, "b": 1}],
        "p1": [{"a": 0, "b": 0}, {"a": 0, "b": 1}],
        "p2": [{"a": 0.5, "b": 1}, {"a": 0.5, "b": 1}],
        "p3": [{"a": 0, "b": 0}, {"a": 1, "b": 1}],
    }
    found = {c.name: c for c in diagnose(_rows(groups)).criteria}
    assert found["a"].zero_variance == 0.75
    assert found["a"].groups == 4
    assert found["b"].zero_variance == 0.25
    assert found["reward"].zero_variance == 1.0  # every reward here is 0.5


def test_saturation() -> None:
    rows = [{"reward": 1.0, "judges": {"fmt": 1.0, "q": 0.2 * (i % 5)}} for i in range(40)]
    rows[0]["judges"] = {"fmt": 0.0, "q": 0.0}  # type: ignore[index]
    d = diagnose(rows)
    fmt = next(c for c in d.criteria if c.name == "fmt")
    assert (fmt.at_max, fmt.at_min, fmt.saturated) == (0.975, 0.025, True)
    q = next(c for c in d.criteria if c.name == "q")
    assert not q.saturated
    assert q.at_min == pytest.approx(8 / 40)
    assert any("fmt: saturated, 98% of samples at its maximum" in w for w in d.warnings)
    assert fmt.zero_variance is None  # no groups, nothing to say


def test_values_outside_unit_range_saturate_on_their_observed_range() -> None:
    rows = [{"reward": 0.5, "judges": {"stars": 5.0}} for _ in range(19)]
    rows.append({"reward": 0.5, "judges": {"stars": 1.0}})
    stars = next(c for c in diagnose(rows).criteria if c.name == "stars")
    assert (stars.at_max, stars.at_min) == (0.95, 0.05)


def test_length_gaming_within_groups_is_found_even_when_hidden_across_groups() -> None:
    # Within each prompt the longer completion wins; across prompts the long ones score low.
    rows, lengths = [], []
    for g in range(8):
        for s in range(4):
            rows.append({"reward": 0.1 * s + (0.7 - 0.1 * g), "group": f"p{g}"})
            lengths.append(1000 - 100 * g + 10 * s)
    d = diagnose(rows, lengths=lengths)
    assert d.length_correlation_within == pytest.approx(1.0)
    assert d.length_correlation is not None
    assert d.length_correlation > 0.9
    assert any("length gaming" in w and "within groups" in w for w in d.warnings)
    honest = diagnose(rows, lengths=[100 + (i * 37) % 11 for i in range(len(rows))])
    assert not any("length" in w for w in honest.warnings)


def test_correlation_and_disagreement() -> None:
    rows = []
    for i in range(20):
        check = float(i % 2)
        judge = 0.9 if i % 4 in (1, 2) else 0.1  # agrees with the check on half
        rows.append({"reward": check, "judges": {"tests": check, "llm": judge, "copy": check}})
    d = diagnose(rows)
    assert d.disagreements == {("llm", "tests"): 0.5, ("llm", "copy"): 0.5}
    assert d.correlations[("tests", "copy")] == pytest.approx(1.0)
    assert d.correlations[("tests", "llm")] == pytest.approx(0.0)
    forced = diagnose(rows, kinds={"copy": "judge"})
    assert ("copy", "tests") in forced.disagreements


def test_sample_results_with_groups_and_metrics() -> None:
    results = [
        SampleResult(reward=1.0, rewards={"reward": 1.0}),
        SampleResult(reward=1.0),
        SampleResult(reward=0.0),
        SampleResult(reward=None, error="deadline"),
    ]
    d = diagnose(results, groups=["a", "a", "b", "b"], lengths=[10, 20, 30, 40])
    assert d.samples == 4
    assert d.groups == 2
    metrics = d.as_metrics()
    assert metrics["rewardkit/zero_variance/reward"] == 1.0  # "a" flat; "b" has one value
    assert metrics["rewardkit/at_max/reward"] == pytest.approx(2 / 3)
    assert metrics["rewardkit/length_corr"] == pytest.approx(-0.8660254)
    with pytest.raises(ValueError, match="zip"):
        diagnose(results, groups=["a"])


def test_report_of_a_results_file_diagnoses_its_groups(results: Path) -> None:
    d = build_report(results).diagnostics
    assert d is not None
    assert d.groups == 10
    found = {c.name: c for c in d.criteria}
    assert found["correct"].zero_variance == 0.5
    assert found["format"].zero_variance == 1.0
    assert found["format"].saturated
    assert d.length_correlation_within is not None
    assert d.length_correlation_within > 0.8
