"""`calibration.json` as a short table for the terminal, and its headline agreement."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SCHEMA", "headline", "table_lines"]

SCHEMA = "rewardkit.calibration/1"
"""The schema of `calibration.json` (what `rewardkit report` reads)."""

_ROWS = {
    "pass_fail": ("accuracy", "precision", "recall", "specificity", "kappa"),
    "score": ("spearman", "kendall_tau_b", "alpha_interval"),
    "preference": ("accuracy", "kappa"),
}
HEADLINE = {"pass_fail": "kappa", "preference": "kappa", "score": "alpha_interval"}
"""The statistic `--min-agreement` is compared with, by the labels' kind."""


def headline(data: Mapping[str, Any]) -> tuple[str, float | None]:
    """The agreement statistic `--min-agreement` checks, and its value (`None`: undefined)."""
    name = HEADLINE[data["labels"]["kind"]]
    figure = data["agreement"].get(name) or {}
    return name, figure.get("value")


def _row(name: str, figure: Mapping[str, Any] | None) -> str:
    figure = figure or {}
    value, ci = figure.get("value"), figure.get("ci95")
    shown = "n/a" if value is None else f"{value:.3f}"
    interval = "" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"
    return f"  {name:<22} {shown:>8}  {interval}"


def table_lines(data: Mapping[str, Any]) -> list[str]:
    """The figures of `calibration.json`, one per line, with their 95% intervals."""
    labels, judge = data["labels"], data["judge"]
    lines = [
        f"judge {judge['name']!r} ({judge['where']}) on {labels['judged']}/{labels['items']} "
        f"{labels['kind'].replace('_', '/')} labels, {data['samples']} sample(s)",
        f"  {'statistic':<22} {'value':>8}  95% CI",
    ]
    agreement = data["agreement"]
    lines += [_row(name, agreement.get(name)) for name in _ROWS[labels["kind"]]]
    if "confusion" in agreement:
        c = agreement["confusion"]
        lines.append(
            f"  confusion (judge x people): pass/pass {c['tp']}, pass/fail {c['fp']}, "
            f"fail/pass {c['fn']}, fail/fail {c['tn']}"
        )
    if data["samples_agreement"] is not None:
        lines.append(_row("alpha across samples", data["samples_agreement"]["alpha"]))
    thresholds = data["thresholds"] or {}
    if thresholds.get("best") is not None:
        lines.append(_row("best threshold", thresholds["best"]))
    if thresholds.get("fail_share") is not None:
        share = thresholds["fail_share"]
        lines.append(_row(f"threshold {share['share']:.0%} fail", share))
    for name, probe in (data["probes"] or {}).items():
        lines.append(_row(f"probe {name}", probe["shift"]))
    errors = data["judge_errors"]
    if errors["count"]:
        first = errors["first"][0]
        lines.append(
            f"  {errors['count']} item(s) not judged, e.g. {first['id']}: {first['error']}"
        )
    return lines
