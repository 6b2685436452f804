"""`rewardkit eval EVAL_YAML --out DIR`: score every case of an eval.yaml suite, check its
thresholds, and compare it with a baseline run."""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit.cli._strict import add_strict_argument, warning
from rewardkit.cli._syspath import keep_off_sys_path
from rewardkit.cli._workers import (
    add_batch_arguments,
    add_budget_argument,
    add_worker_arguments,
    batched,
    run_budget,
    say_models,
)
from rewardkit.core._errors import ConfigError, for_terminal

if TYPE_CHECKING:
    from rewardkit.compose._traps import ScaleWatch
    from rewardkit.evalyaml._case_log import CaseLog
    from rewardkit.evalyaml._case_names import CaseNames
    from rewardkit.evalyaml._cases import Layout
    from rewardkit.evalyaml._chunk import CaseResult
    from rewardkit.evalyaml._judge import EvalJudge
    from rewardkit.evalyaml._suite import EvalSuite

__all__ = ["main"]

EXIT_OK, EXIT_BREACH, EXIT_CONFIG, EXIT_JUDGE_ERRORS = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit eval",
        description="Score every case of an eval.yaml suite; write summary.json and summary.yaml.",
        epilog=f"exit codes: {EXIT_OK} ok; {EXIT_BREACH} a regression (a threshold missed, or a "
        f"drop against --baseline); "
        f"{EXIT_JUDGE_ERRORS} some judge errored, or some case's reward could not be composed; "
        f"{EXIT_CONFIG} bad arguments or configuration.",
    )
    parser.add_argument("eval_yaml", type=Path, help="the eval.yaml (or its directory)")
    parser.add_argument(
        "--cases",
        type=Path,
        help="a harness run's cases directory (runs/<eval>/<run>/cases) or a directory of "
        "case directories (default: dataset.path)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        required=True,
        help="where cases.jsonl (each case's results, appended as cases finish) and "
        "summary.json/.yaml go; cases already in its cases.jsonl are not scored again (resume)",
    )
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
        help="chunks of cases scored at once (each in its own worker process), calls per judge "
        "model, agent CLIs (0 = unlimited; env REWARDKIT_MAX_CONCURRENT)",
    )
    parser.add_argument(
        "--retry-invalid",
        action="store_true",
        default=os.environ.get("REWARDKIT_RETRY_INVALID", "") not in ("", "0"),
        help="score again the cases of cases.jsonl where a judge errored or timed out "
        "(env REWARDKIT_RETRY_INVALID)",
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the summary (summary.json without per_case) as one JSON document instead "
        "of the lines per judge",
    )
    add_worker_arguments(parser, "judge")
    add_budget_argument(parser)
    add_batch_arguments(parser)
    add_strict_argument(parser)
    return parser


def main(argv: list[str]) -> int:
    from rewardkit.evalyaml._summary import summarize, terminal_lines, write_summary

    args = build_parser().parse_args(argv)
    if args.cases is not None:
        keep_off_sys_path(args.cases)
    try:
        setup = _setup(args)
        budget = run_budget(args.max_cost_usd) if setup.calls_models(args) else nullcontext()
    except ConfigError as exc:
        print(f"rewardkit eval: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    suite, layout = setup.suite, setup.layout

    def run(args: argparse.Namespace) -> tuple[CaseLog, _Seen, dict[str, Any] | None]:
        log, seen = _score(args, setup)
        pairwise = None
        if setup.comparison is not None and setup.baseline_dir is not None:
            from rewardkit.evalyaml._pairwise import compare_runs

            judge, model, prompt = setup.comparison
            cases = ([setup.root / name for name in setup.names], layout)
            pairwise = compare_runs(
                judge, model, prompt, cases, setup.baseline_dir, args.max_concurrent
            )
        return log, seen, pairwise

    try:
        with budget as ledger:  # one budget for the cases and the comparison
            log, seen, pairwise = batched(args, run)
            models = ledger.models() if ledger else {}
    except ConfigError as exc:
        print(f"rewardkit eval: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    summary = summarize(
        suite,
        log.entries,
        run_id=layout.run.name if layout.run is not None else None,
        run_result=_run_result(layout.run),
        pairwise=pairwise,
        baseline=setup.baseline,
    )
    if models:
        summary["models"] = models
    say_models(models, args.max_concurrent)
    write_summary(args.out, summary, log.entries)
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print("\n".join(terminal_lines(summary)))
    if summary.get("regressions"):
        return EXIT_BREACH
    errored = seen.uncomposed or any(j["errored_cases"] for j in summary["judges"].values())
    return EXIT_JUDGE_ERRORS if errored or bool(pairwise and pairwise["errors"]) else EXIT_OK


def _score(args: argparse.Namespace, setup: _Setup) -> tuple[CaseLog, _Seen]:
    """Score the cases not yet in `--out`'s cases.jsonl, appending each chunk as it ends."""
    from rewardkit.compose import CompositionWarning
    from rewardkit.engine._workers import WorkerLimits
    from rewardkit.evalyaml._case_log import CASES_FILE, CaseLog
    from rewardkit.evalyaml._score import score_stream

    judges = [judge.name for judge in setup.suite.judges]
    path = args.out / CASES_FILE
    with CaseLog(path, setup.names, judges, retry_invalid=args.retry_invalid) as log:
        left = len(setup.names) - log.resumed
        if log.resumed:
            print(
                f"rewardkit eval: {log.resumed} of {len(setup.names)} cases already in {path}, "
                f"not scored again (delete it to score every case)",
                file=sys.stderr,
            )
        dirs = (setup.root / setup.names[i] for i in log.missing())
        show = not args.no_progress and sys.stderr.isatty()
        with _progress(left * len(judges), enabled=show) as (advance, say):
            for trap in setup.suite.traps():
                warning(trap, say)
            seen = _Seen(setup.suite.scale_watch(), say)
            with warnings.catch_warnings():  # shown as each case's note
                warnings.simplefilter("ignore", CompositionWarning)
                score_stream(
                    setup.suite,
                    dirs,
                    left,
                    lambda _, results: log.append(seen(results)),
                    layout=setup.layout,
                    max_concurrent=args.max_concurrent,
                    progress=advance,
                    worker=WorkerLimits(timeout=args.timeout, memory_mb=args.memory_mb),
                )
            seen.finish(path)
        log.finish()
    return log, seen


class _Seen:
    """Each scored case as it arrives: its entry for cases.jsonl, a line per judge error (the
    first `ERROR_LINES`), a warning per judge read on the wrong scale, the silent-zero count,
    the cases whose reward could not be composed."""

    ERROR_LINES = 20
    LINE_CHARS = 400
    """An error line is cut there (a judge's error may quote pages of what the agent wrote)."""

    def __init__(self, watch: ScaleWatch, say: Callable[[str], None]) -> None:
        self.watch, self.say = watch, say
        self.errors = self.scored = self.zeros = self.uncomposed = 0

    def __call__(self, results: list[CaseResult]) -> Iterator[tuple[str, dict[str, Any]]]:
        from rewardkit.evalyaml._summary import case_entry

        for result in results:
            for message in self.watch.see(result.outcomes):
                warning(message, self.say)
            problems = [
                f"judge {o.name!r} {'timed out' if o.status == 'timeout' else 'errored'}: {o.error}"
                for o in result.failures
            ]
            if result.note is not None:
                self.uncomposed += 1
                problems.append(result.note)
            for problem in problems:
                self.errors += 1
                if self.errors <= self.ERROR_LINES:
                    line = f"rewardkit eval: case {result.case_id}: {problem}"
                    self.say(for_terminal(line, self.LINE_CHARS))
            self.scored += 1
            scored_above = any((o.value or 0) > 0 for o in result.outcomes)
            if result.note is None and result.reward == 0 and scored_above:
                self.zeros += 1
            yield result.case_id, case_entry(result)

    def finish(self, cases: Path) -> None:
        """The lines after the last case: errors not shown, a silent zero."""
        from rewardkit.compose._traps import silent_zero_flag

        if self.errors > self.ERROR_LINES:
            more = self.errors - self.ERROR_LINES
            self.say(f"rewardkit eval: {more} more errors; each case's are in {cases}")
        if flag := silent_zero_flag(self.zeros, self.scored, "cases"):
            warning(flag, self.say)


@dataclass(frozen=True)
class _Setup:
    suite: EvalSuite
    root: Path
    """The directory holding the case directories."""
    names: CaseNames
    layout: Layout
    baseline_dir: Path | None = None
    baseline: dict[str, Any] | None = None
    comparison: tuple[EvalJudge, str, str] | None = None
    """The pairwise judge, its model and prompt, when a baseline is compared with."""

    def calls_models(self, args: argparse.Namespace) -> bool:
        """Whether the run needs its ledger: a judge or the comparison calls models, or a
        budget or the batch APIs were asked for (else it starts without one)."""
        return (
            args.max_cost_usd is not None
            or args.batch_api is not None
            or self.comparison is not None
            or any(judge.kind in ("llm", "agent") for judge in self.suite.judges)
        )


def _setup(args: argparse.Namespace) -> _Setup:
    """Everything checked before anything runs.

    Raises:
        ConfigError: the eval.yaml, the cases, the baseline or the pairwise model.
    """
    from rewardkit.evalyaml._runs import baseline_run, baseline_summary, find_cases
    from rewardkit.evalyaml._suite import load_suite

    suite = load_suite(args.eval_yaml, untrusted=[args.cases] if args.cases else [])
    if not suite.judges and suite.pairwise is None:  # else every case would score 1.0
        raise ConfigError(
            "nothing to score: the file declares no judges. Add a `judges:` list.",
            path=suite.path,
        )
    root, names, layout = find_cases(suite, args.cases)
    if args.baseline is None:
        return _Setup(suite, root, names, layout)
    from rewardkit.evalyaml._pairwise import comparison_model, comparison_prompt  # model clients

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
    return _Setup(suite, root, names, layout, baseline_dir, baseline, comparison)


def _run_result(run: Path | None) -> dict[str, Any] | None:
    """The run's `run_result.json`, or None (absent, unreadable: a warning, not a failure)."""
    from rewardkit.core._errors import UntrustedInputError
    from rewardkit.evalyaml._cases import run_result

    if run is None:
        return None
    try:
        return run_result(run)
    except UntrustedInputError as exc:
        print(f"rewardkit: warning: {exc}; run_metrics left out", file=sys.stderr)
        return None


@contextmanager
def _progress(
    total: int, *, enabled: bool
) -> Iterator[tuple[Callable[[int], None] | None, Callable[[str], None]]]:
    """`(advance, say)`: a rich progress bar on a terminal (with lines printed above it);
    no bar otherwise, and lines go to stderr."""
    if not enabled or total == 0:
        yield None, lambda line: print(line, file=sys.stderr, flush=True)
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("scoring", total=total)
        yield (
            lambda n: bar.advance(task, n),
            lambda line: bar.console.print(line, markup=False, highlight=False),
        )
