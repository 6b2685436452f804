"""The flags that bound a run, shared by the subcommands: each programmatic judge's worker
process, what the run may spend on model calls, and sending them as provider batches."""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import warnings
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rewardkit.core._errors import ConfigError
from rewardkit.engine import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT

if TYPE_CHECKING:
    from rewardkit.models._ledger import RunLedger

__all__ = [
    "add_batch_arguments",
    "add_budget_argument",
    "add_worker_arguments",
    "batched",
    "run_budget",
    "say_models",
]

T = TypeVar("T")


def add_worker_arguments(parser: argparse.ArgumentParser, noun: str) -> None:
    """`--<noun>-timeout` and `--<noun>-memory` (env `REWARDKIT_<NOUN>_TIMEOUT` / `_MEMORY`).

    They land in `args.timeout` (seconds) and `args.memory_mb` (MiB, None for no cap).
    """
    env = f"REWARDKIT_{noun.upper()}"
    parser.add_argument(
        f"--{noun}-timeout",
        dest="timeout",
        metavar="SECONDS",
        type=_number(float),
        default=os.environ.get(f"{env}_TIMEOUT", DEFAULT_TIMEOUT),
        help=f"Seconds a programmatic {noun} may run before its process is killed and it "
        f"scores as a timeout, unless it sets its own (default: {DEFAULT_TIMEOUT:g}). "
        f"Env: {env}_TIMEOUT.",
    )
    parser.add_argument(
        f"--{noun}-memory",
        dest="memory_mb",
        metavar="MIB",
        type=_number(int, zero_is_none=True),
        default=os.environ.get(f"{env}_MEMORY", DEFAULT_MEMORY_MB),
        help=f"Address space each programmatic {noun}'s process may add, in MiB; past it, "
        f"the {noun} errors (default: {DEFAULT_MEMORY_MB}; 0: no cap). Env: {env}_MEMORY.",
    )


def _number(kind: type[float] | type[int], *, zero_is_none: bool = False) -> Callable[[str], Any]:
    """An argparse type: a positive number (or 0, read as None, when `zero_is_none`)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = -1
        if zero_is_none and value == 0:
            return None
        if not value > 0:
            least = "0 or a positive number" if zero_is_none else "a positive number"
            raise argparse.ArgumentTypeError(f"expected {least}, got {text!r}")
        return value

    return parse


def add_budget_argument(parser: argparse.ArgumentParser) -> None:
    """`--max-cost-usd` (env `REWARDKIT_MAX_COST_USD`), in `args.max_cost_usd`."""
    parser.add_argument(
        "--max-cost-usd",
        type=float,
        metavar="USD",
        default=os.environ.get("REWARDKIT_MAX_COST_USD") or None,
        help="stop sending model calls once the run has spent USD (calls in flight finish; "
        "what was not judged is 'skipped' with the reason; see docs/judges.md). "
        "Env: REWARDKIT_MAX_COST_USD.",
    )


def run_budget(limit: float | None) -> AbstractContextManager[RunLedger]:
    """The run's shared accounts: its spending limit (`--max-cost-usd`), each judge's
    `budget`, and its model clients' counters, across its worker processes.

    Raises:
        ConfigError: the limit is not a number ≥ 0.
    """
    from rewardkit.models._ledger import run_ledger

    return run_ledger(limit)


def say_models(models: dict[str, Any], maximum: int) -> None:
    """A stderr line per model whose concurrency overload answers lowered (see `_ledger`)."""
    if models.get("limits"):
        from rewardkit.models._ledger import model_lines

        for line in model_lines(models, maximum):
            print(f"rewardkit: {line}", file=sys.stderr)


def add_batch_arguments(parser: argparse.ArgumentParser) -> None:
    """`--batch-api DIR` and `--batch-poll SECONDS`, in `args.batch_api` and `args.batch_poll`."""
    parser.add_argument(
        "--batch-api",
        type=Path,
        metavar="DIR",
        help="send the model calls through the providers' batch APIs (OpenAI Batch, Anthropic "
        "Message Batches: half price, answers within 24 h), keeping the batches' state in DIR; "
        "run again with the same DIR to resume (see docs/judges.md)",
    )
    parser.add_argument(
        "--batch-poll",
        type=_number(float),
        metavar="SECONDS",
        default=os.environ.get("REWARDKIT_BATCH_POLL") or "30",
        help="with --batch-api: seconds between asking the providers how the batches are "
        "going (env REWARDKIT_BATCH_POLL; default 30)",
    )


def batched(args: argparse.Namespace, run: Callable[[argparse.Namespace], T]) -> T:
    """`run(args)`, through the providers' batch APIs when `--batch-api` asks for it: first
    with its outputs thrown away (`no_progress`, `out` in a temporary directory) to collect
    the requests, then for real with their answers.

    Raises:
        ConfigError: `--batch-api` with `--max-cost-usd` (a submitted batch cannot be
            stopped) or `--backend ray`, or a provider refused a batch (its state is kept:
            run again).
    """
    if args.batch_api is None:
        return run(args)
    if args.max_cost_usd is not None:
        raise ConfigError(
            "--batch-api and --max-cost-usd cannot go together: a submitted batch cannot be "
            "stopped part-way; run `rewardkit check --estimate` first instead"
        )
    if getattr(args, "backend", None) == "ray":
        raise ConfigError(
            "--batch-api needs the local backend: Ray's workers do not inherit the "
            "environment that keeps the first pass from calling the models"
        )
    from rewardkit.models.batches._apis import BatchError
    from rewardkit.models.batches._run import run_batched

    def collect() -> None:
        with tempfile.TemporaryDirectory(prefix="rewardkit-collect-") as scratch:
            out = Path(scratch) / Path(args.out).name
            quiet = argparse.Namespace(**{**vars(args), "out": out, "no_progress": True})
            with contextlib.redirect_stderr(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run(quiet)

    try:
        return run_batched(args.batch_api, collect, lambda: run(args), poll=args.batch_poll)
    except BatchError as exc:
        raise ConfigError(f"{exc} (the batches' state is in {args.batch_api}: run again)") from None
