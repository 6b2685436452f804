"""Adaptive per-model limits (AIMD): the limiter alone, then a client against a real
server with a hidden rate limit (`ChatServer.capacity`), checked from the server's side.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from server import ChatServer, parse

from rewardkit.models import CompletionRequest, ModelClient, RetryPolicy
from rewardkit.models._aimd import AdaptiveLimiter, Permit
from rewardkit.models._provider import ProviderError
from rewardkit.models._retry import overloaded

Drive = Callable[..., Any]
Make = Callable[..., CompletionRequest]

PATIENT = RetryPolicy(base_delay=0.01, max_delay=0.05, budget=20.0, max_attempts=12)
"""Tiny backoffs, and enough attempts that no call gives up while the limit settles."""


def run(main: Callable[[], Any]) -> Any:
    return asyncio.run(main())


async def turn() -> None:
    """Let every ready task run."""
    for _ in range(3):
        await asyncio.sleep(0)


# -- the limiter -----------------------------------------------------------------------


def test_an_overload_halves_the_limit_once_per_round() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(8)
        permits = [await limiter.acquire() for _ in range(8)]
        assert limiter.backoff(permits[0])
        assert limiter.stats.limit == 4
        assert not limiter.backoff(permits[1])  # sent under the old limit: no new news
        assert limiter.stats.limit == 4
        assert limiter.stats.min_limit == 4
        assert limiter.stats.backoffs == 1

    run(main)


def test_the_limit_never_drops_below_one() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(3)
        for _ in range(5):
            permit = await limiter.acquire()
            limiter.backoff(permit)
            limiter.release(permit)
        assert limiter.stats.limit == 1
        assert limiter.stats.min_limit == 1
        assert limiter.stats.backoffs == 5

    run(main)


def test_a_window_of_successes_raises_the_limit_by_one_up_to_the_maximum() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(6)
        first = await limiter.acquire()
        limiter.backoff(first)  # 6 -> 3
        limiter.release(first)
        limit = limiter.limit
        seen = []
        for _ in range(40):
            permit = await limiter.acquire()
            limiter.success(permit)
            limiter.release(permit)
            if limiter.limit != limit:
                limit = limiter.limit
                seen.append(limit)
        assert seen == [4, 5, 6]  # 3 + 4 + 5 successes, then it stays at the maximum
        assert limiter.stats.min_limit == 3

    run(main)


def test_successes_of_calls_sent_before_a_decrease_do_not_count() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(4)
        old = [await limiter.acquire() for _ in range(4)]
        limiter.backoff(old[0])  # 4 -> 2
        for permit in old[1:]:
            limiter.success(permit)
        assert limiter.limit == 2

    run(main)


def test_unlimited_starts_unlimited_then_halves_the_calls_in_flight() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(None)
        permits = [await limiter.acquire() for _ in range(50)]  # nobody waits
        assert limiter.limit is None
        assert limiter.stats.min_limit is None
        limiter.success(permits[0])
        assert limiter.limit is None
        limiter.backoff(permits[1])
        assert limiter.limit == 25
        assert limiter.stats.min_limit == 25
        for permit in permits:
            limiter.release(permit)
        for _ in range(25 + 26):  # no ceiling: it keeps growing while calls succeed
            permit = await limiter.acquire()
            limiter.success(permit)
            limiter.release(permit)
        assert limiter.limit == 27

    run(main)


def test_waiters_wake_when_the_limit_rises() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(3)
        first = await limiter.acquire()
        limiter.backoff(first)  # 3 -> 1
        limiter.release(first)
        held = await limiter.acquire()
        waiters = [asyncio.ensure_future(limiter.acquire()) for _ in range(3)]
        await turn()
        assert not any(w.done() for w in waiters)
        limiter.success(held)  # a window of 1: the limit is 2, one waiter may start
        await turn()
        assert [w.done() for w in waiters] == [True, False, False]  # first come, first in
        assert limiter.in_flight == 2
        limiter.success(waiters[0].result())  # a window of 2 needs a second success
        await turn()
        assert not waiters[1].done()
        limiter.success(held)
        await turn()
        assert [w.done() for w in waiters] == [True, True, False]
        assert limiter.limit == 3

    run(main)


def test_a_lowered_limit_admits_nobody_until_calls_drop_below_it() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(4)
        permits = [await limiter.acquire() for _ in range(4)]
        waiter = asyncio.ensure_future(limiter.acquire())
        limiter.backoff(permits[0])  # 4 -> 2 with 4 in flight
        for permit in permits[:2]:
            limiter.release(permit)
            await turn()
            assert not waiter.done()
        limiter.release(permits[2])
        await turn()
        assert waiter.done()
        assert limiter.in_flight == 2

    run(main)


def test_a_cancelled_waiter_takes_no_slot() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(1)
        held = await limiter.acquire()
        gone = asyncio.ensure_future(limiter.acquire())
        next_ = asyncio.ensure_future(limiter.acquire())
        await turn()
        gone.cancel()
        await turn()
        limiter.release(held)
        await turn()
        assert gone.cancelled()
        assert next_.done()
        assert limiter.in_flight == 1

    run(main)


def test_a_waiter_cancelled_after_it_was_admitted_hands_its_slot_on() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(1)
        held = await limiter.acquire()
        admitted = asyncio.ensure_future(limiter.acquire())
        next_ = asyncio.ensure_future(limiter.acquire())
        await turn()
        limiter.release(held)  # admits `admitted`, which has not run yet
        admitted.cancel()
        await turn()
        assert admitted.cancelled()
        assert next_.done()
        assert limiter.in_flight == 1
        limiter.release(next_.result())
        assert limiter.in_flight == 0

    run(main)


def test_a_slot_is_released_when_its_call_is_cancelled_and_release_is_idempotent() -> None:
    async def main() -> None:
        limiter = AdaptiveLimiter(2)

        async def call() -> None:
            async with limiter.slot():
                await asyncio.sleep(10)

        task = asyncio.ensure_future(call())
        await turn()
        assert limiter.in_flight == 1
        task.cancel()
        await turn()
        assert limiter.in_flight == 0
        permit = await limiter.acquire()
        limiter.release(permit)
        limiter.release(permit)
        assert limiter.in_flight == 0
        assert isinstance(permit, Permit)

    run(main)


def test_a_maximum_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="maximum must be"):
        AdaptiveLimiter(0)


@pytest.mark.parametrize(("status", "expected"), [(429, True), (503, True), (529, True)])
def test_overload_answers_lower_the_limit(status: int, expected: bool) -> None:
    assert overloaded(ProviderError(status, "busy", {})) is expected


@pytest.mark.parametrize("status", [500, 502, 400, 401])
def test_other_failures_do_not(status: int) -> None:
    assert not overloaded(ProviderError(status, "no", {}))
    assert not overloaded(TimeoutError())


# -- against a rate-limited server -----------------------------------------------------

K = 4
"""The server's hidden limit on requests answered at once."""


def test_the_limit_converges_to_the_servers_and_recovers_when_it_rises(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 0.02
    server.capacity = K
    n, raise_at, maximum = 400, 160, 16
    samples: list[tuple[int, int | None]] = []

    async def main(client: ModelClient) -> list[Any]:
        async def watch() -> None:  # raise the hidden limit mid-run; sample the client's
            while True:
                if server.count >= raise_at and server.capacity == K:
                    server.capacity = 4 * maximum
                limits = client.stats.limits
                model = request_for().model
                samples.append((server.count, limits[model].limit if model in limits else None))
                await asyncio.sleep(0.005)

        watcher = asyncio.ensure_future(watch())
        requests = [request_for(f"criterion {i}") for i in range(n)]
        try:
            return await asyncio.gather(*(client.complete(r, parse=parse) for r in requests))
        finally:
            watcher.cancel()
            stats = client.stats.limits[request_for().model]
            samples.append((server.count, stats.limit))

    results = drive(main, max_concurrent=maximum, retry=PATIENT)
    assert [value for _, value in results] == ["yes"] * n
    loads = server.loads
    raised = next(i for i, (count, _) in enumerate(samples) if count >= raise_at)
    before = [limit for count, limit in samples[:raised] if limit is not None]
    limited = loads[: samples[raised][0]]
    first = next(i for i, (_, refused) in enumerate(limited) if refused)
    settled = limited[first + 2 * maximum :]  # the first burst, and its retries
    peak = max(load for load, _ in settled)
    refused = sum(refused for _, refused in settled)
    print(
        f"\nhidden limit {K}: first 429 at request {first}; after it settled "
        f"{len(settled)} requests, most at once {peak}, {refused} refused; client limit "
        f"{min(before)}..{max(before[len(before) // 2 :])}; "
        f"after the raise: limit {samples[-1][1]}, most at once "
        f"{max(load for load, _ in loads[len(limited) :])}; {server.rejected} 429s in all"
    )
    assert peak <= K + 1
    assert refused <= len(settled) // 6  # about one 429 per sawtooth (2+3+4+5 calls)
    assert max(before[len(before) // 2 :]) <= K + 1
    assert samples[-1][1] == maximum  # recovered all the way once the server allowed it
    assert max(load for load, _ in loads[len(limited) :]) > K + 1


def test_unlimited_backs_off_to_the_servers_limit_on_its_first_429(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 0.02
    server.capacity = K
    n = 160

    async def main(client: ModelClient) -> tuple[list[Any], Any]:
        requests = [request_for(f"criterion {i}") for i in range(n)]
        results = await asyncio.gather(*(client.complete(r, parse=parse) for r in requests))
        return results, client.stats.limits[request_for().model]

    results, stats = drive(main, max_concurrent=0, retry=PATIENT)
    assert len(results) == n
    assert stats.backoffs >= 2
    assert stats.min_limit is not None
    assert stats.min_limit <= K
    assert stats.limit is not None
    assert stats.limit <= K + 1
    assert max(load for load, _ in server.loads[n // 2 :]) <= K + 1
