"""Run blocking calls on worker threads under a limit that holds (`0` = one thread each)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["in_threads"]

T = TypeVar("T")


async def in_threads(calls: Sequence[Callable[[], T]], limit: int) -> list[T]:
    """Run `calls` concurrently, at most `limit` at a time; results in order.

    A dedicated pool is sized to the limit, so "unlimited" is not silently capped by the
    default executor's thread count.
    """
    if not calls:
        return []
    loop = asyncio.get_running_loop()
    workers = limit if limit > 0 else len(calls)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="rewardkit") as pool:
        return list(await asyncio.gather(*(loop.run_in_executor(pool, call) for call in calls)))
