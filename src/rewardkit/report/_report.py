"""A report: one input read once, as it streams, into its statistics, a baseline comparison
and the RL diagnostics.

Memory stays flat in the number of cases: each case is counted as it is read and dropped, but
for the first `MAX_CASES`, which the page lists. A comparison with `--baseline` and the
lengths of `--rollouts` are joined by case id, so those two keep one id and one number per
case (of both runs, or per rollout). The listed cases' inputs and outputs are read after the
statistics, capped (`_texts.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.core._files import atomic_writer
from rewardkit.report._compare import Comparison, compare
from rewardkit.report._diagnose import Diagnostics, diagnostics, row
from rewardkit.report._groups import Groups
from rewardkit.report._html import MAX_CASES
from rewardkit.report._load import no_results, open_run
from rewardkit.report._run import Case, Run
from rewardkit.report._signals import Signals
from rewardkit.report._summary import RunStats, Summary
from rewardkit.report._texts import attach_texts

__all__ = ["Report", "Scan", "build_report"]


@dataclass(frozen=True, kw_only=True)
class Report:
    """Everything `rewardkit report` shows."""

    run: Run
    """The input's kind, source, formula and problems, and its first `MAX_CASES` cases (the
    page lists them; `stats` covers every case)."""
    stats: RunStats
    comparison: Comparison | None = None
    diagnostics: Diagnostics | None = None
    """Present when some group (a prompt, a task) has more than one sample."""
    calibration: Mapping[str, Any] | None = None
    """A judge's checked calibration.json (`--calibration`): a section of the page, and the
    `calibration` key of `data()`."""

    def data(self) -> dict[str, Any]:
        """What the terminal table and the lines after it show, as one JSON-ready mapping."""
        from rewardkit.report._data import report_data

        found = report_data(self)
        return found if self.calibration is None else {**found, "calibration": self.calibration}

    def html(self, title: str | None = None) -> str:
        """The self-contained HTML page."""
        return "".join(self._html(title))

    def write_html(self, path: Path, title: str | None = None) -> None:
        """Write the page to `path` atomically, as it is rendered."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_writer(path) as handle:
            handle.writelines(self._html(title))

    def _html(self, title: str | None) -> Iterator[str]:
        from rewardkit.report._html import render_html

        return render_html(
            self.run,
            self.stats,
            title=title,
            comparison=self.comparison,
            diagnostics=self.diagnostics,
            calibration=self.calibration,
        )


def build_report(
    path: Path,
    *,
    baseline: Path | None = None,
    rollouts: Path | None = None,
    pass_threshold: float = 1.0,
    suite: Path | None = None,
    cases: Path | None = None,
    texts: bool = True,
) -> Report:
    """Read `path` (and `baseline`) and compute what the report shows.

    Args:
        path: an eval run's `summary.json` (or its directory), a Harbor job directory, or a
            `rewardkit score` results `.jsonl`.
        baseline: another such input to compare with, case by case.
        rollouts: the rollouts `.jsonl` the results were scored from, for completion lengths.
        pass_threshold: the reward at which a sample passes, for pass@k.
        suite: the eval.yaml an eval run was scored from: its name, and each case's input
            and output from its case directories.
        cases: the case directories (`rewardkit eval --cases`), else `suite`'s dataset.
        texts: read the listed cases' inputs and outputs (only the page shows them).

    Raises:
        ConfigError: an input is missing or holds no result at all, or `suite` is not a
            valid eval.yaml.
    """
    scan = _read(path, pass_threshold, rollouts, baseline is not None)
    if scan.groups.reopened and not scan.groups.overflow:
        # some group came back after it closed: read again, holding those groups open
        scan = _read(path, pass_threshold, rollouts, baseline is not None, scan.groups.reopened)
    for warning in (scan.groups.warning, scan.summary.keys.warning):
        if warning:
            scan.run.problem(scan.run.source, warning)
    if texts:
        attach_texts(scan.run, rollouts=rollouts, suite=suite, cases=cases)
    comparison = None
    if baseline is not None:
        before, source = _rewards(baseline)
        comparison = compare(scan.rewards, before, source=source)
    return Report(
        run=scan.run,
        stats=scan.summary.stats(scan.groups),
        comparison=comparison,
        diagnostics=diagnostics(scan.signals, scan.groups) if scan.groups.repeated else None,
    )


def _read(
    path: Path,
    pass_threshold: float,
    rollouts: Path | None,
    paired: bool,
    held: set[str] | frozenset[str] = frozenset(),
) -> Scan:
    run, cases = open_run(path)
    lengths: dict[str, int] = {}
    if rollouts is not None:
        from rewardkit.report._rollouts import rollout_lengths

        lengths = rollout_lengths(rollouts, run)
    return Scan(
        run, cases, pass_threshold=pass_threshold, lengths=lengths, paired=paired, held=held
    )


class Scan:
    """One read of a run's cases: each counted as it comes, the first `MAX_CASES` kept in `run`.

    Raises:
        ConfigError: there is not one case.
    """

    def __init__(
        self,
        run: Run,
        cases: Iterable[Case],
        *,
        pass_threshold: float = 1.0,
        lengths: Mapping[str, int] | None = None,
        paired: bool = False,
        held: set[str] | frozenset[str] = frozenset(),
    ) -> None:
        self.run = run
        self.summary = Summary(pass_threshold)
        self.signals = Signals()
        self.groups = Groups(held=frozenset(held))
        self.rewards: dict[str, float] = {}
        """Case id → reward, for a comparison (when `paired`)."""
        lengths = lengths or {}
        for case in cases:
            if len(run.cases) < MAX_CASES:
                run.cases.append(case)
            passed = self.summary.add(case)
            group, length, values = row(case)
            length = lengths.get(case.id, length)
            self.signals.add(values, length)
            if group is not None:
                self.groups.add(group, values, length, passed)
            if paired and case.reward is not None:
                self.rewards[case.id] = case.reward
        if not run.cases:
            raise no_results(run)
        self.groups.close()


def _rewards(path: Path) -> tuple[dict[str, float], str]:
    """Case id → reward of the cases of `path` that have one, and where they were read."""
    run, cases = open_run(path)
    found, seen = {}, False
    for case in cases:
        seen = True
        if case.reward is not None:
            found[case.id] = case.reward
    if not seen:
        raise no_results(run)
    return found, run.source
