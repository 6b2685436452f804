"""Run plans: their leaves under limits, then fold each plan's outcomes into scores."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from rewardkit.core._outcome import ErrorPolicy
from rewardkit.engine._fold import RunResult, fold
from rewardkit.engine._leaves import Limits, run_leaves
from rewardkit.engine._plan import Plan

__all__ = ["execute", "execute_async"]


async def execute_async(
    plans: Sequence[Plan],
    workspace: Path,
    *,
    limits: Limits = Limits(),
    on_error: ErrorPolicy = "zero",
) -> list[RunResult]:
    """Run `plans` against `workspace` (under one set of limits) and fold each."""
    runs = await run_leaves(plans, workspace, limits)
    return [fold(plan, runs, on_error) for plan in plans]


def execute(
    plans: Sequence[Plan],
    workspace: Path,
    *,
    limits: Limits = Limits(),
    on_error: ErrorPolicy = "zero",
) -> list[RunResult]:
    """Synchronous `execute_async`."""
    return asyncio.run(execute_async(plans, workspace, limits=limits, on_error=on_error))
