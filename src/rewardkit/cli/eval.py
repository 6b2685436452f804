"""`rewardkit eval EVAL_YAML --out DIR`: score every case of an eval.yaml suite."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from rewardkit._errors import ConfigError
from rewardkit.cli._workers import add_worker_arguments

__all__ = ["main"]

EXIT_OK, EXIT_BREACH, EXIT_CONFIG, EXIT_JUDGE_ERRORS = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit eval",
        description="Score every case of an eval.yaml suite; write summary.json and summary.yaml.",
        epilog=f"exit codes: {EXIT_OK} ok; {EXIT_BREACH} a threshold was breached; "
        f"{EXIT_JUDGE_ERRORS} some judge errored; {EXIT_CONFIG} bad arguments or configuration.",
    )
    parser.add_argument("eval_yaml", type=Path, help="the eval.yaml (or its directory)")
    parser.add_argument(
        "--cases", type=Path, help="directory of case directories (default: dataset.path)"
    )
    parser.add_argument("--out", type=Path, required=True, help="where summary.json/.yaml go")
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
    from rewardkit._evaluate import score_cases
    from rewardkit.engine._workers import WorkerLimits
    from rewardkit.outputs.summary import breaches, summarize, write_summary
    from rewardkit.sources._cases import case_dirs
    from rewardkit.sources.eval_yaml import load_suite

    args = build_parser().parse_args(argv)
    try:
        suite = load_suite(args.eval_yaml)
        root = args.cases or suite.dataset
        if root is None:
            raise ConfigError(
                "no cases: set dataset.path in eval.yaml or pass --cases DIR", path=suite.path
            )
        dirs = case_dirs(root)
    except ConfigError as exc:
        print(f"rewardkit eval: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    total = len(dirs) * len(suite.judges)
    with _progress(total, enabled=not args.no_progress and sys.stderr.isatty()) as advance:
        results = score_cases(
            suite,
            dirs,
            max_concurrent=args.max_concurrent,
            progress=advance,
            worker=WorkerLimits(timeout=args.timeout, memory_mb=args.memory_mb),
        )
    summary = summarize(suite, results)
    write_summary(args.out, summary)
    for name, stats in summary["judges"].items():
        metric = next((f"{k} {stats[k]:.4f}" for k in ("mean", "pass_rate") if k in stats), "-")
        print(
            f"{name}: {metric} ({stats['scored_cases']} scored, {stats['errored_cases']} errored, "
            f"{stats['skipped_cases']} skipped)"
        )
    if results:
        print(
            f"reward: mean {sum(r.reward for r in results) / len(results):.4f} "
            f"over {len(results)} cases"
        )
    for line in breaches(suite, summary):
        print(f"threshold breached: {line}", file=sys.stderr)
    if breaches(suite, summary):
        return EXIT_BREACH
    return EXIT_JUDGE_ERRORS if any(r.failures for r in results) else EXIT_OK


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
