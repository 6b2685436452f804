"""`reward.toml`: `[scoring.<stem>]` tables and `[[reward]]` tables, validated strictly.

Hand-validated rather than through pydantic: the schema is two small tables, the messages
name the exact key and the fix, and a programmatic run stays free of pydantic's import cost.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardkit.compose import MODES, parse_mode
from rewardkit.core._errors import ConfigError, did_you_mean
from rewardkit.engine._plan import Scoring

__all__ = ["RewardSpec", "RewardToml", "parse_reward_toml", "parse_scoring"]

_SCORING_KEYS = ("aggregation", "threshold")
_REWARD_KEYS = ("name", *_SCORING_KEYS, "weights")


@dataclass(frozen=True, kw_only=True)
class RewardSpec:
    """One `[[reward]]` table."""

    name: str | None
    scoring: Scoring
    weights: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class RewardToml:
    """A directory's `reward.toml`."""

    path: Path
    scoring: Mapping[str, Scoring] = field(default_factory=dict)
    rewards: tuple[RewardSpec, ...] = ()


def parse_reward_toml(path: Path, data: Mapping[str, Any], errors: list[ConfigError]) -> RewardToml:
    """Validate a parsed `reward.toml`; problems are appended to `errors`."""
    for key in data:
        if key not in ("scoring", "reward"):
            hint = did_you_mean(key, ("scoring", "reward"))
            errors.append(
                ConfigError(
                    f"unknown key {key!r}.{hint} reward.toml takes [scoring.<py-stem>] tables "
                    f"and [[reward]] tables (the RewardKit 0.2.0 top-level 'weight' and "
                    f"'[scoring] aggregation' forms are not supported).",
                    path=path,
                )
            )
    scoring: dict[str, Scoring] = {}
    raw_scoring = data.get("scoring", {})
    if not isinstance(raw_scoring, dict):
        errors.append(
            ConfigError("[scoring] must be a table of [scoring.<py-stem>] tables.", path=path)
        )
        raw_scoring = {}
    for stem, table in raw_scoring.items():
        where = f"[scoring.{stem}]"
        if not isinstance(table, dict):
            errors.append(
                ConfigError(
                    f"must be a table (got {table!r}). Configure each Python file in its own "
                    f'table, e.g. [scoring.checks] with aggregation = "all-pass".',
                    path=path,
                    key=where,
                )
            )
            continue
        scoring[stem] = parse_scoring(table, path, where, _SCORING_KEYS, errors)
    raw_rewards = data.get("reward", [])
    if not isinstance(raw_rewards, list):
        errors.append(
            ConfigError("'reward' must be written as [[reward]] tables.", path=path, key="reward")
        )
        raw_rewards = []
    rewards = tuple(
        _parse_reward(table, path, f"[[reward]] #{i}", errors)
        for i, table in enumerate(raw_rewards, 1)
    )
    return RewardToml(path=path, scoring=scoring, rewards=rewards)


def parse_scoring(
    table: Mapping[str, Any],
    path: Path,
    where: str,
    allowed: tuple[str, ...],
    errors: list[ConfigError],
) -> Scoring:
    """Validate `aggregation` and `threshold` in `table`; unknown keys are errors."""
    for key in table:
        if key not in allowed:
            valid = ", ".join(repr(k) for k in allowed)
            errors.append(
                ConfigError(
                    f"unknown key {key!r}.{did_you_mean(key, allowed)} Valid keys: {valid}.",
                    path=path,
                    key=where,
                )
            )
    aggregation = table.get("aggregation", "weighted-mean")
    try:
        parse_mode(aggregation)
    except ValueError as exc:
        hint = did_you_mean(str(aggregation), MODES)
        errors.append(ConfigError(f"{exc}.{hint}", path=path, key=f"{where}.aggregation"))
        aggregation = "weighted-mean"
    threshold = table.get("threshold", 0.5)
    if not _is_number(threshold):
        errors.append(
            ConfigError(
                f"must be a finite number (got {threshold!r}), e.g. threshold = 0.7",
                path=path,
                key=f"{where}.threshold",
            )
        )
        threshold = 0.5
    return Scoring(aggregation=aggregation, threshold=float(threshold))


def _parse_reward(table: Any, path: Path, where: str, errors: list[ConfigError]) -> RewardSpec:
    if not isinstance(table, dict):
        errors.append(ConfigError("must be a table.", path=path, key=where))
        return RewardSpec(name=None, scoring=Scoring())
    name = table.get("name")
    if name is not None and not (isinstance(name, str) and name):
        errors.append(
            ConfigError(
                f"must be a non-empty string (got {name!r}).", path=path, key=f"{where}.name"
            )
        )
        name = None
    if isinstance(name, str):
        where = f"[[reward]] {name!r}"
    scoring = parse_scoring(table, path, where, _REWARD_KEYS, errors)
    weights: dict[str, float] = {}
    raw_weights = table.get("weights", {})
    if not isinstance(raw_weights, dict):
        errors.append(
            ConfigError(
                f"must be a table of input → number (got {raw_weights!r}), "
                f"e.g. weights = {{ checks = 2.0 }}",
                path=path,
                key=f"{where}.weights",
            )
        )
        raw_weights = {}
    for key, value in raw_weights.items():
        if not _is_number(value):
            errors.append(
                ConfigError(
                    f"must be a finite number (got {value!r}).",
                    path=path,
                    key=f"{where}.weights.{key}",
                )
            )
            continue
        weights[key] = float(value)
    return RewardSpec(name=name, scoring=scoring, weights=weights)


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
