"""A CLI run's shared accounts: what it spent (in all and per judge) and how its model
clients fared, summed over the run's processes.

`run_ledger(limit)` makes a fresh directory for the run and names it in `REWARDKIT_RUN_DIR`,
which worker processes inherit: the spending ledgers (`_prices.Spend`) are files in it, and
every model client writes its counters there when it closes (`record`). At the end,
`RunLedger.models()` sums them: calls, cache and batch answers, calls refused by a budget,
and each model's adaptive limit (its lowest, and how often overload answers lowered it).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit.core._errors import ConfigError
from rewardkit.models._prices import RUN_DIR_ENV, Spend, budget_reason, ledger_file

if TYPE_CHECKING:
    from rewardkit.models._client import ClientStats

__all__ = ["RunLedger", "model_lines", "record", "run_ledger"]

_COUNTS = ("calls", "cache_hits", "batched", "refused")
_NUMBERS = itertools.count()
"""Numbers this process's closing clients' files (a fork's pid is its own)."""


@dataclass
class RunLedger:
    """The run's directory and its budget (`None`: no limit)."""

    directory: Path
    limit: float | None

    def spend(self) -> Spend:
        return Spend(self.limit, ledger_file("run") if self.limit is not None else None)

    def models(self) -> dict[str, Any]:
        """The run's model clients' counters, summed (empty when no client ran)."""
        total: dict[str, Any] = {}
        for path in sorted((self.directory / "stats").glob("*.json")):
            try:
                stats = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            for name in _COUNTS:
                total[name] = total.get(name, 0) + int(stats.get(name, 0))
            limits = total.setdefault("limits", {})
            for model, seen in stats.get("limits", {}).items():
                mine = limits.setdefault(model, {"lowest": None, "backoffs": 0})
                mine["backoffs"] += seen["backoffs"]
                low = seen["min_limit"]
                if low is not None:
                    mine["lowest"] = low if mine["lowest"] is None else min(mine["lowest"], low)
        return total


def model_lines(models: dict[str, Any], maximum: int) -> list[str]:
    """A line per model whose limit overload answers lowered, for the end of a run."""
    lines = []
    for model, seen in sorted(models.get("limits", {}).items()):
        if seen["backoffs"]:
            most = f" of {maximum}" if maximum else ""
            lines.append(
                f"{model}: overload answers (429/503/529) lowered its concurrency "
                f"{seen['backoffs']} time(s), to {seen['lowest']}{most} at the lowest"
            )
    return lines


def record(stats: ClientStats) -> None:
    """Write one closing client's counters into the run's directory (outside a CLI run:
    nothing)."""
    directory = os.environ.get(RUN_DIR_ENV)
    if not directory or not stats.calls + stats.cache_hits + stats.batched + stats.refused:
        return
    data = {name: getattr(stats, name) for name in _COUNTS}
    data["limits"] = {model: asdict(limit) for model, limit in stats.limits.items()}
    folder = Path(directory) / "stats"
    with contextlib.suppress(OSError):
        folder.mkdir(exist_ok=True)
        (folder / f"{os.getpid()}-{next(_NUMBERS)}.json").write_text(json.dumps(data))


@contextlib.contextmanager
def run_ledger(limit: float | None) -> Iterator[RunLedger]:
    """The run's shared directory (and budget, `REWARDKIT_MAX_COST_USD`) for the block; at
    its end, says on stderr when the budget was reached.

    Raises:
        ConfigError: `limit` is not a finite number ≥ 0 (before anything runs).
    """
    if limit is not None and (isinstance(limit, bool) or not math.isfinite(limit) or limit < 0):
        raise ConfigError(f"--max-cost-usd must be a number of dollars ≥ 0 (got {limit:g})")
    directory = Path(tempfile.mkdtemp(prefix="rewardkit-run-"))
    names = ("REWARDKIT_MAX_COST_USD", RUN_DIR_ENV)
    saved = {name: os.environ.get(name) for name in names}
    os.environ[RUN_DIR_ENV] = str(directory)
    if limit is not None:
        os.environ["REWARDKIT_MAX_COST_USD"] = repr(float(limit))
    else:
        os.environ.pop("REWARDKIT_MAX_COST_USD", None)
    ledger = RunLedger(directory, limit)
    try:
        yield ledger
        spend = ledger.spend()
        if limit is not None and spend.reached():
            print(
                f"rewardkit: warning: {budget_reason(limit)} (spent ${spend.spent:.4f}): "
                "later model calls were not sent and their judges are 'skipped'",
                file=sys.stderr,
            )
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(directory, ignore_errors=True)
