"""What model calls cost, and a run's spending budget.

Natively sent calls (OpenAI, Anthropic) report tokens, not dollars; `price` turns a call's
`Usage` into USD with `PRICES`, a small table of current list prices, which a JSON file named
by `REWARDKIT_PRICES` extends or overrides per model. A model in neither has no price: its
cost is unknown (`None`), never 0. A cost the provider itself reports (OpenRouter, a LiteLLM
proxy, LiteLLM's own estimate) is kept as it is.

`Spend` is a run's budget (`REWARDKIT_MAX_COST_USD`): every `ModelClient` of the run adds
what each reply cost, and once the total reaches the limit no new call is sent
(`BudgetReached`). Clients in several worker processes share it through a small file
(in the run's directory, `REWARDKIT_RUN_DIR`, made by the CLI), each addition under an
exclusive lock. A judge's own `budget` is a `Spend` of its own, shared the same way.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError, JudgeError
from rewardkit.models._usage import Usage

__all__ = [
    "PRICES",
    "RUN_DIR_ENV",
    "BudgetReached",
    "JudgeBudget",
    "Price",
    "Spend",
    "budget_reason",
    "ledger_file",
    "load_prices",
    "price",
    "price_of",
    "usd",
]


@dataclass(frozen=True)
class Price:
    """USD per 1M tokens."""

    input: float
    output: float
    cached_input: float | None = None
    """Prompt tokens read from the provider's cache (`None`: the `input` price)."""
    cache_write: float | None = None
    """Prompt tokens written to the cache (Anthropic; `None`: the `input` price)."""


def _p(inp: float, out: float, cached: float, write: float | None = None) -> Price:
    return Price(inp, out, cached, write)


PRICES: Mapping[str, Price] = {
    # OpenAI list prices (standard tier), USD per 1M tokens: input, output, cached input.
    "openai/gpt-5": _p(1.25, 10.0, 0.125),
    "openai/gpt-5-mini": _p(0.25, 2.0, 0.025),
    "openai/gpt-5-nano": _p(0.05, 0.4, 0.005),
    "openai/gpt-4.1": _p(2.0, 8.0, 0.5),
    "openai/gpt-4.1-mini": _p(0.4, 1.6, 0.1),
    "openai/gpt-4.1-nano": _p(0.1, 0.4, 0.025),
    "openai/gpt-4o": _p(2.5, 10.0, 1.25),
    "openai/gpt-4o-mini": _p(0.15, 0.6, 0.075),
    "openai/o3": _p(2.0, 8.0, 0.5),
    "openai/o4-mini": _p(1.1, 4.4, 0.275),
    # Anthropic: input, output, cache read (0.1x input), cache write (5-minute, 1.25x input).
    "anthropic/claude-opus-4-5": _p(5.0, 25.0, 0.5, 6.25),
    "anthropic/claude-opus-4-1": _p(15.0, 75.0, 1.5, 18.75),
    "anthropic/claude-opus-4": _p(15.0, 75.0, 1.5, 18.75),
    "anthropic/claude-sonnet-4-5": _p(3.0, 15.0, 0.3, 3.75),
    "anthropic/claude-sonnet-4": _p(3.0, 15.0, 0.3, 3.75),
    "anthropic/claude-3-7-sonnet": _p(3.0, 15.0, 0.3, 3.75),
    "anthropic/claude-haiku-4-5": _p(1.0, 5.0, 0.1, 1.25),
    "anthropic/claude-3-5-haiku": _p(0.8, 4.0, 0.08, 1.0),
}
"""List prices as of late 2025 (USD per 1M tokens). A dated snapshot of a listed model
(`gpt-4o-2024-08-06`, `claude-sonnet-4-20250514`) or its `-latest` alias has its price."""

_SNAPSHOT = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")
_KEYS = ("input", "output", "cached_input", "cache_write")


def load_prices(path: str | Path | None = None) -> dict[str, Price]:
    """`PRICES` with the entries of the JSON file at `path` (default: `REWARDKIT_PRICES`)
    on top: `{"openai/my-model": {"input": 1.0, "output": 4.0, "cached_input": 0.5}}`,
    USD per 1M tokens; `cached_input` and `cache_write` are optional.

    Raises:
        ConfigError: the file cannot be read, or an entry is malformed.
    """
    where = path if path is not None else os.environ.get("REWARDKIT_PRICES") or None
    table = dict(PRICES)
    if where is None:
        return table
    try:
        data = json.loads(Path(where).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot read the price file: {exc}", path=Path(where)) from None
    if not isinstance(data, dict):
        raise ConfigError(
            'must be a JSON object of models, e.g. {"openai/my-model": {"input": 1.0, '
            '"output": 4.0}} (USD per 1M tokens)',
            path=Path(where),
        )
    for model, entry in data.items():
        table[model] = _entry(Path(where), model, entry)
    return table


def _entry(path: Path, model: str, entry: Any) -> Price:
    if not isinstance(entry, dict) or not {"input", "output"} <= entry.keys():
        raise ConfigError(
            f"{model!r} must be an object with 'input' and 'output' (USD per 1M tokens) "
            f"(got {entry!r})",
            path=path,
            key=model,
        )
    unknown = sorted(set(entry) - set(_KEYS))
    if unknown:
        raise ConfigError(
            f"{model!r}: unknown key(s) {unknown}; valid keys: {list(_KEYS)}", path=path, key=model
        )
    for key, value in entry.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
            raise ConfigError(
                f"{model!r}.{key} must be a number ≥ 0 (got {value!r})", path=path, key=model
            )
    return Price(**{k: float(v) for k, v in entry.items()})


def price_of(model: str, table: Mapping[str, Price] | None = None) -> Price | None:
    """The price of `model` (`openai/gpt-4o`, or a snapshot of it); `None` when unknown."""
    table = PRICES if table is None else table
    for name in (model, _SNAPSHOT.sub("", model)):
        if name in table:
            return table[name]
    return None


def price(usage: Usage, model: str, table: Mapping[str, Price] | None = None) -> Usage:
    """`usage` with its `cost_usd` filled from the table when the provider reported none
    (unknown model: left `None`)."""
    if usage.cost_usd is not None:
        return usage
    found = price_of(model, table)
    if found is None:
        return usage
    read, written = usage.cache_read_input_tokens, usage.cache_creation_input_tokens
    fresh = max(usage.input_tokens - read - written, 0)
    cached = found.input if found.cached_input is None else found.cached_input
    write = found.input if found.cache_write is None else found.cache_write
    dollars = (
        fresh * found.input + read * cached + written * write + usage.output_tokens * found.output
    ) / 1_000_000
    return replace(usage, cost_usd=dollars)


class BudgetReached(JudgeError):
    """The run's budget was spent before this call; it was not sent."""


def budget_reason(limit: float) -> str:
    """The reason recorded on what was not judged."""
    return f"budget of ${limit:g} reached"


def usd(value: Any) -> float | None:
    """`value` as a number of dollars ≥ 0, else `None`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) and value >= 0 else None


@dataclass(frozen=True)
class JudgeBudget:
    """A judge's own spending limit (its `budget`), on top of the run's."""

    judge: str
    usd: float

    def __post_init__(self) -> None:
        if isinstance(self.usd, bool) or not math.isfinite(self.usd) or self.usd < 0:
            raise ValueError(f"a judge's budget must be a finite number ≥ 0 (got {self.usd!r})")

    def spend(self) -> Spend:
        """Its ledger: shared by the run's processes (one file per judge) in a CLI run."""
        import hashlib

        digest = hashlib.sha256(self.judge.encode("utf-8")).hexdigest()[:16]
        return Spend(self.usd, ledger_file(f"judge-{digest}"), owner=f"judge {self.judge!r}: ")


RUN_DIR_ENV = "REWARDKIT_RUN_DIR"
"""The directory a CLI run shares between its processes (`_ledger.run_ledger`)."""


def ledger_file(name: str) -> Path | None:
    """The run's shared ledger `name` (`None` outside a CLI run: each client counts its own)."""
    directory = os.environ.get(RUN_DIR_ENV)
    return Path(directory) / f"{name}.spend" if directory else None


class Spend:
    """What a run has spent on model calls, against its limit (`None`: no limit).

    With `ledger` (a file path), every process and client naming the same file shares one
    total; otherwise the total is this object's own.
    """

    def __init__(
        self, limit: float | None = None, ledger: str | Path | None = None, owner: str = ""
    ) -> None:
        if limit is not None and (isinstance(limit, bool) or not math.isfinite(limit) or limit < 0):
            raise ValueError(f"max_cost_usd must be a finite number ≥ 0 (got {limit!r})")
        self.limit = limit
        self.ledger = Path(ledger) if ledger is not None else None
        self.owner = owner
        """Whose budget it is, as a refusal names it (`judge 'q': `; the run's: empty)."""
        self._spent = 0.0
        self.unpriced = 0
        """Replies whose cost is unknown: not counted against the limit."""

    @classmethod
    def from_env(cls) -> Spend:
        """The run's budget `REWARDKIT_MAX_COST_USD`, if any, on the run's shared ledger
        (`_ledger.run_ledger`) when there is one.

        Raises:
            ConfigError: `REWARDKIT_MAX_COST_USD` is not a number ≥ 0.
        """
        text = os.environ.get("REWARDKIT_MAX_COST_USD") or None
        if text is None:
            return cls()
        try:
            return cls(float(text), ledger_file("run"))
        except ValueError:
            raise ConfigError(
                f"REWARDKIT_MAX_COST_USD must be a number of dollars ≥ 0 (got {text!r})"
            ) from None

    @property
    def spent(self) -> float:
        """USD spent so far (by every client sharing the ledger)."""
        if self.ledger is None:
            return self._spent
        try:
            with open(self.ledger, encoding="utf-8") as file:
                fcntl.flock(file, fcntl.LOCK_SH)  # never between `add`'s truncate and write
                return float(file.read() or 0)
        except (OSError, ValueError):
            return 0.0

    def reached(self) -> bool:
        """Whether no new call may be sent."""
        return self.limit is not None and self.spent >= self.limit

    def add(self, usage: Usage) -> None:
        """Count one reply's cost (an unknown cost is counted in `unpriced`)."""
        if usage.cost_usd is None:
            self.unpriced += 1
            return
        if self.ledger is None:
            self._spent += usage.cost_usd
            return
        with open(self.ledger, "a+", encoding="utf-8") as file:
            fcntl.flock(file, fcntl.LOCK_EX)
            file.seek(0)
            try:
                before = float(file.read() or 0)
            except ValueError:
                before = 0.0
            file.seek(0)
            file.truncate()
            file.write(repr(before + usage.cost_usd))
            file.flush()  # before the lock is let go
