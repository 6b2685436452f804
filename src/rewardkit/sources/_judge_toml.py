"""Judge TOMLs (`[judge]`, `[[criterion]]`, `[scoring]`): read enough to place them in the plan."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from rewardkit._errors import ConfigError, did_you_mean
from rewardkit._plan import Kind, Leaf
from rewardkit.judges import JudgeCriterion, JudgeSpec, slug
from rewardkit.sources._reward_toml import parse_scoring

__all__ = ["is_judge_toml", "load_judge"]

_TOP = ("judge", "criterion", "scoring")
DEFAULT_JUDGE = "anthropic/claude-opus-5-5"


def is_judge_toml(data: Mapping[str, Any]) -> bool:
    """A TOML with a `judge` or `criterion` key is a judge (one marker is enough)."""
    return "judge" in data or "criterion" in data


def load_judge(
    path: Path, data: Mapping[str, Any], qualname: str, errors: list[ConfigError]
) -> Leaf:
    """Build the leaf of one judge TOML; problems are appended to `errors`."""
    for key in data:
        if key not in _TOP:
            errors.append(
                ConfigError(f"unknown table [{key}].{did_you_mean(key, _TOP)}", path=path)
            )
    config = data.get("judge", {})
    if not isinstance(config, dict):
        errors.append(ConfigError("[judge] must be a table.", path=path))
        config = {}
    scoring = data.get("scoring", {})
    if not isinstance(scoring, dict):
        errors.append(ConfigError("[scoring] must be a table.", path=path))
        scoring = {}
    weight = config.get("weight", 1.0)
    if not isinstance(weight, int | float) or isinstance(weight, bool):
        errors.append(
            ConfigError(f"must be a number (got {weight!r}).", path=path, key="[judge].weight")
        )
        weight = 1.0
    spec = JudgeSpec(
        source=path,
        judge=os.environ.get("REWARDKIT_JUDGE") or str(config.get("judge", DEFAULT_JUDGE)),
        config=config,
        criteria=_criteria(path, data.get("criterion"), errors),
    )
    return Leaf(
        name=path.stem,
        qualname=qualname,
        source=path,
        kind=cast(Kind, spec.kind),
        judge=spec,
        scoring=parse_scoring(scoring, path, "[scoring]", ("aggregation", "threshold"), errors),
        weight=float(weight),
    )


def _criteria(path: Path, raw: Any, errors: list[ConfigError]) -> tuple[JudgeCriterion, ...]:
    if not isinstance(raw, list) or not raw:
        errors.append(
            ConfigError(
                "a judge needs at least one [[criterion]] table with a description.",
                path=path,
            )
        )
        return ()
    criteria = []
    for i, table in enumerate(raw, 1):
        description = table.get("description") if isinstance(table, dict) else None
        if not isinstance(description, str) or not description.strip():
            errors.append(
                ConfigError(
                    "needs a non-empty 'description'.", path=path, key=f"[[criterion]] #{i}"
                )
            )
            continue
        importance = str(table.get("annotations", {}).get("importance", "")).lower()
        criteria.append(
            JudgeCriterion(
                name=str(table.get("name") or slug(description) or f"criterion_{i - 1}"),
                description=description,
                weight=float(table.get("weight", 1.0)),
                optional=bool(table.get("optional", "optional" in importance)),
            )
        )
    return tuple(criteria)
