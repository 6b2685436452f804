"""Run a plan's leaves concurrently, under limits that hold, and record every outcome."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from rewardkit._errors import CriterionError, describe_exception
from rewardkit._outcome import JudgeRun, Outcome
from rewardkit._plan import Leaf, Plan
from rewardkit.criteria import Check
from rewardkit.criteria._result import score_result
from rewardkit.engine._isolation import isolated_view
from rewardkit.engine._threads import in_threads

__all__ = ["Limits", "run_leaves"]


@dataclass(frozen=True, kw_only=True)
class Limits:
    """How many judges of each kind run at once; `0` means no limit at all."""

    programmatic: int = 8
    """Programmatic criteria (each in its own worker thread)."""
    llm: int = 8
    """LLM calls in flight per model, across every criterion, sample and reward of the run."""
    agent: int = 2
    """Agent CLI processes running at once, across every judge, sample and criterion of
    the run; JEV judges running at once."""
    cache_dir: Path | None = None
    """Where LLM judge verdicts are cached (`--cache`); None: no cache."""


async def run_leaves(
    plans: Sequence[Plan], workspace: Path, limits: Limits = Limits()
) -> dict[int, JudgeRun]:
    """Run every leaf of `plans` under one set of limits; return each leaf's run by `id(leaf)`.

    Never raises because of a criterion or a judge: failures are `error` outcomes.
    """
    leaves = [leaf for plan in plans for leaf in plan.leaves()]
    jobs = [(leaf, check) for leaf in leaves if leaf.load_error is None for check in leaf.checks]
    judged = [leaf for leaf in leaves if leaf.judge is not None]
    agents = asyncio.Semaphore(limits.agent) if limits.agent > 0 else None
    client = _model_client(judged, limits)

    async def judge(leaf: Leaf) -> JudgeRun:
        if leaf.kind == "llm":
            run: JudgeRun = await leaf.judge.evaluate(workspace, client)  # client limits calls
            return run
        if leaf.kind == "agent":  # takes a permit per CLI process, not per judge
            run = await leaf.judge.evaluate(workspace, None, limiter=agents)
            return run
        async with agents if agents is not None else nullcontext():
            run = await leaf.judge.evaluate(workspace, None)
            return run

    async with client if client is not None else nullcontext():
        checked, runs = await asyncio.gather(
            in_threads(
                [partial(evaluate_check, check, workspace) for _, check in jobs],
                limits.programmatic,
            ),
            asyncio.gather(*(judge(leaf) for leaf in judged)),
        )
    outcomes: dict[int, list[Outcome]] = {id(leaf): [] for leaf in leaves}
    for (leaf, _), outcome in zip(jobs, checked, strict=True):
        outcomes[id(leaf)].append(outcome)
    result = {key: JudgeRun(outcomes=tuple(found)) for key, found in outcomes.items()}
    result.update({id(leaf): run for leaf, run in zip(judged, runs, strict=True)})
    for leaf in leaves:
        if leaf.load_error is not None:
            failed = Outcome(
                name=leaf.source.name,
                status="error",
                description=f"Load {leaf.source.name}",
                error=leaf.load_error,
            )
            result[id(leaf)] = JudgeRun(outcomes=(failed,))
    return result


def _model_client(judged: Sequence[Leaf], limits: Limits) -> Any:
    """One `ModelClient` for the run when it has LLM judges (the transport loads only then)."""
    if not any(leaf.kind == "llm" for leaf in judged):
        return None
    from rewardkit.judges._transport import ModelClient

    return ModelClient(max_concurrent=limits.llm, cache_dir=limits.cache_dir)


def evaluate_check(check: Check, workspace: Path) -> Outcome:
    """Run one programmatic criterion; any failure becomes an `error` outcome."""
    start = time.perf_counter()
    code = getattr(check.fn, "__code__", None)
    source = Path(code.co_filename) if code else None
    base = Outcome(
        name=check.name, status="error", weight=check.weight, description=check.description
    )
    try:
        with isolated_view(workspace) if check.isolated else nullcontext(workspace) as root:
            result = check.evaluate(root)
        scored = score_result(check.name, result)
    except CriterionError as exc:
        where = f" (defined in {source.name}:{code.co_firstlineno})" if source and code else ""
        error = f"{str(exc).rstrip('.')}{where}."
        return replace(base, error=error, duration_ms=_ms(start))
    except (Exception, SystemExit) as exc:  # sys.exit() in a criterion must not end the run
        return replace(base, error=describe_exception(exc, source), duration_ms=_ms(start))
    return replace(
        base,
        status="scored",
        value=scored.value,
        raw=scored.raw,
        reasoning=scored.reasoning,
        confidence=scored.confidence,
        model=scored.model,
        duration_ms=_ms(start),
    )


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)
