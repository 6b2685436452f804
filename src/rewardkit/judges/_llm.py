"""Run an LLM judge TOML: plan its requests, send them through the run's `ModelClient`,
parse the replies, combine samples, and turn each criterion into an outcome.

Nothing here raises for a model failure: after the transport's retries, every criterion the
failed call was grading becomes an `error` (or `timeout`) outcome with the reason, and the
run goes on.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError, JudgeError, JudgeTimeout
from rewardkit.core._outcome import JudgeRun, Outcome
from rewardkit.judges._definition import CriterionDef, JudgeDefinition
from rewardkit.judges._inputs import Block
from rewardkit.judges._parse import Verdict, combine_samples, guard_detail, parse_reply
from rewardkit.judges._prompt import JudgeRequest, plan_requests
from rewardkit.judges._toml_judge import DefinedJudge, criterion_extra, failed_run, verdict_outcome
from rewardkit.judges._trajectory import render_trajectory, trajectory_path
from rewardkit.models import CompletionRequest, ModelClient, Usage, missing_keys
from rewardkit.models._prices import BudgetReached, JudgeBudget

__all__ = ["LLMJudge"]


@dataclass(frozen=True)
class _Call:
    """What one request came back with: a verdict per criterion, or why there is none."""

    request: JudgeRequest
    verdicts: tuple[Verdict, ...] | None
    error: JudgeError | None
    text: str
    usage: Usage


_Graded = dict[CriterionDef, tuple[_Call, int]]
"""A sample's calls by the criteria they graded, with each criterion's place in its call."""


@dataclass(frozen=True, kw_only=True)
class LLMJudge(DefinedJudge):
    """An LLM judge TOML, ready to run against a workspace."""

    async def evaluate(self, workspace: Path, client: ModelClient) -> JudgeRun:
        """Grade `workspace`: every sample's requests at once, under the client's limits."""
        d = self.definition
        started = time.perf_counter()
        missing = await missing_keys(d.judge, os.environ.get("REWARDKIT_API_BASE") or None)
        if missing:
            return self._all_failed(
                f"{d.source.name}: model {d.judge!r} needs {', '.join(missing)} in the "
                f"environment; set it in the verifier's environment or pass "
                f"--judge-env {missing[0]}=... (no call was made)",
                started,
            )
        notes: list[str] = []  # the trajectory's truncation warning, if any
        try:  # an unusable trajectory fails this judge's criteria, not the run
            trajectory = _trajectory(d, workspace, notes)
        except ValueError as exc:
            return self._all_failed(
                f"{d.source.name}: [judge].atif-trajectory: {exc} (no call was made)", started
            )
        try:  # one plan for every sample: each file is read once
            plan = plan_requests(d, workspace, trajectory=trajectory)
        except (OSError, ValueError) as exc:  # unreadable inputs: record, don't crash
            return self._all_failed(f"could not build the judge's input: {exc}", started)
        calls = await asyncio.gather(
            *(self._ask(client, req, sample) for sample in range(d.samples) for req in plan)
        )
        per_sample = len(plan)
        samples = [_graded(calls[i * per_sample : (i + 1) * per_sample]) for i in range(d.samples)]
        outcomes = [self._outcome(c, samples, started) for c in d.criteria]
        detail: dict[str, Any] = {"judge": d.details(), "judge_output": _output(calls, d.samples)}
        usage = sum((c.usage for c in calls), Usage())
        if usage.as_dict() != Usage().as_dict():
            detail["usage"] = {**usage.as_dict(), "models": {d.judge: usage.as_dict()}}
        cap = None
        guard = d.guard_criterion
        if guard is not None:
            verdict, error = self._combined(guard, samples, upper=True)
            detail["guard"] = guard_detail(verdict, error)
            if d.guard == "penalize" and detail["guard"].get("flagged"):
                cap = 0.0  # a flagged submission scores at most 0
        failures = sorted({str(c.error) for c in calls if c.error is not None})
        if notes or failures:
            detail["warnings"] = [*notes, *failures]
        return JudgeRun(outcomes=tuple(outcomes), detail=detail, cap=cap)

    async def _ask(self, client: ModelClient, request: JudgeRequest, sample: int) -> _Call:
        d = self.definition
        completion = CompletionRequest(
            model=d.judge,
            messages=request.messages,
            schema=request.schema,
            timeout=float(d.timeout),
            reasoning_effort=d.reasoning_effort,
            api_base=os.environ.get("REWARDKIT_API_BASE") or None,
            supports=d.supports,
            sample=sample,
        )
        try:
            result, verdicts = await client.complete(
                completion,
                parse=lambda text: parse_reply(text, request.criteria),
                budget=JudgeBudget(str(d.source), d.budget) if d.budget is not None else None,
            )
        except JudgeError as exc:
            return _Call(request, None, exc, "", _usage_of(exc))
        except ConfigError as exc:  # LiteLLM missing for this model: the message names the extra
            return _Call(request, None, JudgeError(str(exc)), "", Usage())
        return _Call(request, verdicts, None, result.text, result.usage)

    def _combined(
        self, criterion: CriterionDef, samples: Sequence[_Graded], *, upper: bool = False
    ) -> tuple[Verdict | None, str | None]:
        votes: list[Verdict | None] = []
        errors: list[JudgeError] = []
        for graded in samples:
            call, position = graded.get(criterion, (None, 0))
            if call is None or call.verdicts is None:
                votes.append(None)
                if call is not None and call.error is not None:
                    errors.append(call.error)
                continue
            votes.append(call.verdicts[position])
        verdict = combine_samples(votes, upper=upper)
        return verdict, (str(errors[0]) if verdict is None and errors else None)

    def _outcome(
        self, criterion: CriterionDef, samples: Sequence[_Graded], started: float
    ) -> Outcome:
        verdict, error = self._combined(criterion, samples)
        ms = round((time.perf_counter() - started) * 1000, 3)
        calls = [graded[criterion][0] for graded in samples if criterion in graded]
        if verdict is not None:
            outcome = verdict_outcome(
                criterion, verdict, model=self.definition.judge, duration_ms=ms
            )
            usage = _own_usage(calls)
            if usage is not None:
                outcome.extra["usage"] = usage.as_dict()
            return outcome
        unsent = [c.error for c in calls if isinstance(c.error, BudgetReached)]
        if unsent and len(unsent) == len(calls):  # abstains: left out of the composition
            return Outcome(
                name=criterion.name,
                status="skipped",
                weight=criterion.weight,
                description=criterion.description,
                reasoning=str(unsent[0]),
                model=self.definition.judge,
                duration_ms=ms,
                extra=criterion_extra(criterion),
            )
        timed_out = any(isinstance(c.error, JudgeTimeout) for c in calls)
        return Outcome(
            name=criterion.name,
            status="timeout" if timed_out else "error",
            weight=criterion.weight,
            description=criterion.description,
            error=error or "no reply",
            model=self.definition.judge,
            duration_ms=ms,
            extra=criterion_extra(criterion),
        )

    def _all_failed(self, message: str, started: float) -> JudgeRun:
        ms = round((time.perf_counter() - started) * 1000, 3)
        return failed_run(self.definition, message, duration_ms=ms)


def _graded(calls: Sequence[_Call]) -> _Graded:
    """The call that graded each criterion in one sample (`plan_requests` asks each once)."""
    graded: _Graded = {}
    for call in calls:
        for position, criterion in enumerate(call.request.criteria):
            graded.setdefault(criterion, (call, position))
    return graded


def _own_usage(calls: Sequence[_Call]) -> Usage | None:
    """What `calls`, those grading one criterion, cost when they graded it alone (individual
    mode); None when it shared a batched call, whose usage is the leaf's `usage` alone."""
    if not calls or any(len(c.request.criteria) != 1 for c in calls):
        return None
    return sum((c.usage for c in calls), Usage())


def _trajectory(d: JudgeDefinition, workspace: Path, notes: list[str]) -> list[Block]:
    """The rendered `atif-trajectory` (none when unset); raises ValueError when unusable."""
    if d.atif_trajectory is None:
        return []
    path = trajectory_path(workspace, d.atif_trajectory)
    return render_trajectory(path, warnings_out=notes)


def _usage_of(exc: JudgeError) -> Usage:
    usage = getattr(exc, "usage", None)
    return usage if isinstance(usage, Usage) else Usage()


def _output(calls: Sequence[_Call], samples: int) -> str:
    """The raw replies, labelled per sample when there are several (as RewardKit does)."""
    texts = [c.text for c in calls]
    if samples > 1:
        per = len(calls) // samples
        return "\n".join(
            f"--- sample {i + 1} ---\n" + "\n".join(texts[i * per : (i + 1) * per])
            for i in range(samples)
        )
    return "\n".join(texts)
