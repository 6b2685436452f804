"""`rewardkit eval EVAL_YAML --out DIR`: score every case of an eval.yaml suite, check its
thresholds, and compare it with a baseline run."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit._errors import ConfigError
from rewardkit.cli._syspath import keep_off_sys_path
from rewardkit.cli._workers import add_worker_arguments

if TYPE_CHECKING:
    from rewardkit.judges import EvalJudge
    from rewardkit.sources._cases import Layout
    from rewardkit.sources.eval_yaml import EvalSuite

__all__ = ["main"]

EXIT_OK, EXIT_BREACH, EXIT_CONFIG, EXIT_JUDGE_ERRORS = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit eval",
        description="Score every case of an eval.yaml suite; write summary.json and summary.yaml.",
        epilog=f"exit codes: {EXIT_OK} ok; {EXIT_BREACH} a regression (a threshold missed, or a "
        f"drop against --baseline); "
        f"{EXIT_JUDGE_ERRORS} some judge errored; {EXIT_CONFIG} bad arguments or configuration.",
    )
    parser.add_argument("eval_yaml", type=Path, help="the eval.yaml (or its directory)")
    parser.add_argument(
        "--cases",
        type=Path,
        help="a harness run's cases directory (runs/<eval>/<run>/cases) or a directory of "
        "case directories (default: dataset.path)",
    )
    parser.add_argument("--out", type=Path, required=True, help="where summary.json/.yaml go")
    parser.add_argument(
        "--baseline",
        metavar="RUN",
        help="a scored run (its directory, or the id of a run beside --cases' run): flag "
        "judges whose mean dropped by more than 0.5, and compare case by case with the "
        "judge named pairwise",
    )
    parser.add_argument(
        "--max-concurrent",
        type=int,
        default=int(os.environ.get("REWARDKIT_MAX_CONCURRENT", "8")),
        help="judge calls at once across all cases (0 = unlimited; env REWARDKIT_MAX_CONCURRENT)",
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    add_worker_arguments(parser, "judge")
    return parser


def main(argv: list[str]) -> int:
    from rewardkit._evaluate import compare_runs, score_cases
    from rewardkit.engine._workers import WorkerLimits
    from rewardkit.outputs.summary import summarize, terminal_lines, write_summary

    args = build_parser().parse_args(argv)
    if args.cases is not None:
        keep_off_sys_path(args.cases)
    try:
        setup = _setup(args)
    except ConfigError as exc:
        print(f"rewardkit eval: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    suite, dirs, layout = setup.suite, setup.dirs, setup.layout
    total = len(dirs) * len(suite.judges)
    with _progress(total, enabled=not args.no_progress and sys.stderr.isatty()) as advance:
        results = score_cases(
            suite,
            dirs,
            layout=layout,
            max_concurrent=args.max_concurrent,
            progress=advance,
            worker=WorkerLimits(timeout=args.timeout, memory_mb=args.memory_mb),
        )
    pairwise = None
    if setup.comparison is not None and setup.baseline_dir is not None:
        judge, model, prompt = setup.comparison
        run = (dirs, layout)
        pairwise = compare_runs(judge, model, prompt, run, setup.baseline_dir, args.max_concurrent)
    summary = summarize(
        suite,
        results,
        run_id=layout.run.name if layout.run is not None else None,
        run_result=_run_result(layout.run),
        pairwise=pairwise,
        baseline=setup.baseline,
    )
    write_summary(args.out, summary)
    print("\n".join(terminal_lines(summary)))
    if summary.get("regressions"):
        return EXIT_BREACH
    errored = any(r.failures for r in results) or bool(pairwise and pairwise["errors"])
    return EXIT_JUDGE_ERRORS if errored else EXIT_OK


@dataclass(frozen=True)
class _Setup:
    suite: EvalSuite
    dirs: list[Path]
    layout: Layout
    baseline_dir: Path | None = None
    baseline: dict[str, Any] | None = None
    comparison: tuple[EvalJudge, str, str] | None = None
    """The pairwise judge, its model and prompt, when a baseline is compared with."""


def _setup(args: argparse.Namespace) -> _Setup:
    """Everything checked before anything runs.

    Raises:
        ConfigError: the eval.yaml, the cases, the baseline or the pairwise model.
    """
    from rewardkit.sources._runs import baseline_run, baseline_summary, find_cases
    from rewardkit.sources.eval_yaml import load_suite

    suite = load_suite(args.eval_yaml, untrusted=[args.cases] if args.cases else [])
    dirs, layout = find_cases(suite, args.cases)
    if args.baseline is None:
        return _Setup(suite, dirs, layout)
    from rewardkit.judges._pairwise import comparison_model, comparison_prompt  # model clients

    baseline_dir = baseline_run(args.baseline, layout.run)
    baseline = baseline_summary(baseline_dir)
    comparison = None
    if suite.pairwise is not None:
        model = comparison_model(suite.pairwise, suite.judge_model)
        if model is None:
            raise ConfigError(
                "the pairwise judge has no model. Set its model:, models.judge, or "
                "EVAL_JUDGE_MODEL",
                path=suite.path,
                key="judges 'pairwise'",
            )
        prompt = comparison_prompt(suite.pairwise, suite.path.parent)
        comparison = (suite.pairwise, model, prompt)
    return _Setup(suite, dirs, layout, baseline_dir, baseline, comparison)


def _run_result(run: Path | None) -> dict[str, Any] | None:
    """The run's `run_result.json`, or None (absent, unreadable: a warning, not a failure)."""
    from rewardkit._errors import UntrustedInputError
    from rewardkit.sources._cases import run_result

    if run is None:
        return None
    try:
        return run_result(run)
    except UntrustedInputError as exc:
        print(f"rewardkit: warning: {exc}; run_metrics left out", file=sys.stderr)
        return None


@contextmanager
def _progress(total: int, *, enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """A rich progress bar on a terminal; nothing otherwise."""
    if not enabled or total == 0:
        yield None
        return
    from rich.progress import Progress

    with Progress(transient=True) as bar:
        task = bar.add_task("scoring", total=total)
        yield lambda n: bar.advance(task, n)
