"""`rewardkit eval` reports: `summary.json` / `summary.yaml`, as the harness's summary.yaml.

Keys: `run_id` (the harness run's directory name, else null); `judges` (each judge on its own
across cases: `mean` and `pass_rate`, `scored_cases`, `errored_cases`, `skipped_cases`);
`per_case` (each case's reward and judge outcomes, with a sampled judge's `stability` as
the judge records it); `run_metrics` (from the run's
`run_result.json`, when it gives any); `pairwise` (when a baseline comparison ran); and
`regressions` (when eval.yaml has `thresholds:` or a baseline was given). A judge whose
scored values are all booleans has `pass_rate` = the share of passes and `mean` = the same; all
numbers, `mean` (raw, on its own scale) and `pass_rate` null; a mix, both null. Skipped and
errored cases are counted apart and left out of the metrics. Each judge also has `std_error`,
`ci95` ([low, high], the Wilson interval of a pass rate or a bootstrap one of a mean, fixed
seed) and `ci_method`; `reward` holds the same for the case rewards, and `composition` says
how a case's reward is made from its judges (`mode`, `formula`, `weights`, `gate`,
`score_ranges`). Numbers are kept at full precision; only the terminal report rounds them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardkit._evaluate import CaseResult
from rewardkit._outcome import Outcome
from rewardkit.compose._thresholds import Regression, regressions, report
from rewardkit.outputs._files import atomic_write
from rewardkit.report._stats import estimate
from rewardkit.sources.eval_yaml import PAIRWISE, EvalSuite

__all__ = ["run_metrics", "summarize", "terminal_lines", "write_summary"]


def summarize(
    suite: EvalSuite,
    results: Sequence[CaseResult],
    *,
    run_id: str | None = None,
    run_result: Mapping[str, Any] | None = None,
    pairwise: Mapping[str, Any] | None = None,
    baseline: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report of a run; `baseline` is the baseline run's summary, for the drift check."""
    judges = {
        judge.name: _aggregate([r.outcomes[index] for r in results])
        for index, judge in enumerate(suite.judges)
    }
    summary: dict[str, Any] = {
        "run_id": run_id,
        "judges": judges,
        "per_case": {
            r.case_id: {"reward": r.reward, "judges": {o.name: _case_judge(o) for o in r.outcomes}}
            for r in results
        },
        "reward": {"cases": len(results), **_reward_stats([r.reward for r in results])},
        "composition": _composition(suite),
    }
    metrics = run_metrics(run_result) if run_result is not None else None
    if metrics:
        summary["run_metrics"] = metrics
    if pairwise is not None:
        summary["pairwise"] = dict(pairwise)
    if suite.thresholds or baseline is not None:
        gated = {**judges, PAIRWISE: _pairwise_aggregate(pairwise)}
        before = baseline.get("judges") if baseline is not None else None
        found = regressions(suite.thresholds, gated, before if isinstance(before, dict) else None)
        summary["regressions"] = [r.as_dict() for r in found]
    return summary


def _aggregate(outcomes: list[Outcome]) -> dict[str, Any]:
    """One judge across cases (see the module docstring)."""
    scored = [o for o in outcomes if o.status == "scored"]
    mean = pass_rate = None
    kinds = {isinstance(o.raw, bool) for o in scored}
    values: list[bool | float] = []
    if scored and kinds == {True}:
        values = [o.raw is True for o in scored]
        mean = pass_rate = sum(values) / len(scored)
    elif scored and kinds == {False}:
        values = [o.value or 0.0 for o in scored]
        mean = sum(values) / len(scored)
    entry: dict[str, Any] = {
        "mean": mean,
        "pass_rate": pass_rate,
        "scored_cases": len(scored),
        "errored_cases": sum(o.failed for o in outcomes),
        "skipped_cases": sum(o.status == "skipped" for o in outcomes),
        **estimate(values).as_dict(),
    }
    sampled = [o.extra["stability"] for o in scored if "stability" in o.extra]
    if sampled and sampled[0].get("samples", 1) > 1:
        entry["stability"] = {
            "samples": sampled[0]["samples"],
            "stable_cases": sum(bool(s.get("stable")) for s in sampled),
            "total_cases": len(sampled),
        }
    return entry


def _reward_stats(rewards: list[float]) -> dict[str, Any]:
    stats = estimate(rewards)
    return {"mean": stats.mean, **stats.as_dict()}


def _composition(suite: EvalSuite) -> dict[str, Any]:
    """How each case's reward is made (`mode` `default`: the mean of the normalized judges)."""
    ranges = {j.name: list(j.scale) for j in suite.judges if j.scale is not None}
    block = suite.reward
    if block is None:
        return {"mode": "default", "score_ranges": ranges}
    entry: dict[str, Any] = {"mode": block.mode, "formula": block.formula.strip()}
    entry |= {"judge": block.judge, "weights": dict(block.weights), "gate": block.gate}
    entry |= {"normalize": block.normalize, "raw": sorted(block.raw)}
    fallback = list(block.score_range) if block.score_range is not None else None
    return entry | {"score_range": fallback, "score_ranges": ranges}


def _pairwise_aggregate(pairwise: Mapping[str, Any] | None) -> dict[str, Any]:
    """The comparison as thresholds see it: `win_rate` over the cases without an error."""
    if pairwise is None:
        return {}
    errors = int(pairwise["errors"])
    return {
        "win_rate": pairwise["win_rate"],
        "scored_cases": int(pairwise["cases_compared"]) - errors,
        "errored_cases": errors,
    }


def _case_judge(outcome: Outcome) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "value": outcome.raw if outcome.status == "scored" else None,
        "status": outcome.status,
        "rationale": outcome.reasoning or "",
    }
    if outcome.error:
        entry["error"] = outcome.error
    for key in ("metrics", "stability", "sample_rationales"):
        if key in outcome.extra:
            entry[key] = outcome.extra[key]
    return entry


def run_metrics(run_result: Mapping[str, Any]) -> dict[str, float]:
    """The harness's model-level efficiency metrics of a run (`run_result.json`): cost per
    turn, output tokens per turn, cache hit rate, cost per million tokens; each only when
    its inputs are there."""
    cost, turns = _number(run_result.get("cost_usd")), run_result.get("num_turns")
    tokens = run_result.get("token_usage")
    tokens = tokens if isinstance(tokens, Mapping) else {}
    inp, out, read, made = (
        _number(tokens.get(k)) or 0.0 for k in ("input", "output", "cache_read", "cache_create")
    )
    turns = turns if isinstance(turns, int) and not isinstance(turns, bool) and turns > 0 else None
    total_in = inp + read + made
    metrics: dict[str, float] = {}
    if cost is not None and turns:
        metrics["cost_per_turn_usd"] = cost / turns
    if turns and out:
        metrics["output_tokens_per_turn"] = out / turns
    if total_in > 0:
        metrics["cache_hit_rate"] = read / total_in
    if cost is not None and total_in + out > 0:
        metrics["cost_per_mtok_usd"] = cost / (total_in + out) * 1_000_000
    return metrics


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None


def terminal_lines(summary: Mapping[str, Any]) -> list[str]:
    """The human report: one line per judge, the mean reward, the comparison, regressions."""
    lines = []
    for name, stats in summary["judges"].items():
        if stats["pass_rate"] is not None:
            metric = f"pass_rate {stats['pass_rate']:.1%}"
        elif stats["mean"] is not None:
            metric = f"mean {stats['mean']:.2f}"
        else:
            metric = "-"
        lines.append(
            f"{name}: {metric}{_interval(stats, percent=stats['pass_rate'] is not None)} "
            f"({stats['scored_cases']} scored, {stats['errored_cases']} "
            f"errored, {stats['skipped_cases']} skipped)"
        )
    rewards = [case["reward"] for case in summary["per_case"].values()]
    if rewards:
        interval = _interval(summary.get("reward", {}), percent=False, digits=4)
        lines.append(
            f"reward: mean {sum(rewards) / len(rewards):.4f}{interval} over {len(rewards)} cases"
        )
    pairwise = summary.get("pairwise")
    if pairwise is not None:
        lines.append(
            f"pairwise {pairwise['run_a']} vs {pairwise['run_b']}: A wins {pairwise['wins_a']} | "
            f"B wins {pairwise['wins_b']} | ties {pairwise['ties']} | errors {pairwise['errors']}"
        )
    if "regressions" in summary:
        lines += ["", *report([Regression(**entry) for entry in summary["regressions"]])]
    return lines


def _interval(stats: Mapping[str, Any], *, percent: bool, digits: int = 2) -> str:
    """` [low, high]` (the 95% interval), or nothing when there is none."""
    ci = stats.get("ci95")
    if not ci:
        return ""
    shown = "{:.1%}" if percent else f"{{:.{digits}f}}"
    return f" 95% CI [{shown.format(ci[0])}, {shown.format(ci[1])}]"


def write_summary(out_dir: Path, summary: Mapping[str, Any]) -> None:
    """Write `summary.json` and `summary.yaml` (same content) into `out_dir`, atomically."""
    import yaml

    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(out_dir / "summary.json", json.dumps(summary, indent=2))
    atomic_write(out_dir / "summary.yaml", yaml.safe_dump(dict(summary), sort_keys=False))
