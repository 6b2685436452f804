"""Run a plan's leaves concurrently, under limits that hold, and record every outcome."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import ExitStack, nullcontext, suppress
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from rewardkit.core._errors import CriterionError, describe_exception
from rewardkit.core._outcome import JudgeRun, Outcome, Status
from rewardkit.criteria import Check
from rewardkit.criteria._result import score_result
from rewardkit.engine._isolation import isolated_view
from rewardkit.engine._plan import Leaf, Plan
from rewardkit.engine._workers import (
    DEFAULT_MEMORY_MB,
    DEFAULT_TIMEOUT,
    WorkerFailed,
    WorkerLimits,
    in_worker,
)

__all__ = ["Limits", "evaluate_check", "limited", "run_check", "run_leaves"]

T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class Limits:
    """How many judges of each kind run at once; `0` means no limit at all."""

    programmatic: int = 8
    """Programmatic criteria (each in its own worker process)."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds a programmatic criterion may run unless it sets its own `timeout`."""
    memory_mb: int | None = DEFAULT_MEMORY_MB
    """Address space each programmatic criterion's process may use (MiB); None: no cap."""
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
    jobs = [(leaf, check) for leaf in leaves for check in leaf.checks]
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
            limited(
                [partial(run_check, check, workspace, limits) for _, check in jobs],
                limits.programmatic,
            ),
            asyncio.gather(*(judge(leaf) for leaf in judged)),
        )
    outcomes: dict[int, list[Outcome]] = {id(leaf): [] for leaf in leaves}
    for (leaf, _), outcome in zip(jobs, checked, strict=True):
        outcomes[id(leaf)].append(outcome)
    result = {key: JudgeRun(outcomes=tuple(found)) for key, found in outcomes.items()}
    result.update({id(leaf): run for leaf, run in zip(judged, runs, strict=True)})
    return result


def _model_client(judged: Sequence[Leaf], limits: Limits) -> Any:
    """One `ModelClient` for the run when it has LLM judges (the transport loads only then)."""
    if not any(leaf.kind == "llm" for leaf in judged):
        return None
    from rewardkit.models import ModelClient

    return ModelClient(max_concurrent=limits.llm, cache_dir=limits.cache_dir)


async def limited(calls: Sequence[Callable[[], Awaitable[T]]], limit: int) -> list[T]:
    """Await `calls`, at most `limit` at a time (`0`: all at once); results in order."""
    if limit <= 0:
        return list(await asyncio.gather(*(call() for call in calls)))
    slots = asyncio.Semaphore(limit)

    async def one(call: Callable[[], Awaitable[T]]) -> T:
        async with slots:
            return await call()

    return list(await asyncio.gather(*(one(call) for call in calls)))


async def run_check(check: Check, workspace: Path, limits: Limits) -> Outcome:
    """Run one criterion in a worker process under its deadline and the memory cap.

    An `isolated` criterion gets a throw-away view of the workspace, made and removed here
    (on worker threads) so that killing the worker cannot leave it behind.
    """
    start = time.perf_counter()
    worker = WorkerLimits(timeout=check.timeout or limits.timeout, memory_mb=limits.memory_mb)
    views = ExitStack()
    try:
        root = workspace
        if check.isolated:
            try:
                root = await asyncio.to_thread(views.enter_context, isolated_view(workspace))
            except Exception as exc:  # e.g. RecursionError copying 2,000 nested directories
                failure = (
                    f"no isolated view of the workspace could be made: {describe_exception(exc)}"
                )
                return _failed(check, "error", failure, start)
        return await in_worker(partial(evaluate_check, check, root), worker)
    except WorkerFailed as exc:
        return _failed(check, exc.status, str(exc), start)
    finally:
        if check.isolated:
            with suppress(Exception):  # a view that cannot be removed must not end the run
                await asyncio.to_thread(views.close)


def _failed(check: Check, status: Status, reason: str, start: float) -> Outcome:
    return Outcome(
        name=check.name,
        status=status,
        weight=check.weight,
        description=check.description,
        error=f"{check.name}: {reason}",
        duration_ms=_ms(start),
    )


def evaluate_check(check: Check, workspace: Path) -> Outcome:
    """Run one programmatic criterion in this process; any failure becomes an `error` outcome."""
    start = time.perf_counter()
    code = getattr(check.fn, "__code__", None)
    source = Path(code.co_filename) if code else None
    base = Outcome(
        name=check.name, status="error", weight=check.weight, description=check.description
    )
    try:
        scored = score_result(check.name, check.evaluate(workspace))
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
