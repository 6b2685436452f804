"""`Workers`: the server's samples in the batch pool's worker processes (`ForkedPool`).

A thread cannot be stopped: with threads, a hung judge keeps its slot until it returns, and a
few hung samples take the whole service. Here each sample is scored in a worker process forked
from the server, which the sample deadline kills (see `batch/_forked.py`); a request cancelled
by its own deadline ends its sample's processes too, and the slot gets fresh ones. At most
`size` samples are scored at once. The processes start with the first request and inherit the
loaded reward, so nothing is pickled but samples and results. A scorer that has a pool of its
own (loaded with a deadline, or an eval.yaml with code judges) lends it when it fits.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

from rewardkit.batch import SampleResult, Scorer
from rewardkit.batch._forked import ForkedPool, Ticket
from rewardkit.core._errors import RewardKitError

__all__ = ["WorkerError", "Workers"]


class WorkerError(RewardKitError, RuntimeError):
    """The scoring processes could not start (e.g. the system is out of processes)."""


class Workers:
    """Up to `size` samples at once in worker processes; one past `deadline` seconds is invalid.

    Args:
        scorer: the loaded reward (its backend and error policy).
        size: samples scored at once.
        deadline: seconds per sample (then an invalid result); `None`: no limit.
    """

    def __init__(self, scorer: Scorer, *, size: int, deadline: float | None) -> None:
        self.size = size
        self.deadline = deadline
        self._scorer = scorer
        self._pool: tuple[ForkedPool, ThreadPoolExecutor] | None = None
        self._owned = False

    async def score(self, sample: Mapping[str, Any]) -> dict[str, Any]:
        """Score `sample`; return the fields of `ResultOut` but `metadata`.

        Raises:
            WorkerError: the scoring processes could not be started.
        """
        pool, threads = self._started()
        ticket = Ticket()
        loop = asyncio.get_running_loop()
        work = loop.run_in_executor(threads, partial(pool.score_chunk, ticket=ticket), [sample])
        try:
            (result,) = await work
        except asyncio.CancelledError:  # the request's deadline: end the sample's processes
            pool.abandon(ticket)
            raise
        return _plain(result)

    def close(self) -> None:
        """Kill every scoring process (a later sample starts them again)."""
        if self._pool is not None:
            pool, threads = self._pool
            self._pool = None
            if self._owned:  # a scorer's own pool is the scorer's to close
                pool.close()
            self._owned = False
            threads.shutdown(wait=False, cancel_futures=True)

    def _started(self) -> tuple[ForkedPool, ThreadPoolExecutor]:
        if self._pool is None:
            scorer = self._scorer
            pool = scorer._forked  # the scorer's own (a deadline, or eval.yaml code judges)
            if (
                pool is None
                or pool.size != self.size
                or (self.deadline is not None and pool.deadline != self.deadline)
            ):
                try:
                    pool = scorer._new_pool(self.size, self.deadline)
                except OSError as exc:
                    raise WorkerError(f"could not start the scoring processes: {exc}") from exc
                self._owned = True
            self._pool = pool, ThreadPoolExecutor(self.size, thread_name_prefix="rewardkit-serve")
        return self._pool


def _plain(result: SampleResult) -> dict[str, Any]:
    """The fields of `ResultOut` but `metadata`, as plain data."""
    return {
        "reward": result.reward,
        "valid": result.valid,
        "judges": result.judges,
        "rewards": result.rewards,
        "error": result.error,
        "reason": result.reason,
        "duration_s": result.duration_s,
    }
