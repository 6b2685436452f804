"""A per-model concurrency limit that adapts to the provider's load (AIMD).

`AdaptiveLimiter` admits calls while fewer than `limit` are in flight, like a semaphore,
but its `limit` moves while calls run and wait:

- **Multiplicative decrease.** A call that met an overload answer (HTTP 429, 503, 529)
  reports it with `backoff(permit)`: the limit halves, never below 1. Only one decrease per
  round: calls that started before the last decrease were sent under the old limit, so
  their overload answers are not new news and are ignored (as TCP halves its window once
  per round trip, not once per lost packet).
- **Additive increase.** Each success of a call started since the last decrease counts;
  after `limit` of them (one window of calls) the limit rises by 1, up to `maximum`.
- **Unlimited.** With `maximum=None` (`--max-concurrent-llm 0`) the limiter starts
  unlimited; the first overload answer sets the limit to half the calls then in flight
  (at least 1), and from there it adapts as above with no ceiling.

Waiters are admitted first come, first served whenever a call ends or the limit rises;
a lowered limit admits nobody until the calls in flight drop below it. Waiting is a FIFO
of futures rather than an `asyncio.Condition`: `release` stays synchronous (so it runs in
a `finally` even while the task is being cancelled), each free slot wakes one waiter, and
a waiter cancelled after it was admitted hands its slot on (on Python 3.11 a
`Condition.notify` delivered to a waiter that is then cancelled is lost).

    limiter = AdaptiveLimiter(8)
    async with limiter.slot() as permit:
        try:
            answer = await send()
        except RateLimited:
            limiter.backoff(permit)
            raise
        limiter.success(permit)
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

__all__ = ["AdaptiveLimiter", "LimitStats", "Permit"]


@dataclass
class LimitStats:
    """Where one model's limit stands, for a run's summary (updated live)."""

    limit: int | None
    """Calls allowed in flight now (`None`: unlimited, no overload seen yet)."""
    min_limit: int | None
    """The lowest the limit went (`None`: never limited)."""
    backoffs: int = 0
    """How many times an overload answer lowered the limit."""


@dataclass
class Permit:
    """One admitted call; hand it back to `backoff`, `success` and `release`."""

    epoch: int
    """How many decreases had happened when the call was admitted."""
    released: bool = False


class AdaptiveLimiter:
    """Admits calls up to a limit that halves on overload and grows by one per window.

    Args:
        maximum: the most calls in flight ever allowed, and the starting limit; `None`
            starts unlimited (see the module docstring).
    """

    def __init__(self, maximum: int | None) -> None:
        if maximum is not None and maximum < 1:
            raise ValueError(f"maximum must be ≥ 1 or None for unlimited (got {maximum})")
        self.maximum = maximum
        self.stats = LimitStats(limit=maximum, min_limit=maximum)
        self.in_flight = 0
        """Calls admitted and not yet released (admitted waiters included)."""
        self._epoch = 0
        self._successes = 0
        self._waiters: collections.deque[asyncio.Future[int]] = collections.deque()

    @property
    def limit(self) -> int | None:
        """Calls allowed in flight now (`None`: unlimited)."""
        return self.stats.limit

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[Permit]:
        """`acquire` on entry, `release` on exit (also when cancelled)."""
        permit = await self.acquire()
        try:
            yield permit
        finally:
            self.release(permit)

    async def acquire(self) -> Permit:
        """Wait until a call may start; cancelling the wait gives nothing away."""
        if not self._waiters and self._free():
            self.in_flight += 1
            return Permit(self._epoch)
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        try:
            epoch = await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():  # admitted, then cancelled
                self.in_flight -= 1
                self._wake()
            else:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(future)
            raise
        return Permit(epoch)

    def release(self, permit: Permit) -> None:
        """End an admitted call (idempotent) and admit the next waiters that fit."""
        if permit.released:
            return
        permit.released = True
        self.in_flight -= 1
        self._wake()

    def backoff(self, permit: Permit) -> bool:
        """Report an overload answer to `permit`'s call; `True` if the limit was lowered."""
        if permit.epoch != self._epoch:
            return False  # sent before the last decrease, which already accounted for it
        stats = self.stats
        base = stats.limit if stats.limit is not None else self.in_flight
        stats.limit = max(1, base // 2)
        low = stats.min_limit
        stats.min_limit = stats.limit if low is None else min(low, stats.limit)
        stats.backoffs += 1
        self._epoch += 1
        self._successes = 0
        return True

    def success(self, permit: Permit) -> None:
        """Report a successful answer; a window of them raises the limit by one."""
        limit = self.stats.limit
        if limit is None or permit.epoch != self._epoch:
            return
        if self.maximum is not None and limit >= self.maximum:
            return
        self._successes += 1
        if self._successes >= limit:
            self._successes = 0
            self.stats.limit = limit + 1
            self._wake()

    def _free(self) -> bool:
        return self.stats.limit is None or self.in_flight < self.stats.limit

    def _wake(self) -> None:
        while self._waiters and self._free():
            future = self._waiters.popleft()
            if not future.done():
                self.in_flight += 1
                future.set_result(self._epoch)
