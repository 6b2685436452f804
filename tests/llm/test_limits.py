"""`ModelClient` under load: per-model limits, shared identical requests, closing clients
(for each provider).

The server counts the requests it was answering at the same moment, so the limits are
checked on the wire, not from the client's own bookkeeping.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest
from server import PROVIDERS, ChatServer, Reply, error, ok, parse, slow

from rewardkit.core._errors import JudgeAuthError
from rewardkit.models import CompletionRequest, ModelClient

Drive = Callable[..., Any]
Make = Callable[..., CompletionRequest]


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# -- limits ----------------------------------------------------------------------------


def many(n: int, request_for: Make, **fields: Any) -> Callable[[ModelClient], Any]:
    async def main(client: ModelClient) -> list[Any]:
        requests = [request_for(f"criterion {i}", **fields) for i in range(n)]
        return await asyncio.gather(*(client.complete(r, parse=parse) for r in requests))

    return main


def test_in_flight_calls_never_exceed_the_limit(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 0.05
    results = drive(many(24, request_for), max_concurrent=4)
    assert len(results) == 24
    assert server.count == 24
    assert server.max_in_flight == 4


def test_the_limit_holds_through_retries(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 0.03
    seen: set[str] = set()

    def first_fails(body: dict[str, Any]) -> Reply:
        content = body["messages"][-1]["content"]
        if content in seen:
            return ok()
        seen.add(content)
        return error(429, retry_after=0) if len(seen) % 2 else error(500)

    server.respond_with(first_fails)
    results = drive(many(16, request_for), max_concurrent=3)
    assert all(r[0].attempts == 2 for r in results)
    assert server.count == 32
    assert server.max_in_flight == 3


def test_zero_means_unlimited(drive: Drive, server: ChatServer, request_for: Make) -> None:
    server.latency = 0.3
    drive(many(12, request_for), max_concurrent=0)
    assert server.max_in_flight > 8  # not even the default limit applies


def test_each_model_has_its_own_limiter(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 0.05

    async def main(client: ModelClient) -> None:
        await asyncio.gather(
            many(8, request_for, model=request_for().model + "-a")(client),
            many(8, request_for, model=request_for().model + "-b")(client),
        )
        assert client.stats.max_in_flight == 4

    drive(main, max_concurrent=2)
    assert server.max_in_flight == 4


# -- sharing identical requests --------------------------------------------------------


def test_identical_requests_in_flight_share_one_call(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 0.1

    async def main(client: ModelClient) -> list[Any]:
        same = [request_for() for _ in range(5)]
        results = await asyncio.gather(*(client.complete(r, parse=parse) for r in same))
        assert client.stats.shared == 4
        return results

    results = drive(main)
    assert server.count == 1
    assert [r.shared for r, _ in results] == [False, True, True, True, True]
    assert [r.attempts for r, _ in results] == [1, 0, 0, 0, 0]
    assert [v for _, v in results] == ["yes"] * 5
    assert sum(r.usage.input_tokens for r, _ in results) == 12  # paid once, counted once


def test_samples_are_never_shared(drive: Drive, server: ChatServer, request_for: Make) -> None:
    async def main(client: ModelClient) -> None:
        await asyncio.gather(*(client.complete(request_for(sample=i)) for i in range(3)))

    drive(main)
    assert server.count == 3


def test_a_shared_failure_reaches_every_caller(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 0.05

    async def main(client: ModelClient) -> list[Any]:
        same = [request_for(api_key="sk-nope-000000000") for _ in range(3)]
        return await asyncio.gather(*(client.complete(r) for r in same), return_exceptions=True)

    outcomes = drive(main)
    assert server.count == 1
    assert all(isinstance(o, JudgeAuthError) for o in outcomes)


def test_cancelling_one_caller_leaves_the_shared_call_running(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 0.2

    async def main(client: ModelClient) -> Any:
        first = asyncio.ensure_future(client.complete(request_for(), parse=parse))
        second = asyncio.ensure_future(client.complete(request_for(), parse=parse))
        await asyncio.sleep(0.05)
        first.cancel()
        result = await second
        assert first.cancelled()
        return result

    result, value = drive(main)
    assert value == "yes"
    assert result.shared
    assert server.count == 1


def test_a_request_whose_caller_left_is_cancelled(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.latency = 1.0

    async def main(client: ModelClient) -> None:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.1):
                await client.complete(request_for())
        for _ in range(50):  # the HTTP client closes the connection in a few loop turns
            if client.stats.in_flight == 0:
                break
            await asyncio.sleep(0.01)
        assert client.stats.in_flight == 0

    drive(main)


def test_closing_one_client_spares_another_ones_calls(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    async def main(client: ModelClient) -> Any:
        server.script(slow(0.3))
        pending = asyncio.ensure_future(client.complete(request_for("slow one"), parse=parse))
        await asyncio.sleep(0.1)  # the slow call is on the wire
        async with ModelClient() as other:
            await other.complete(request_for("quick one"))
        async with ModelClient() as third:  # a new client after the others closed
            await third.complete(request_for("late one"))
        return await pending

    result, value = drive(main)
    assert value == "yes"
    assert result.attempts == 1
    assert server.count == 3


def test_a_client_after_the_last_one_closed_opens_fresh_sessions(
    server: ChatServer, request_for: Make
) -> None:
    async def main() -> Any:
        async with ModelClient() as first:
            await first.complete(request_for("one"))
        async with ModelClient() as second:
            return await second.complete(request_for("two"))

    result, _ = asyncio.run(main())
    assert result.attempts == 1
    assert server.count == 2
