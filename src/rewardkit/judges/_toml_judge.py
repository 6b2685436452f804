"""`TomlJudge`: the judge of one judge TOML, as a plan leaf runs it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.core._outcome import JudgeRun, Outcome
from rewardkit.judges._definition import CriterionDef, JudgeDefinition
from rewardkit.judges._parse import Verdict

__all__ = ["DefinedJudge", "TomlJudge", "criterion_extra", "failed_run", "verdict_outcome"]


def criterion_extra(criterion: CriterionDef) -> dict[str, Any]:
    """The details fields a criterion carries besides its score: `id`, `negate`, `optional`."""
    extra: dict[str, Any] = {}
    if criterion.id is not None:
        extra["id"] = criterion.id
    if criterion.negate:
        extra["negate"] = True
    if criterion.optional:
        extra["optional"] = True
    return extra


def verdict_outcome(
    criterion: CriterionDef,
    verdict: Verdict,
    *,
    model: str | None = None,
    duration_ms: float = 0.0,
) -> Outcome:
    """The scored outcome of `criterion`; samples and agreement (4 dp) go to `extra`."""
    extra = criterion_extra(criterion)
    if verdict.samples is not None:
        extra["samples"] = list(verdict.samples)
    if verdict.agreement is not None:
        extra["agreement"] = round(verdict.agreement, 4)
    return Outcome(
        name=criterion.name,
        status="scored",
        value=verdict.value,
        raw=verdict.raw,
        weight=criterion.weight,
        description=criterion.description,
        reasoning=verdict.reasoning or None,
        model=model,
        duration_ms=duration_ms,
        extra=extra,
    )


def failed_run(definition: JudgeDefinition, message: str, *, duration_ms: float = 0.0) -> JudgeRun:
    """Every criterion of `definition` as an `error` outcome saying `message`."""
    outcomes = tuple(
        Outcome(
            name=c.name,
            status="error",
            weight=c.weight,
            description=c.description,
            error=message,
            duration_ms=duration_ms,
            extra=criterion_extra(c),
        )
        for c in definition.criteria
    )
    return JudgeRun(
        outcomes=outcomes, detail={"judge": definition.details(), "warnings": [message]}
    )


@dataclass(frozen=True, kw_only=True)
class DefinedJudge:
    """What every judge of a judge TOML shares: its definition and criteria."""

    definition: JudgeDefinition

    @property
    def criteria(self) -> tuple[CriterionDef, ...]:
        return self.definition.criteria


@dataclass(frozen=True, kw_only=True)
class TomlJudge(DefinedJudge):
    """Runs a `JudgeDefinition` on a workspace.

    The placeholder for an agent judge whose CLI has no registered backend (LLM, agent and
    JEV judges run as `LLMJudge`, `AgentJudge` and `JevJudge`): every criterion is recorded
    as an `error` outcome that says so, and every other score of the run is kept.
    """

    async def evaluate(self, workspace: Path, client: Any = None) -> JudgeRun:
        """One outcome per criterion, in TOML order."""
        d = self.definition
        message = (
            f"{d.kind} judges ({d.judge!r} in {d.source.name}) are not available in this "
            f"version of rewardkit yet; the criterion is recorded as an error"
        )
        return failed_run(d, message)
