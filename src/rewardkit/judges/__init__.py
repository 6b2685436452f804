"""Judges beyond `@criterion` checks: judge TOMLs of a tests dir, and eval.yaml judges.

Discovery already reads judge TOMLs so that layouts, names and weights are right; running
LLM, agent and JEV judges arrives with the judges work. Until then each of their criteria is
recorded as an errored outcome that says so, and every other score of the run is kept.
eval.yaml code, `check` and `builtin` judges run today (`EvalJudge`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardkit._outcome import Outcome
from rewardkit.judges._eval import EvalJudge, JudgeKind

__all__ = ["EvalJudge", "JudgeCriterion", "JudgeKind", "JudgeSpec", "slug"]

AGENTS = ("claude-code", "codex", "fx")


def slug(description: str) -> str:
    """A criterion's default name: its first 40 characters as `lower_snake`."""
    return re.sub(r"[^a-z0-9]+", "_", description[:40].lower()).strip("_")


@dataclass(frozen=True, kw_only=True)
class JudgeCriterion:
    """One `[[criterion]]` of a judge TOML."""

    name: str
    description: str
    weight: float = 1.0
    optional: bool = False


@dataclass(frozen=True, kw_only=True)
class JudgeSpec:
    """A judge TOML's `[judge]` table and criteria."""

    source: Path
    judge: str
    config: dict[str, Any] = field(default_factory=dict)
    criteria: tuple[JudgeCriterion, ...] = ()

    @property
    def kind(self) -> str:
        if self.judge == "jev":
            return "jev"
        return "agent" if self.judge in AGENTS else "llm"

    async def evaluate(self, workspace: Path) -> list[Outcome]:
        """Record every criterion as errored: this judge kind cannot run yet."""
        message = (
            f"{self.kind} judges ({self.judge!r} in {self.source.name}) are not available in "
            f"this version of rewardkit yet; the criterion is recorded as an error"
        )
        return [
            Outcome(
                name=c.name,
                status="error",
                weight=c.weight,
                description=c.description,
                error=message,
                extra={"optional": True} if c.optional else {},
            )
            for c in self.criteria
        ]
