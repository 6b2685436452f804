"""Judge TOMLs (`[judge]`, `[[criterion]]`, `[scoring]`) → one plan leaf each."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rewardkit.compose import check_weights
from rewardkit.core._errors import ConfigError, did_you_mean
from rewardkit.engine._plan import Leaf
from rewardkit.harbor._reward_toml import parse_scoring

__all__ = ["is_judge_toml", "load_judge"]

_TOP = ("judge", "criterion", "scoring")


def is_judge_toml(data: Mapping[str, Any]) -> bool:
    """A TOML with a `judge` or `criterion` key is a judge (one marker is enough)."""
    return "judge" in data or "criterion" in data


def load_judge(
    path: Path, data: Mapping[str, Any], qualname: str, errors: list[ConfigError]
) -> Leaf:
    """Build the leaf of one judge TOML; problems are appended to `errors`."""
    from rewardkit.harbor._judge_config import load_definition  # only runs with judge TOMLs
    from rewardkit.judges import TomlJudge

    for key in data:
        if key not in _TOP:
            valid = ", ".join(f"[{k}]" for k in _TOP)
            errors.append(
                ConfigError(
                    f"unknown table [{key}].{did_you_mean(key, _TOP)} A judge TOML takes {valid}.",
                    path=path,
                )
            )
    definition = load_definition(path, data, errors)
    raw = data.get("scoring", {})
    if not isinstance(raw, dict):
        errors.append(
            ConfigError(
                f"[scoring] must be a table (got scoring = {raw!r}), e.g.\n  [scoring]\n  "
                f'aggregation = "all-pass"',
                path=path,
            )
        )
        raw = {}
    scoring = parse_scoring(raw, path, "[scoring]", ("aggregation", "threshold"), errors)
    criteria = definition.criteria
    if scoring.mode == "required-pass" and criteria and all(c.optional for c in criteria):
        errors.append(
            ConfigError(
                "aggregation = 'required-pass' needs at least one criterion that is not "
                "optional, but every criterion is. Make one required or pick another "
                "aggregation.",
                path=path,
                key="[scoring].aggregation",
            )
        )
    try:
        check_weights((c.weight for c in criteria), scoring.mode)
    except ValueError as exc:
        errors.append(
            ConfigError(
                f'criterion weights: {exc}. Set aggregation = "weighted-sum" in [scoring] '
                f"to use negative weights.",
                path=path,
            )
        )
    judge: Any = TomlJudge(definition=definition)
    if definition.kind == "llm":
        from rewardkit.judges._llm import LLMJudge  # the transport loads only with a judge

        judge = LLMJudge(definition=definition)
    elif definition.kind == "jev":
        from rewardkit.judges._jev import JevJudge  # the SDK loads only when it runs

        judge = JevJudge(definition=definition)
    elif definition.kind == "agent":
        from rewardkit.judges.agents import AGENT_BACKENDS

        if definition.judge in AGENT_BACKENDS:
            from rewardkit.judges._agent import AgentJudge

            judge = AgentJudge(definition=definition)
    return Leaf(
        name=path.stem,
        qualname=qualname,
        source=path,
        kind=definition.kind,
        judge=judge,
        scoring=scoring,
        weight=definition.weight,
    )
