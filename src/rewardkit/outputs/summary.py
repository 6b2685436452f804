"""`rewardkit eval` reports: `summary.json` / `summary.yaml`, and threshold checks.

Each judge is aggregated on its own across cases: a judge whose scored values are all
booleans gets `pass_rate`, one whose values are all numbers gets `mean` (raw, on its own
scale); a judge that mixes both gets neither. Skipped and errored cases are counted apart and
left out of the metric.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardkit._evaluate import CaseResult
from rewardkit._outcome import Outcome
from rewardkit.outputs._files import atomic_write
from rewardkit.sources.eval_yaml import EvalSuite

__all__ = ["breaches", "summarize", "write_summary"]


def summarize(suite: EvalSuite, results: Sequence[CaseResult]) -> dict[str, Any]:
    """The report: per-judge aggregates and every case's reward and judge outcomes."""
    judges: dict[str, Any] = {}
    for index, judge in enumerate(suite.judges):
        outcomes = [r.outcomes[index] for r in results]
        scored = [o for o in outcomes if o.status == "scored"]
        entry: dict[str, Any] = {}
        if scored:
            mean = round(sum(o.value or 0.0 for o in scored) / len(scored), 4)
            kinds = {isinstance(o.raw, bool) for o in scored}
            if kinds == {True}:
                entry["pass_rate"] = mean
            elif kinds == {False}:
                entry["mean"] = mean
        entry["scored_cases"] = len(scored)
        entry["errored_cases"] = sum(o.failed for o in outcomes)
        entry["skipped_cases"] = sum(o.status == "skipped" for o in outcomes)
        judges[judge.name] = entry
    per_case = {
        r.case_id: {
            "reward": round(r.reward, 4),
            "judges": {o.name: _case_judge(o) for o in r.outcomes},
        }
        for r in results
    }
    return {"judges": judges, "per_case": per_case}


def _case_judge(outcome: Outcome) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "value": outcome.raw if outcome.status == "scored" else None,
        "status": outcome.status,
        "rationale": outcome.reasoning or "",
    }
    if outcome.error:
        entry["error"] = outcome.error
    if "metrics" in outcome.extra:
        entry["metrics"] = outcome.extra["metrics"]
    return entry


def breaches(suite: EvalSuite, summary: Mapping[str, Any]) -> list[str]:
    """One line per threshold the run breaks (`thresholds:` in eval.yaml)."""
    lines = []
    for name, limits in suite.thresholds.items():
        stats = summary["judges"][name]
        cases = stats["scored_cases"] + stats["errored_cases"] + stats["skipped_cases"]
        for limit, bound in limits.items():
            if limit == "max_error_rate":
                rate = stats["errored_cases"] / cases if cases else 0.0
                if rate > bound:
                    lines.append(f"{name}: error rate {rate:.4f} > max_error_rate {bound:g}")
                continue
            metric = "mean" if limit == "min_mean" else "pass_rate"
            value = stats.get(metric)
            if value is None:
                lines.append(
                    f"{name}: no {metric} to compare with {limit} {bound:g} "
                    f"(no scored {metric} values)"
                )
            elif value < bound:
                lines.append(f"{name}: {metric} {value:.4f} < {limit} {bound:g}")
    return lines


def write_summary(out_dir: Path, summary: Mapping[str, Any]) -> None:
    """Write `summary.json` and `summary.yaml` (same content) into `out_dir`, atomically."""
    import yaml

    out_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(out_dir / "summary.json", json.dumps(summary, indent=2))
    atomic_write(out_dir / "summary.yaml", yaml.safe_dump(dict(summary), sort_keys=False))
