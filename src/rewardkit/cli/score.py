"""`rewardkit score ROLLOUTS.jsonl --config PATH --out RESULTS.jsonl`: batch-score rollouts."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from rewardkit._errors import ConfigError

if TYPE_CHECKING:
    from rewardkit.batch._runner import RunCounts

__all__ = ["main"]

EXIT_OK, EXIT_MALFORMED, EXIT_CONFIG = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    env = os.environ.get
    parser = argparse.ArgumentParser(
        prog="rewardkit score",
        description="Score each rollout of a JSONL file; append one result line per rollout. "
        "Rollouts whose id is already in the results file are skipped (resume).",
        epilog=f"exit codes: {EXIT_OK} ok (invalid samples included); {EXIT_MALFORMED} some "
        f"rollout lines were malformed (the rest were scored); {EXIT_CONFIG} bad arguments or "
        "configuration.",
    )
    parser.add_argument("rollouts", type=Path, help="JSONL: one sample object per line")
    parser.add_argument(
        "--config", type=Path, required=True, help="a tests directory or an eval.yaml"
    )
    parser.add_argument("--out", type=Path, required=True, help="the results JSONL (appended)")
    parser.add_argument(
        "--workers",
        type=int,
        default=int(env("REWARDKIT_WORKERS", "8")),
        help="samples scored at once (env REWARDKIT_WORKERS; default 8)",
    )
    parser.add_argument(
        "--deadline",
        type=float,
        default=float(env("REWARDKIT_DEADLINE") or 0) or None,
        help="seconds per sample before it is invalid (env REWARDKIT_DEADLINE)",
    )
    parser.add_argument(
        "--backend",
        choices=("local", "process", "ray"),
        default=env("REWARDKIT_BACKEND", "local"),
        help="local: threads in this process; process: --workers processes on this machine "
        "(for CPU-bound rewards); ray: --workers actors on a Ray cluster (RAY_ADDRESS, else a "
        "local instance; the config path must exist on every node) "
        "(env REWARDKIT_BACKEND; default local)",
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    return parser


def main(argv: list[str]) -> int:
    from rewardkit.batch import load
    from rewardkit.batch._runner import score_jsonl

    args = build_parser().parse_args(argv)
    try:
        if not args.rollouts.is_file():
            raise ConfigError("rollouts file not found", path=args.rollouts)
        if not args.config.exists():
            raise ConfigError(
                "config not found. Pass a tests directory or an eval.yaml.", path=args.config
            )
        if args.backend == "ray":
            from rewardkit.batch._ray import require_ray

            require_ray()
        # Also with processes or Ray: config errors show here, once, before any worker starts.
        scorer = load(args.config, deadline=args.deadline, max_concurrent=args.workers)
    except ConfigError as exc:
        print(f"rewardkit score: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG

    def bad_line(number: int, problem: str) -> None:
        print(f"{args.rollouts}:{number}: {problem}; skipped", file=sys.stderr)

    show = not args.no_progress and sys.stderr.isatty()
    with _progress(args.rollouts, args.out, enabled=show) as advance:
        if args.backend != "local":
            try:
                counts = _score_elsewhere(args, bad_line, advance)
            except ConfigError as exc:
                print(f"rewardkit score: error: {exc}", file=sys.stderr)
                return EXIT_CONFIG
        else:
            counts = score_jsonl(
                scorer, args.rollouts, args.out, on_bad_line=bad_line, on_result=advance
            )
    print(
        f"{counts.scored} scored, {counts.invalid} invalid, {counts.skipped} already done, "
        f"{counts.malformed} malformed → {args.out}"
    )
    return EXIT_MALFORMED if counts.malformed else EXIT_OK


def _score_elsewhere(
    args: argparse.Namespace,
    bad_line: Callable[[int, str], None],
    advance: Callable[[object], None] | None,
) -> RunCounts:
    """Score on worker processes or Ray actors; the driver still reads and writes the files."""
    if args.backend == "process":
        from rewardkit.batch._processes import score_jsonl_processes as run
    else:
        from rewardkit.batch._ray import score_jsonl_ray as run

    return run(
        args.config,
        args.rollouts,
        args.out,
        workers=args.workers,
        deadline=args.deadline,
        on_bad_line=bad_line,
        on_result=advance,
    )


@contextmanager
def _progress(
    rollouts: Path, out: Path, *, enabled: bool
) -> Iterator[Callable[[object], None] | None]:
    """A rich progress bar with rate and ETA on a terminal; nothing otherwise."""
    if not enabled:
        yield None
        return
    from rich.progress import (  # rich is slow to import: only on a terminal
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskProgressColumn,
        TextColumn,
        TimeRemainingColumn,
    )

    from rewardkit.batch._runner import done_ids

    with rollouts.open(encoding="utf-8") as lines:
        total = sum(1 for line in lines if line.strip())
    total = max(total - len(done_ids(out)), 0)  # resumed samples are not scored again
    columns = (
        TextColumn("scoring"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("[progress.data.speed]{task.fields[rate]}"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, transient=True) as bar:
        task = bar.add_task("scoring", total=total, rate="")
        yield lambda _: bar.update(task, advance=1, rate=f"{bar.tasks[task].speed or 0:.1f}/s")
