"""The flags that bound a run, shared by the subcommands: each programmatic judge's worker
process, and what the run may spend on model calls."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from rewardkit.engine import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT

__all__ = ["add_budget_argument", "add_worker_arguments", "run_budget"]


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


def run_budget(limit: float | None) -> AbstractContextManager[object]:
    """The run's spending limit (`--max-cost-usd`); the model transport loads only with one.

    Raises:
        ConfigError: the limit is not a number ≥ 0.
    """
    if limit is None:
        return nullcontext()
    from rewardkit.models._prices import shared_budget

    return shared_budget(limit)
