"""A report: one input read, its statistics, a baseline comparison and the RL diagnostics."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rewardkit.outputs._files import atomic_write
from rewardkit.report._compare import Comparison, compare
from rewardkit.report._diagnose import Diagnostics, diagnose
from rewardkit.report._load import load_run
from rewardkit.report._run import Run
from rewardkit.report._summary import RunStats, run_stats

__all__ = ["Report", "build_report"]


@dataclass(frozen=True, kw_only=True)
class Report:
    """Everything `rewardkit report` shows."""

    run: Run
    stats: RunStats
    comparison: Comparison | None = None
    diagnostics: Diagnostics | None = None
    """Present when some group (a prompt, a task) has more than one sample."""

    def html(self, title: str | None = None) -> str:
        """The self-contained HTML page."""
        from rewardkit.report._html import render_html

        return render_html(
            self.run,
            self.stats,
            title=title,
            comparison=self.comparison,
            diagnostics=self.diagnostics,
        )

    def write_html(self, path: Path, title: str | None = None) -> None:
        """Write the page to `path` atomically."""
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, self.html(title))


def build_report(
    path: Path,
    *,
    baseline: Path | None = None,
    rollouts: Path | None = None,
    pass_threshold: float = 1.0,
) -> Report:
    """Read `path` (and `baseline`) and compute what the report shows.

    Args:
        path: an eval run's `summary.json` (or its directory), a Harbor job directory, or a
            `rewardkit score` results `.jsonl`.
        baseline: another such input to compare with, case by case.
        rollouts: the rollouts `.jsonl` the results were scored from, for completion lengths.
        pass_threshold: the reward at which a sample passes, for pass@k.

    Raises:
        ConfigError: an input is missing or holds no result at all.
    """
    run = load_run(path)
    if rollouts is not None:
        from rewardkit.report._rollouts import with_lengths

        run = with_lengths(run, rollouts)
    groups: dict[str, int] = {}
    for case in run.cases:
        if case.group is not None:
            groups[case.group] = groups.get(case.group, 0) + 1
    repeated = any(n > 1 for n in groups.values())
    return Report(
        run=run,
        stats=run_stats(run, pass_threshold=pass_threshold),
        comparison=compare(run, load_run(baseline)) if baseline is not None else None,
        diagnostics=diagnose(run) if repeated else None,
    )
