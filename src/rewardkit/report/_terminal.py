"""The report in a terminal: the per-criterion table (rich when installed, else plain text),
a Harbor job's per-key table, pass@k, the comparison and the RL-signal diagnostics."""

from __future__ import annotations

from typing import TextIO

from rewardkit.report._compare import Comparison
from rewardkit.report._diagnose import Diagnostics
from rewardkit.report._html import fmt, interval, pct, signed
from rewardkit.report._keys import short
from rewardkit.report._run import Run
from rewardkit.report._summary import RunStats

__all__ = [
    "HEADER",
    "KEY_HEADER",
    "criteria_rows",
    "diagnostic_lines",
    "key_rows",
    "missing_line",
    "print_report",
    "text_lines",
]

HEADER = ("criterion", "metric", "value", "95% CI", "scored", "errors", "timeouts", "skipped")
KEY_HEADER = ("reward key", "mean", "95% CI", "pass rate", "n", "missing")
MAX_MISSING_LISTED = 10
"""Keys named in the line that says which keys some trials lack."""


def criteria_rows(stats: RunStats) -> list[tuple[str, ...]]:
    """One row per judge, then the reward."""
    rows = []
    for j in stats.judges:
        rate = j.metric == "pass_rate"
        value = pct(j.estimate.mean) if rate else fmt(j.estimate.mean)
        counts = [j.statuses.get(s, 0) for s in ("scored", "error", "timeout")]
        skipped = j.statuses.get("skipped", 0) + j.statuses.get("missing", 0)
        metric = j.metric.replace("_", " ")
        rows.append(
            (j.name, metric, value, interval(j.estimate, rate), *map(str, counts), str(skipped))
        )
    r = stats.reward
    rows.append(("reward", "mean", fmt(r.mean), interval(r), str(r.n), "", "", str(stats.invalid)))
    return rows


def key_rows(stats: RunStats) -> list[tuple[str, ...]]:
    """One row per reward key of a Harbor job (none unless its trials have several keys)."""
    return [
        (
            short(k.name),
            fmt(k.estimate.mean),
            interval(k.estimate),
            pct(k.pass_rate),
            str(k.estimate.n),
            str(k.missing),
        )
        for k in stats.key_rows
    ]


def missing_line(stats: RunStats) -> str | None:
    """Which reward keys some trials lack, and what that does to their rows."""
    partial = [k for k in stats.key_rows if k.missing]
    if not partial:
        return None
    named = [f"{short(k.name)} ({k.missing} of {k.estimate.n + k.missing})" for k in partial]
    if len(named) > MAX_MISSING_LISTED:
        named[MAX_MISSING_LISTED:] = [f"{len(named) - MAX_MISSING_LISTED} more"]
    return (
        f"reward keys missing from some trials: {', '.join(named)}; each key's row is over "
        "the trials that have it (Harbor's mean counts a missing key as 0)"
    )


def text_lines(
    run: Run,
    stats: RunStats,
    comparison: Comparison | None = None,
    diagnostics: Diagnostics | None = None,
) -> list[str]:
    """Everything printed after the table, one line each."""
    lines = [f"{stats.cases} cases from {run.source}"]
    if run.formula:
        lines.append(run.formula)
    missing = missing_line(stats)
    if missing:
        lines.append(missing)
    for row in stats.pass_k:
        lines.append(
            f"pass@{row.k} {pct(row.pass_at_k)}  pass^{row.k} {pct(row.pass_hat_k)}  "
            f"({row.groups} groups, pass = reward >= {fmt(stats.pass_threshold)})"
        )
    if comparison is not None:
        d = comparison.diff
        lines.append(
            f"vs baseline {comparison.source}: {signed(d.diff.mean)} {interval(d.diff)} over "
            f"{d.diff.n} shared cases; {len(d.improved)} improved, {len(d.regressed)} regressed"
        )
        lines += [f"  {c.id}: {fmt(c.before)} -> {fmt(c.after)}" for c in comparison.changed[:20]]
    if diagnostics is not None:
        lines += diagnostic_lines(diagnostics)
    return lines


def diagnostic_lines(d: Diagnostics) -> list[str]:
    lines = [f"RL signal: {d.samples} samples in {d.groups} groups"]
    for c in d.criteria:
        zero = "-" if c.zero_variance is None else f"{c.zero_variance:.0%}"
        lines.append(
            f"  {c.name}: zero-variance groups {zero}, at min {c.at_min:.0%}, at max {c.at_max:.0%}"
        )
    if d.length_correlation is not None:
        within = d.length_correlation_within
        extra = "" if within is None else f", within groups {signed(within)}"
        lines.append(f"  reward ~ completion length: r = {signed(d.length_correlation)}{extra}")
    lines += [f"  warning: {w}" for w in d.warnings]
    return lines


def print_report(
    run: Run,
    stats: RunStats,
    out: TextIO,
    *,
    comparison: Comparison | None = None,
    diagnostics: Diagnostics | None = None,
    use_rich: bool = True,
) -> None:
    """Print the tables (with rich when it is installed and `use_rich`) and the lines after."""
    _table(HEADER, criteria_rows(stats), out, use_rich)
    keys = key_rows(stats)
    if keys:
        out.write("\n")
        _table(KEY_HEADER, keys, out, use_rich)
    out.write("\n".join(text_lines(run, stats, comparison, diagnostics)) + "\n")


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]], out: TextIO, rich: bool) -> None:
    try:
        if not rich:
            raise ImportError
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text
    except ImportError:
        out.write("\n".join(_plain([header, *rows])) + "\n")
    else:
        table = Table(*header)
        for column in table.columns:
            column.no_wrap = True
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))  # Text: names are never markup
        Console(file=out, width=None if out.isatty() else 200).print(table)


def _plain(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    ]
