"""Render a `Run` as one self-contained HTML file (inline CSS, SVG and a small filter script).

The template (`report.html.j2`) is rendered by Jinja2 with autoescaping on: judge names,
reasons, errors and case ids are the agent's words and are always escaped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rewardkit.report._charts import Bar, histogram, interval_chart, status_chart
from rewardkit.report._compare import Comparison
from rewardkit.report._diagnose import Diagnostics
from rewardkit.report._run import Case, JudgeResult, Run
from rewardkit.report._stats import RESAMPLES, Estimate
from rewardkit.report._summary import JudgeStats, RunStats

__all__ = ["MAX_CASES", "render_html"]

MAX_CASES = 5000
"""The most cases listed one by one; the statistics always cover all of them."""
KIND_LABELS = {
    "eval": "eval run (summary.json)",
    "harbor": "Harbor job directory",
    "results": "rewardkit score results",
}


def render_html(
    run: Run,
    stats: RunStats,
    *,
    title: str | None = None,
    comparison: Comparison | None = None,
    diagnostics: Diagnostics | None = None,
) -> str:
    """The report's HTML text."""
    from jinja2 import Environment, StrictUndefined

    env = Environment(autoescape=True, undefined=StrictUndefined)
    template = env.from_string(Path(__file__).with_name("report.html.j2").read_text("utf-8"))
    return template.render(
        title=title or f"rewardkit report: {Path(run.source).name}",
        kind_label=KIND_LABELS[run.kind],
        source=run.source,
        stats=stats,
        formula=run.formula,
        problems=run.problems,
        charts=_charts(stats),
        cases=[_case(c, stats.pass_threshold) for c in run.cases[:MAX_CASES]],
        cases_total=stats.cases,
        failed_outcomes=stats.failed,
        comparison=comparison,
        diagnostics=diagnostics,
        resamples=RESAMPLES,
        fmt=fmt,
        pct=pct,
        signed=signed,
        interval=interval,
    )


def fmt(value: float | bool | None) -> str:
    """A value for people: `pass`/`fail`, up to 4 significant digits, or a dash."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "pass" if value else "fail"
    return f"{value:.4g}"


def pct(value: float | None) -> str:
    """A share as a percentage, or a dash."""
    return "–" if value is None else f"{value:.1%}"


def signed(value: float | None) -> str:
    """A difference or a correlation, with its sign."""
    return "–" if value is None else f"{value:+.3f}"


def interval(e: Estimate, percent: bool = False) -> str:
    """`[low, high]`, or a dash when there is none."""
    if e.low is None or e.high is None:
        return "–"
    show = pct if percent else fmt
    return f"[{show(e.low)}, {show(e.high)}]"


def _charts(stats: RunStats) -> dict[str, Any]:
    bars = [_bar(j) for j in stats.judges if j.estimate.mean is not None]
    statuses = [(j.name, j.statuses) for j in stats.judges]
    return {
        "histogram": histogram(stats.reward_bins),
        "judges": interval_chart(bars, title="per judge") if bars else None,
        "status": status_chart(statuses or [("(no judges)", {})], title="errors by criterion"),
    }


def _bar(j: JudgeStats) -> Bar:
    e = j.estimate
    assert e.mean is not None
    text = pct(e.mean) if j.metric == "pass_rate" else fmt(e.mean)
    lows = [v for v in (0.0, e.low, e.mean) if v is not None]
    highs = [v for v in (1.0, e.high, e.mean) if v is not None]
    return Bar(
        label=j.name,
        value=e.mean,
        low=e.low,
        high=e.high,
        scale=(min(lows), max(highs)),
        text=f"{text} {interval(e, j.metric == 'pass_rate')}",
    )


def _case(case: Case, threshold: float) -> dict[str, Any]:
    errored = bool(case.error) or any(j.failed for j in case.judges)
    passed = case.reward is not None and case.reward >= threshold
    state = ["error"] if errored else []
    state += ["invalid"] if case.reward is None else [] if passed else ["fail"]
    words = [case.id, case.group or "", case.error or ""]
    words += [f"{j.name} {j.reasoning or ''} {j.error or ''}" for j in case.judges]
    return {
        "id": case.id,
        "group": case.group,
        "reward": case.reward,
        "passed": passed,
        "error": case.error,
        "state": " ".join(state),
        "search": " ".join(words).lower()[:4000],
        "composition": case.composition,
        "judges": [_judge(j) for j in case.judges],
    }


def _judge(j: JudgeResult) -> dict[str, Any]:
    css = j.status if j.status != "scored" else "pass" if j.value not in (False, 0.0) else "fail"
    return {
        "name": j.name,
        "status": j.status,
        "css": css,
        "shown": fmt(j.value) if j.status == "scored" else j.status,
        "reasoning": j.reasoning,
        "error": j.error,
    }
