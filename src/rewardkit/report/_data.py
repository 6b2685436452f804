"""`rewardkit report --json`: the report's numbers as one JSON document.

The same figures as the terminal table and the lines after it, unrounded: the reward and each
judge with its standard error and 95% interval, the outcome counts, each reward key of a
Harbor job (every key, even a lone one, which the table leaves out), pass@k, the baseline
comparison, the RL-signal diagnostics, and the input problems.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from rewardkit.core._stats import Estimate
from rewardkit.report._compare import Comparison
from rewardkit.report._diagnose import Diagnostics
from rewardkit.report._keys import KeyStats
from rewardkit.report._summary import JudgeStats

if TYPE_CHECKING:
    from rewardkit.report._report import Report

__all__ = ["report_data"]


def report_data(report: Report) -> dict[str, Any]:
    """The report as JSON-ready data (see the module docstring)."""
    run, stats = report.run, report.stats
    return {
        "source": run.source,
        "kind": run.kind,
        "formula": run.formula,
        "cases": stats.cases,
        "pass_threshold": stats.pass_threshold,
        "reward": _estimate(stats.reward)
        | {"invalid": stats.invalid, "histogram": list(stats.reward_bins)},
        "judges": {j.name: _judge(j) for j in stats.judges},
        "reward_keys": {k.name: _key(k) for k in stats.keys},
        "pass_k": [asdict(row) for row in stats.pass_k],
        "comparison": _comparison(report.comparison),
        "diagnostics": _diagnostics(report.diagnostics),
        "problems": [{"file": p.file, "message": p.message} for p in run.problems],
    }


def _estimate(e: Estimate) -> dict[str, Any]:
    return {"mean": e.mean, "n": e.n, **e.as_dict()}


def _judge(j: JudgeStats) -> dict[str, Any]:
    """As the table's row: the metric and its value, the interval, and each status's count."""
    count = j.statuses.get
    return {
        "metric": j.metric,
        **_estimate(j.estimate),
        "scored": count("scored", 0),
        "errors": count("error", 0),
        "timeouts": count("timeout", 0),
        "skipped": count("skipped", 0) + count("missing", 0),
    }


def _key(k: KeyStats) -> dict[str, Any]:
    """As the table's row: the mean and its interval over the trials with the key (`n`), the
    pass rate at the threshold, and the trials with reward keys that lack it."""
    pass_rate = {"pass_rate": k.pass_rate, "passes": k.passes}
    return {**_estimate(k.estimate), **pass_rate, "missing": k.missing}


def _comparison(c: Comparison | None) -> dict[str, Any] | None:
    if c is None:
        return None
    d = c.diff
    return {
        "baseline": c.source,
        "difference": _estimate(d.diff),
        "improved": len(d.improved),
        "regressed": len(d.regressed),
        "only_current": len(d.only_current),
        "only_baseline": len(d.only_baseline),
        "changed": [{"id": m.id, "before": m.before, "after": m.after} for m in c.changed],
    }


def _diagnostics(d: Diagnostics | None) -> dict[str, Any] | None:
    if d is None:
        return None
    return {
        "samples": d.samples,
        "groups": d.groups,
        "criteria": [asdict(c) for c in d.criteria],
        "length_correlation": d.length_correlation,
        "length_correlation_within": d.length_correlation_within,
        "correlations": [{"a": a, "b": b, "r": r} for (a, b), r in d.correlations.items()],
        "disagreements": [
            {"judge": j, "check": c, "share": share} for (j, c), share in d.disagreements.items()
        ],
        "warnings": list(d.warnings),
    }
