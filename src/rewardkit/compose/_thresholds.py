"""Thresholds and regressions: eval.yaml's `thresholds:` and the baseline drift check.

Each judge's aggregate (`summary.json` → `judges`) is compared with its limits:
`min_mean` with `mean` (a boolean judge's `mean` is its pass rate), `min_pass_rate` with
`pass_rate`, `min_win_rate` with the pairwise comparison's `win_rate`, and `max_error_rate`
with the errored share of the cases the judge ran on. A metric equal to its limit passes. A
limit whose metric is unavailable — the judge was skipped or errored on every case, the key
does not fit the judge's values, or no pairwise comparison ran — is a regression, never a
silent pass. Against a baseline run, a `mean` or `pass_rate` more than `BASELINE_DROP` below
the baseline's is a regression too. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["BASELINE_DROP", "Regression", "regressions", "report"]

BASELINE_DROP = 0.5
"""How far (absolute) a metric may fall below the baseline run's; fixed, as in the harness."""

_LIMITS = (
    ("min_pass_rate", "pass_rate", "a boolean judge"),
    ("min_mean", "mean", "a numeric or boolean judge"),
    ("min_win_rate", "win_rate", "the pairwise judge"),
)

Aggregates = Mapping[str, Mapping[str, Any]]
"""Judge name → its aggregate: `mean`, `pass_rate`, `win_rate`, `scored_cases`,
`errored_cases` (each may be missing or None)."""


@dataclass(frozen=True)
class Regression:
    """One limit the run missed."""

    judge: str
    metric: str
    """`mean`, `pass_rate`, `win_rate`, `error_rate`, or `<metric>_vs_baseline`."""
    expected: str
    """The limit (`>= 0.8`), or the baseline's value."""
    actual: float | None
    """The run's value; None when it is unavailable."""
    detail: str = ""

    def line(self) -> str:
        """`[judge] metric: expected -> actual`, then the detail (the harness's report line)."""
        actual = "n/a" if self.actual is None else _show(self.actual)
        text = f"[{self.judge}] {self.metric}: {self.expected} -> {actual}"
        return f"{text}   {self.detail}" if self.detail else text

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def regressions(
    thresholds: Mapping[str, Mapping[str, float]],
    judges: Aggregates,
    baseline: Aggregates | None = None,
) -> list[Regression]:
    """Every limit of `thresholds` the aggregates miss, then every drop against `baseline`."""
    found: list[Regression] = []
    for name, limits in thresholds.items():
        current = judges.get(name)
        if current is None:
            for limit, bound in limits.items():
                found.append(
                    Regression(name, limit, _bound(limit, bound), None, f"no judge named {name!r}")
                )
            continue
        found += _limits(name, limits, current)
    if baseline is not None:
        for name, current in judges.items():
            before = baseline.get(name)
            if isinstance(before, Mapping):
                found += _drops(name, current, before)
    return found


def report(found: list[Regression]) -> list[str]:
    """The report lines: `REGRESSIONS: N detected` and one indented line per regression."""
    if not found:
        return ["REGRESSIONS: 0"]
    return [f"REGRESSIONS: {len(found)} detected", *(f"  {r.line()}" for r in found)]


def _limits(name: str, limits: Mapping[str, float], current: Mapping[str, Any]) -> list[Regression]:
    found = []
    for limit, metric, kind in _LIMITS:
        if limit not in limits:
            continue
        value = _number(current.get(metric))
        if value is None:
            detail = _unavailable(current, metric, kind)
            found.append(Regression(name, metric, _bound(limit, limits[limit]), None, detail))
        elif value < limits[limit]:
            found.append(Regression(name, metric, _bound(limit, limits[limit]), value))
    if "max_error_rate" in limits:
        errored = int(current.get("errored_cases") or 0)
        ran = errored + int(current.get("scored_cases") or 0)
        rate = errored / ran if ran else 0.0
        if rate > limits["max_error_rate"]:
            bound = _bound("max_error_rate", limits["max_error_rate"])
            detail = f"{errored} of {ran} cases errored"
            found.append(Regression(name, "error_rate", bound, rate, detail))
    return found


def _drops(name: str, current: Mapping[str, Any], before: Mapping[str, Any]) -> list[Regression]:
    found = []
    for metric in ("mean", "pass_rate"):
        now, then = _number(current.get(metric)), _number(before.get(metric))
        if now is not None and then is not None and now < then - BASELINE_DROP:
            found.append(
                Regression(name, f"{metric}_vs_baseline", _show(then), now, "Degraded vs baseline")
            )
    return found


def _unavailable(current: Mapping[str, Any], metric: str, kind: str) -> str:
    """Why a metric is missing; an errored judge says so before the other causes."""
    errored = int(current.get("errored_cases") or 0)
    if metric == "win_rate" and not errored:
        return (
            "win_rate unavailable — no pairwise comparison ran; pass --baseline RUN with a "
            "judge named pairwise in eval.yaml"
        )
    if errored:
        cases = "case" if errored == 1 else "cases"
        why = f"judge errored on {errored} {cases}; see the per-case rationales"
        return f"{metric} unavailable — {why}"
    return f"{metric} unavailable — judge skipped for all cases or not {kind}"


def _bound(limit: str, value: float) -> str:
    return f"{'<=' if limit == 'max_error_rate' else '>='} {_show(value)}"


def _show(value: float) -> str:
    """A number for people: at most four decimals (summary files keep full precision)."""
    return str(round(value, 4))


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None
