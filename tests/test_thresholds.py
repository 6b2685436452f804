"""Thresholds, the baseline check, judge aggregates and pairwise verdicts, table-driven.

Each row names the harness doc (under `website/`) or test its expected value comes from.
"""

from __future__ import annotations

from typing import Any

import pytest

from rewardkit.compose._thresholds import Regression, regressions, report
from rewardkit.evalyaml._pairwise import Verdict, stability, tally
from rewardkit.evalyaml._summary import run_metrics
from rewardkit.evalyaml._tally import JudgeTally

Row = tuple[dict[str, Any], dict[str, Any], list[tuple[str, str, str, float | None]]]

THRESHOLDS: dict[str, Row] = {
    # concepts/thresholds.md: a boolean judge's mean is its pass rate, so min_mean gates it
    "min_mean on a boolean judge": (
        {"q": {"mean": 0.9, "pass_rate": 0.9, "scored_cases": 10}},
        {"q": {"min_mean": 0.95}},
        [("q", "mean", ">= 0.95", 0.9)],
    ),
    # reference/config/thresholds.md: "a metric exactly equal to its threshold passes"
    "equal passes": (
        {"q": {"mean": 3.5, "pass_rate": None, "scored_cases": 4}},
        {"q": {"min_mean": 3.5}},
        [],
    ),
    # concepts/thresholds.md: "[output_quality] mean: >= 3.5 -> 3.1"
    "min_mean missed": (
        {"output_quality": {"mean": 3.1, "pass_rate": None, "scored_cases": 10}},
        {"output_quality": {"min_mean": 3.5}},
        [("output_quality", "mean", ">= 3.5", 3.1)],
    ),
    # reference/config/thresholds.md: min_pass_rate on a numeric judge is n/a, a regression
    "min_pass_rate on a numeric judge": (
        {"q": {"mean": 4.0, "pass_rate": None, "scored_cases": 3, "errored_cases": 0}},
        {"q": {"min_pass_rate": 0.9}},
        [("q", "pass_rate", ">= 0.9", None)],
    ),
    # tests/test_threshold_consumers.py: max_error_rate over scored + errored cases
    "max_error_rate": (
        {"q": {"mean": 4.0, "scored_cases": 1, "errored_cases": 9}},
        {"q": {"max_error_rate": 0.2}},
        [("q", "error_rate", "<= 0.2", 0.9)],
    ),
    # reference/config/thresholds.md: max_error_rate compared with >, equal passes
    "max_error_rate equal": (
        {"q": {"mean": 4.0, "scored_cases": 8, "errored_cases": 2}},
        {"q": {"max_error_rate": 0.2}},
        [],
    ),
    # tests/test_threshold_consumers.py: a win rate of 0.3 misses min_win_rate 0.6
    "min_win_rate missed": (
        {"pairwise": {"win_rate": 0.3}},
        {"pairwise": {"min_win_rate": 0.6}},
        [("pairwise", "win_rate", ">= 0.6", 0.3)],
    ),
    # reference/config/thresholds.md: min_win_rate without a pairwise comparison regresses
    "min_win_rate without a comparison": (
        {"pairwise": {}},
        {"pairwise": {"min_win_rate": 0.6}},
        [("pairwise", "win_rate", ">= 0.6", None)],
    ),
    # concepts/thresholds.md: each key is checked on its own; any failure counts
    "several keys": (
        {"h": {"mean": 0.8, "pass_rate": 0.8, "scored_cases": 8, "errored_cases": 2}},
        {"h": {"min_pass_rate": 1.0, "max_error_rate": 0.1}},
        [("h", "pass_rate", ">= 1.0", 0.8), ("h", "error_rate", "<= 0.1", 0.2)],
    ),
}


@pytest.mark.parametrize(("judges", "limits", "expected"), THRESHOLDS.values(), ids=THRESHOLDS)
def test_thresholds(
    judges: dict[str, Any], limits: dict[str, Any], expected: list[tuple[str, str, str, Any]]
) -> None:
    found = regressions(limits, judges)
    assert [(r.judge, r.metric, r.expected, r.actual) for r in found] == expected


UNAVAILABLE = {
    # concepts/thresholds.md: "pass_rate unavailable — judge errored on 12 cases; ..."
    "all errored": (
        {"scored_cases": 0, "errored_cases": 12},
        "min_pass_rate",
        "pass_rate unavailable — judge errored on 12 cases; see the per-case rationales",
    ),
    # reference/config/thresholds.md: "...judge skipped for all cases or not a boolean judge"
    "skipped or numeric": (
        {"scored_cases": 0, "errored_cases": 0},
        "min_pass_rate",
        "pass_rate unavailable — judge skipped for all cases or not a boolean judge",
    ),
}


@pytest.mark.parametrize(("stats", "limit", "detail"), UNAVAILABLE.values(), ids=UNAVAILABLE)
def test_an_unavailable_metric_says_why(stats: dict[str, Any], limit: str, detail: str) -> None:
    (found,) = regressions({"q": {limit: 0.9}}, {"q": stats})
    assert found.detail == detail
    assert found.line() == f"[q] pass_rate: >= 0.9 -> n/a   {detail}"


BASELINE = {
    # reference/config/thresholds.md: "[output_quality] mean_vs_baseline: 4.2 -> 3.5"
    "a drop over 0.5": ({"mean": 3.5}, {"mean": 4.2}, [("mean_vs_baseline", "4.2", 3.5)]),
    # concepts/thresholds.md: a drop of "more than 0.5" (absolute) regresses
    "a drop of 0.5": ({"mean": 3.5}, {"mean": 4.0}, []),
    # concepts/thresholds.md: "only checked for metrics present in both runs"
    "absent in the baseline": ({"mean": 1.0}, {"pass_rate": 0.5}, []),
    # concepts/thresholds.md: the current mean and pass_rate are compared
    "a boolean judge": (
        {"mean": 0.2, "pass_rate": 0.2},
        {"mean": 0.9, "pass_rate": 0.9},
        [("mean_vs_baseline", "0.9", 0.2), ("pass_rate_vs_baseline", "0.9", 0.2)],
    ),
}


@pytest.mark.parametrize(("now", "then", "expected"), BASELINE.values(), ids=BASELINE)
def test_the_baseline_check(
    now: dict[str, Any], then: dict[str, Any], expected: list[tuple[str, str, float]]
) -> None:
    found = regressions({}, {"q": now}, {"q": then, "other": {"mean": 5.0}})
    assert [(r.metric, r.expected, r.actual) for r in found] == expected


def test_the_report_lines() -> None:
    # concepts/thresholds.md: "REGRESSIONS: 0", else a count and one indented line each
    assert report([]) == ["REGRESSIONS: 0"]
    found = [Regression("has_content", "pass_rate", ">= 1.0", 0.8)]
    assert report(found) == ["REGRESSIONS: 1 detected", "  [has_content] pass_rate: >= 1.0 -> 0.8"]


AGGREGATES = {
    # concepts/thresholds.md: booleans get pass_rate, and mean is the same value
    "boolean": ([True, True, False, True], {"mean": 0.75, "pass_rate": 0.75}),
    # concepts/thresholds.md: numeric judges get a mean; their pass_rate is None
    "numeric": ([4, 3, 5], {"mean": 4.0, "pass_rate": None}),
    # reference/runs-directory.md (score.py): a mix of kinds has neither
    "mixed": ([True, 3], {"mean": None, "pass_rate": None}),
    # concepts/thresholds.md: "computed over the cases that produced a value"
    "errors left out": ([True, "error", False], {"mean": 0.5, "pass_rate": 0.5}),
}


@pytest.mark.parametrize(("raws", "expected"), AGGREGATES.values(), ids=AGGREGATES)
def test_judge_aggregates(raws: list[Any], expected: dict[str, Any]) -> None:
    tally = JudgeTally()
    for raw in raws:
        status = "error" if raw == "error" else "scored"
        tally.add({"value": raw if status == "scored" else None, "status": status})
    stats = tally.result()
    assert {k: stats[k] for k in ("mean", "pass_rate")} == expected


def test_run_metrics() -> None:
    # reference/runs-directory.md: summary.yaml's run_metrics from run_result.json
    # (the harness's compute_run_metrics), kept at full precision
    run = {"cost_usd": 1.0, "num_turns": 3, "token_usage": {"input": 10, "output": 30}}
    assert run_metrics(run) == {
        "cost_per_turn_usd": 1 / 3,
        "output_tokens_per_turn": 10.0,
        "cache_hit_rate": 0.0,
        "cost_per_mtok_usd": 1 / 40 * 1_000_000,
    }
    assert run_metrics({"num_turns": True}) == {}


VERDICTS = {
    # concepts/pairwise-and-sampling.md, the verdict rule table
    "run wins both orders": (Verdict("c", "A", "B"), "A"),
    "baseline wins both orders": (Verdict("c", "B", "A"), "B"),
    "position bias is a tie": (Verdict("c", "A", "A"), "tie"),
    "first slot both times": (Verdict("c", "B", "B"), "tie"),
    "a tie": (Verdict("c", "tie", "B"), "tie"),
    "a missing preference": (Verdict("c", "A", None), "error"),
    "a failed call": (Verdict("c", "A", "B", error="BA failed: timeout"), "error"),
}


@pytest.mark.parametrize(("verdict", "winner"), VERDICTS.values(), ids=VERDICTS)
def test_pairwise_verdicts(verdict: Verdict, winner: str) -> None:
    assert verdict.winner == winner


def test_the_pairwise_block() -> None:
    # concepts/pairwise-and-sampling.md: run_a, run_b, cases_compared, wins_a, wins_b, ties,
    # errors, per_case; reference/config/thresholds.md: the win rate is over the cases that
    # produced a value
    verdicts = [Verdict("c1", "A", "B", reasoning="r"), Verdict("c2", "B", "A"), Verdict("c3")]
    block = tally(verdicts, "run-a", "run-b")
    assert {k: v for k, v in block.items() if k != "per_case"} == {
        "run_a": "run-a",
        "run_b": "run-b",
        "cases_compared": 3,
        "wins_a": 1,
        "wins_b": 1,
        "ties": 0,
        "errors": 1,
        "win_rate": 0.5,
    }
    assert block["per_case"][0] == {"case_id": "c1", "winner": "A", "error": None, "reasoning": "r"}
    assert tally([Verdict("c")], "a", "b")["win_rate"] is None


def test_repeated_comparisons_record_their_agreement() -> None:
    # concepts/pairwise-and-sampling.md: the first run is primary; a stability block records
    # which cases gave the same verdict every run, the flipped ones with their majority, and
    # the agreement rate
    first = tally([Verdict("c1", "A", "B"), Verdict("c2", "A", "B")], "a", "b")
    second = tally([Verdict("c1", "A", "B"), Verdict("c2", "B", "A")], "a", "b")
    third = tally([Verdict("c1", "A", "B"), Verdict("c2", "B", "A")], "a", "b")
    assert stability([first, second, third]) == {
        "runs": 3,
        "wins_a_counts": [2, 1, 1],
        "wins_b_counts": [0, 1, 1],
        "tie_counts": [0, 0, 0],
        "total_cases": 2,
        "stable_cases": 1,
        "agreement_rate": 0.5,
        "flipped_cases": [{"case_id": "c2", "verdicts": ["A", "B", "B"], "majority": "B"}],
    }
