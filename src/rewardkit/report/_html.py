"""Render a `Run` as one self-contained HTML file (inline CSS, SVG and a small script that
sorts and filters the cases, opens a case's view and shows a chart's values on hover).

The template (`report.html.j2`) is rendered by Jinja2 with autoescaping on: judge names,
reasons, errors, case ids, inputs and outputs are the agent's words and are always escaped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rewardkit.core._stats import RESAMPLES, Estimate
from rewardkit.report._charts import Bar, histogram, interval_chart, score_color, status_chart
from rewardkit.report._compare import Comparison
from rewardkit.report._diagnose import Diagnostics
from rewardkit.report._keys import MAX_NAME, KeyStats, short
from rewardkit.report._run import Case, JudgeResult, Run
from rewardkit.report._summary import JudgeStats, RunStats

__all__ = ["MAX_CASES", "page_name", "render_html"]

MAX_CASES = 5000
"""The most cases listed one by one; the statistics always cover all of them."""
MAX_TITLE = 1000
"""Characters of a reward key's name in its cell's tooltip (the cell shows `MAX_NAME`)."""
MAX_JUDGE_COLUMNS = 12
"""The most judges with a column of their own in the cases table (a case's view shows all)."""
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
    calibration: Mapping[str, Any] | None = None,
) -> Iterator[str]:
    """The report's HTML text, in pieces (the cases rendered one at a time); with
    `calibration` (a checked calibration.json), its "Calibration" section too."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined

    from rewardkit.report._calibration import calibration_view

    here = Path(__file__).parent
    env = Environment(loader=FileSystemLoader(here), autoescape=True, undefined=StrictUndefined)
    template = env.get_template("report.html.j2")
    listed = run.cases[:MAX_CASES]
    columns = _columns(listed, stats)
    return template.generate(
        title=title or page_name(run),
        kind_label=KIND_LABELS[run.kind],
        source=run.source,
        stats=stats,
        formula=run.formula,
        problems=run.problems,
        charts=_charts(stats),
        columns=columns,
        grouped=any(c.group is not None for c in listed),
        cases=(_case(c, stats.pass_threshold, columns) for c in listed),
        listed=len(listed),
        missing=run.missing,
        cases_total=stats.cases,
        keys=[_key(k) for k in stats.key_rows],
        failed_outcomes=stats.failed,
        comparison=comparison,
        diagnostics=diagnostics,
        calibration=None if calibration is None else calibration_view(calibration),
        resamples=RESAMPLES,
        fmt=fmt,
        pct=pct,
        signed=signed,
        interval=interval,
    )


def page_name(run: Run) -> str:
    """The suite's name, else the run's directory (an eval run, a Harbor job) or file name."""
    if run.name:
        return run.name
    source = Path(run.source)
    return source.parent.name if run.kind == "eval" else source.name


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


def _key(k: KeyStats) -> dict[str, Any]:
    """A reward key's row: its name cut to `MAX_NAME` (the tooltip longer), and its figures."""
    return {
        "name": short(k.name),
        "title": short(k.name, MAX_TITLE) if len(k.name) > MAX_NAME else None,
        "mean": fmt(k.estimate.mean),
        "interval": interval(k.estimate),
        "std_error": fmt(k.estimate.std_error),
        "pass_rate": pct(k.pass_rate),
        "n": k.estimate.n,
        "missing": k.missing,
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


def _columns(cases: list[Case], stats: RunStats) -> dict[str, tuple[float, float]]:
    """The judges with a column, each with its colour scale: [0, 1], else the listed range."""
    found: dict[str, tuple[float, float] | None]
    found = dict.fromkeys(j.name for j in stats.judges[:MAX_JUDGE_COLUMNS])
    for case in cases:
        for j in case.judges:
            if j.name in found and j.status == "scored" and j.value is not None:
                v, seen = float(j.value), found[j.name]
                found[j.name] = (v, v) if seen is None else (min(seen[0], v), max(seen[1], v))
    return {name: _scale(seen) for name, seen in found.items()}


def _scale(seen: tuple[float, float] | None) -> tuple[float, float]:
    return seen if seen is not None and (seen[0] < 0.0 or seen[1] > 1.0) else (0.0, 1.0)


def _number(value: float | bool | None) -> float | None:
    return None if value is None else float(value)


def _case(case: Case, threshold: float, columns: dict[str, tuple[float, float]]) -> dict[str, Any]:
    errored = bool(case.error) or any(j.failed for j in case.judges)
    passed = case.reward is not None and case.reward >= threshold
    state = ["error"] if errored else []
    state += ["invalid"] if case.reward is None else [] if passed else ["fail"]
    by_name = {j.name: j for j in case.judges}
    return {
        "id": case.id,
        "group": case.group,
        "reward": case.reward,
        "color": None if case.reward is None else score_color(case.reward),
        "passed": passed,
        "error": case.error,
        "state": " ".join(state),
        "cells": [_cell(by_name.get(name), scale) for name, scale in columns.items()],
        "composition": case.composition,
        "judges": [_judge(j) for j in case.judges],
        "input": case.input,
        "output": case.output,
    }


def _cell(j: JudgeResult | None, scale: tuple[float, float]) -> dict[str, Any]:
    """A judge's cell in a case's row: what it shows, how it sorts, its colour."""
    if j is None:
        return {"shown": "", "sort": "", "color": None, "status": "absent"}
    value = _number(j.value) if j.status == "scored" else None
    return {
        "shown": fmt(j.value) if j.status == "scored" else j.status,
        "sort": "" if value is None else repr(value),
        "color": None if value is None else score_color(value, *scale),
        "status": j.status,
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
