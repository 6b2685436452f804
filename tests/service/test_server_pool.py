"""`Workers`, the server's scoring processes: slots, starts, kills."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import subprocess
import sys
from typing import Any

from serve_rewards import exact

import rewardkit as rk
from rewardkit.server._pool import Workers, recipe_for


def _scorers() -> int:
    return sum(p.name == "rewardkit-scorer" for p in multiprocessing.active_children())


def test_starts_cut_short_by_deadlines_never_outnumber_the_slots() -> None:
    async def main() -> tuple[dict[str, Any], int]:
        pool = Workers(recipe_for(rk.load([exact])), size=2, deadline=None)
        try:
            for _ in range(20):  # each request's deadline passes while a process starts
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(pool.score({"completion": "x"}), 0.01)
            result = await pool.score({"completion": "4", "ground_truth": "4"})
            return result, _scorers()
        finally:
            pool.close()

    result, processes = asyncio.run(main())
    assert result["reward"] == 1.0  # served by a process whose start outlived its request
    assert processes <= 2


def test_a_scoring_process_imports_no_fastapi() -> None:
    probe = "import sys, rewardkit.server._worker\nprint('fastapi' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
