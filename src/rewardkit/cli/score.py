"""`rewardkit score ROLLOUTS.jsonl --config PATH --out RESULTS.jsonl`: batch-score rollouts."""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit.batch._lines import MAX_LINE_MIB
from rewardkit.batch._scorer import MEMORY_MIB
from rewardkit.cli._strict import add_strict_argument, warning
from rewardkit.cli._workers import (
    add_batch_arguments,
    add_budget_argument,
    batched,
    run_budget,
    say_models,
)
from rewardkit.core._errors import ConfigError
from rewardkit.engine import DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from rewardkit.batch._runner import RunCounts

__all__ = ["main"]

EXIT_OK, EXIT_INVALID, EXIT_CONFIG, EXIT_NONE_VALID = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    env = os.environ.get
    parser = argparse.ArgumentParser(
        prog="rewardkit score",
        description="Score each rollout of a JSONL file; append one result line per rollout. "
        "Rollouts whose id is already in the results file are skipped (resume). A line's "
        "'group' (e.g. the GRPO prompt id) is copied to its result.",
        epilog=f"exit codes: {EXIT_OK} every rollout has a valid reward; {EXIT_INVALID} some "
        "have none (an invalid sample, or a line that could not be read; each has a result "
        "line with its error, the rest were scored: fix them, then rerun with --retry-invalid); "
        f"{EXIT_CONFIG} bad arguments or configuration, or two rollouts share an id; "
        f"{EXIT_NONE_VALID} not one rollout has a valid reward.",
    )
    parser.add_argument("rollouts", type=Path, help="JSONL: one sample object per line")
    parser.add_argument(
        "--config",
        type=Path,
        required=True,
        help="a tests directory, an eval.yaml, an OpenAI grader JSON, or a reward function as "
        "module:function (imported with the working directory on sys.path)",
    )
    parser.add_argument("--out", type=Path, required=True, help="the results JSONL (appended)")
    parser.add_argument(
        "--workers",
        type=int,
        default=int(env("REWARDKIT_WORKERS", "8")),
        help="samples scored at once (env REWARDKIT_WORKERS; default 8)",
    )
    parser.add_argument(
        "--ray-connect-timeout",
        type=_positive(float),
        default=env("REWARDKIT_RAY_CONNECT_TIMEOUT") or "30",
        metavar="SECONDS",
        help="with --backend ray: how long to try reaching the cluster before exit 2 (env "
        "REWARDKIT_RAY_CONNECT_TIMEOUT; default 30)",
    )
    parser.add_argument(
        "--deadline",
        type=_positive(float),
        default=env("REWARDKIT_DEADLINE") or str(DEFAULT_TIMEOUT),  # argparse checks it
        help="seconds per sample before it is invalid; each sample runs in a worker process "
        "that the deadline kills, its judges inline (env REWARDKIT_DEADLINE; default "
        f"{DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--memory-mib",
        type=_positive(int),
        default=env("REWARDKIT_MEMORY_MIB", str(MEMORY_MIB)),
        help="how many MiB a worker process may grow by while scoring "
        f"(RLIMIT_AS, Linux) (env REWARDKIT_MEMORY_MIB; default {MEMORY_MIB})",
    )
    parser.add_argument(
        "--max-line-mib",
        type=_positive(int),
        default=env("REWARDKIT_MAX_LINE_MIB", str(MAX_LINE_MIB)),
        help="the longest rollout line read; a longer one is recorded as invalid "
        f"(env REWARDKIT_MAX_LINE_MIB; default {MAX_LINE_MIB})",
    )
    parser.add_argument(
        "--backend",
        choices=("local", "process", "ray"),
        default=env("REWARDKIT_BACKEND", "local"),
        help="local: --workers worker processes on this machine, each scoring chunks of "
        "rollouts (process: the same, its former name); ray: --workers actors on a Ray "
        "cluster (RAY_ADDRESS, else a local instance; the config path must exist on every "
        "node) (env REWARDKIT_BACKEND; default local)",
    )
    parser.add_argument(
        "--retry-invalid",
        action="store_true",
        default=env("REWARDKIT_RETRY_INVALID", "") not in ("", "0"),
        help="score again the rollouts whose result is invalid: their lines are removed from "
        "--out first (env REWARDKIT_RETRY_INVALID)",
    )
    parser.add_argument("--no-progress", action="store_true", help="never show a progress bar")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the end-of-run summary as one JSON document (counts, mean reward, time, "
        "judges without a value, the silent-zero flag) instead of its lines",
    )
    add_budget_argument(parser)
    add_batch_arguments(parser)
    add_strict_argument(parser)
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    # rollouts have no container around them: the agent code a command criterion runs goes
    # into the jail unless the operator says otherwise (docs/security.md)
    os.environ.setdefault("REWARDKIT_JAIL_COMMANDS", "1")
    start = time.perf_counter()
    try:
        with run_budget(args.max_cost_usd) as ledger:
            counts = batched(args, _run)
            models = ledger.models()
    except ConfigError as exc:
        print(f"rewardkit score: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    seconds = time.perf_counter() - start
    flag = counts.flag()
    say_models(models, 0)
    if args.json:
        print(json.dumps(_summary(counts, seconds, args.out, flag) | {"models": models}, indent=2))
    else:
        retried = f", {counts.retried} invalid results retried" if counts.retried else ""
        print(
            f"{counts.scored} scored, {counts.invalid} invalid, {counts.skipped} already done, "
            f"{counts.malformed} malformed{retried} → {args.out}"
        )
        if summary := counts.summary(seconds):
            print(summary)
    if flag:
        warning(flag)
    return _exit_code(counts, args.out)


def _summary(counts: RunCounts, seconds: float, out: Path, flag: str | None) -> dict[str, Any]:
    """`--json`'s document: what the end-of-run lines say."""
    done = counts.scored + counts.invalid
    return {
        "out": str(out),
        "scored": counts.scored,
        "invalid": counts.invalid,
        "already_done": counts.skipped,
        "malformed": counts.malformed,
        "retried": counts.retried,
        "mean_reward": counts.reward_sum / counts.scored if counts.scored else None,
        "seconds": round(seconds, 3),
        "per_second": round(done / seconds, 1) if seconds > 0 else None,
        "no_value": dict(counts.no_value.most_common()),
        "silent_zero": flag,
    }


def _run(args: argparse.Namespace) -> RunCounts:
    """Check the paths, load the config, and score the rollouts on `args.backend`.

    Raises:
        ConfigError: a missing path, a bad config, or a run that cannot go on (see the backends).
    """
    from rewardkit.batch import load
    from rewardkit.batch._backends import REFERENCE
    from rewardkit.batch._runner import score_jsonl

    local = args.backend != "ray"  # `process` is what `local` does: worker processes
    if not args.rollouts.is_file():
        raise ConfigError("rollouts file not found", path=args.rollouts)
    config: Path | str = args.config
    if not args.config.exists():
        if not REFERENCE.fullmatch(str(args.config)):
            raise ConfigError(
                "config not found. Pass a tests directory, an eval.yaml, a grader JSON or "
                "module:function.",
                path=args.config,
            )
        config = str(args.config)
    if args.backend == "ray":
        from rewardkit.batch._ray import require_ray

        require_ray()
        os.environ["REWARDKIT_RAY_CONNECT_TIMEOUT"] = str(args.ray_connect_timeout)
    # Also with Ray: config errors show here, once, before any worker starts (without a
    # deadline, so that no worker process of ours starts here for nothing).
    scorer = load(
        config,
        deadline=args.deadline if local else None,
        max_concurrent=args.workers,
        memory_mib=args.memory_mib,
    )

    def bad_line(number: int, problem: str) -> None:
        print(f"{args.rollouts}:{number}: {problem}; recorded as invalid", file=sys.stderr)

    cap = args.max_line_mib << 20
    show = not args.no_progress and sys.stderr.isatty()
    with scorer, _progress(args.rollouts, args.out, cap, enabled=show) as advance:
        if local:
            return score_jsonl(
                scorer,
                args.rollouts,
                args.out,
                on_bad_line=bad_line,
                on_result=advance,
                max_line_bytes=cap,
                retry_invalid=args.retry_invalid,
            )
        return _score_elsewhere(args, config, bad_line, advance)


def _exit_code(counts: RunCounts, out: Path) -> int:
    if counts.none_valid:
        why = ""
        if counts.example is not None:
            line, error = counts.example
            why = f" (e.g. line {line}: {textwrap.shorten(error, 200)})"
        print(
            f"rewardkit score: error: not one rollout has a valid reward{why}. Check that "
            f"--config fits these rollouts; each line's error is in {out}.",
            file=sys.stderr,
        )
        return EXIT_NONE_VALID
    return EXIT_INVALID if counts.any_invalid else EXIT_OK


def _positive(kind: Callable[[str], float]) -> Callable[[str], float]:
    """An argparse type: a number above 0 (the error names the flag)."""

    def parse(text: str) -> float:
        value = kind(text)
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be above 0 (got {text})")
        return value

    parse.__name__ = kind.__name__  # argparse names the type in "invalid float value"
    return parse


def _score_elsewhere(
    args: argparse.Namespace,
    config: Path | str,
    bad_line: Callable[[int, str], None],
    advance: Callable[[int], None] | None,
) -> RunCounts:
    """Score on Ray actors; the driver still reads and writes the files."""
    from rewardkit.batch._ray import score_jsonl_ray

    return score_jsonl_ray(
        config,
        args.rollouts,
        args.out,
        workers=args.workers,
        deadline=args.deadline,
        memory_mib=args.memory_mib,
        on_bad_line=bad_line,
        on_result=advance,
        max_line_bytes=args.max_line_mib << 20,
        retry_invalid=args.retry_invalid,
    )


@contextmanager
def _progress(
    rollouts: Path, out: Path, cap: int, *, enabled: bool
) -> Iterator[Callable[[int], None] | None]:
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

    from rewardkit.batch._runner import rollouts_left

    total = rollouts_left(rollouts, out, cap)  # resumed samples are not scored again
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
        yield lambda n: bar.update(task, advance=n, rate=f"{bar.tasks[task].speed or 0:.1f}/s")
