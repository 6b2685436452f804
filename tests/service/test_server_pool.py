"""`Workers`, the server's scoring processes: slots, deadlines, abandoned requests."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from typing import Any

from serve_rewards import exact, slow

import rewardkit as rk
from rewardkit.server._pool import Workers


def test_requests_cut_short_by_their_deadline_free_their_slots() -> None:
    async def main() -> tuple[dict[str, Any], float]:
        pool = Workers(rk.load([slow, exact]), size=2, deadline=None)
        try:
            for _ in range(6):  # each hangs until its request's deadline ends its processes
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(pool.score({"completion": "hang"}), 0.05)
            start = time.perf_counter()
            result = await pool.score({"completion": "4", "ground_truth": "4"})
            return result, time.perf_counter() - start
        finally:
            pool.close()

    result, took = asyncio.run(main())
    assert result["valid"] is True
    assert took < 5  # not stuck behind a hung sample: its slot got fresh processes


def test_the_processes_start_with_the_first_sample_and_end_with_close() -> None:
    pool = Workers(rk.load([exact]), size=2, deadline=1)
    assert pool._pool is None
    result = asyncio.run(pool.score({"completion": "4", "ground_truth": "4"}))
    assert result["reward"] == 1.0
    assert pool._pool is not None
    pids = [slot.pid for slot in pool._pool[0]._slots]
    pool.close()
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}") or _zombie(pid)


def _zombie(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
