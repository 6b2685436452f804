"""`ModelClient` against answers that are too big, too slow or elsewhere: the size cap on the
decoded body, the one deadline for a whole request, and redirects (refused, never followed).

The hostile endpoints are raw sockets (`tests/hostile/_model_server.py`); the end-to-end runs
with their time and memory figures are in `tests/hostile/test_model_answers.py`.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from server import KEY, PROVIDERS, ChatServer, error, ok, slow
from tests.hostile import _model_server as hostile

from rewardkit.core._errors import (
    ConfigError,
    JudgeBadReply,
    JudgeError,
    JudgeTimeout,
    JudgeUnavailable,
)
from rewardkit.models import CompletionRequest, ModelClient
from rewardkit.models._http import CAP_ENV, answer_cap

Drive = Callable[..., Any]
Make = Callable[..., CompletionRequest]
CAP = 4096
"""The cap these tests set (bytes), so answers at and past it are small."""


@pytest.fixture
def capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CAP_ENV, str(CAP / (1 << 20)))


@pytest.fixture
def model(provider: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The model name for `provider`, its transport set as the `server` fixture does."""
    if provider == "litellm":
        request.getfixturevalue("litellm")
        monkeypatch.setenv("REWARDKIT_TRANSPORT", "litellm")
    return "anthropic/test-model" if provider == "anthropic" else "openai/test-model"


def ask(drive: Drive, url: str, model: str = "openai/test-model", **fields: Any) -> Any:
    request = CompletionRequest(
        model=model,
        messages=[{"role": "user", "content": "Is the file there?"}],
        api_base=url,
        api_key=KEY,
        **{"timeout": 5.0, **fields},
    )
    return drive(lambda client: client.complete(request))


def fails(drive: Drive, url: str, model: str = "openai/test-model", **fields: Any) -> JudgeError:
    with pytest.raises(JudgeError) as info:
        ask(drive, url, model, **fields)
    return info.value


EMPTY = json.dumps({"choices": [{"message": {"content": ""}}]}).encode()


def completion(size: int) -> bytes:
    """A chat completion of exactly `size` bytes, its content `a` repeated."""
    return EMPTY.replace(b'""', b'"' + b"a" * (size - len(EMPTY)) + b'"')


def answered(size: int, zipped: bool) -> hostile.ModelServer:
    """A server answering `completion(size)`, gzipped or not."""
    data = completion(size)
    return hostile.ModelServer(hostile.body(gzip.compress(data) if zipped else data, gzip=zipped))


@pytest.fixture
def endpoint(request: pytest.FixtureRequest) -> Iterator[hostile.ModelServer]:
    with hostile.ModelServer(request.param) as server:
        yield server


# -- the cap on the decoded body -------------------------------------------------------


@pytest.mark.parametrize("zipped", [False, True], ids=["plain", "gzip"])
def test_an_answer_of_the_cap_is_read(drive: Drive, capped: None, zipped: bool) -> None:
    with answered(CAP, zipped) as server:
        result, _ = ask(drive, server.url)
    assert result.text == "a" * (CAP - len(EMPTY))


@pytest.mark.parametrize("zipped", [False, True], ids=["plain", "gzip"])
def test_one_byte_past_the_cap_is_refused(drive: Drive, capped: None, zipped: bool) -> None:
    with answered(CAP + 1, zipped) as server:
        error_ = fails(drive, server.url)
        assert server.count == 1  # refused, not retried
    assert isinstance(error_, JudgeBadReply)
    assert f"the answer was refused (model answer exceeded {CAP} bytes" in str(error_)
    assert CAP_ENV in str(error_)


def test_gzip_members_one_after_another_are_one_answer(drive: Drive) -> None:
    data = completion(3000)
    members = gzip.compress(data[:1000]) + gzip.compress(data[1000:])
    with hostile.ModelServer(hostile.body(members, gzip=True)) as server:
        result, _ = ask(drive, server.url)
    assert result.text == "a" * (3000 - len(EMPTY))


def test_an_encoding_not_asked_for_is_refused(drive: Drive) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: 2\r\n\r\n{}"
    with hostile.ModelServer(lambda sock, _: sock.sendall(head)) as server:
        error_ = fails(drive, server.url)
        assert server.count == 1
    assert "Content-Encoding 'br' was not asked for (only gzip is)" in str(error_)


def test_json_nested_past_the_parsers_depth_is_not_json(drive: Drive) -> None:
    with hostile.ModelServer(hostile.body(b"[" * 200_000)) as server:
        error_ = fails(drive, server.url)
    assert isinstance(error_, JudgeUnavailable)
    assert "is not JSON: '[[[" in str(error_)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, 16 << 20), ("", 16 << 20), ("0.5", 512 << 10), ("64", 64 << 20)],
)
def test_the_cap_setting(value: str | None, expected: int) -> None:
    assert answer_cap({} if value is None else {CAP_ENV: value}) == expected


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "lots"])
def test_a_bad_cap_setting_names_the_variable(value: str) -> None:
    with pytest.raises(ConfigError, match=f"{CAP_ENV} must be a positive number of MiB"):
        answer_cap({CAP_ENV: value})


# -- one deadline for the whole request --------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "endpoint", [hostile.drip(0.05), hostile.silent()], ids=["drip", "silent"], indirect=True
)
def test_the_timeout_ends_a_drip_or_silence(
    drive: Drive, endpoint: hostile.ModelServer, model: str
) -> None:
    started = time.perf_counter()
    error_ = fails(drive, endpoint.url, model, timeout=1.0)
    assert time.perf_counter() - started < 5  # ≈1.0 s; a drip never ends by itself
    assert isinstance(error_, JudgeTimeout)
    assert endpoint.count == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_no_retry_starts_that_would_pass_the_timeout(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(error(503, "overloaded", retry_after=5))
    started = time.perf_counter()
    with pytest.raises(JudgeUnavailable, match="a retry would pass the 1s timeout"):
        drive(lambda client: client.complete(request_for(timeout=1.0)))
    assert time.perf_counter() - started < 0.9  # a retry would wait 5 s first
    assert server.count == 1


def test_asking_again_shares_the_timeout(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(then=slow(0.4, "no JSON here"))
    started = time.perf_counter()

    def parse(text: str) -> str:
        raise ValueError("not JSON")

    with pytest.raises(JudgeTimeout):
        drive(lambda client: client.complete(request_for(timeout=1.0), parse=parse))
    assert time.perf_counter() - started < 5  # ≈1.0 s
    assert server.count == 3  # the third call is cut at 1.0 s, not at 1.2 s


def test_waiting_for_the_limiter_is_not_the_requests_time(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(then=ok(delay=0.6))

    async def main(client: ModelClient) -> list[Any]:
        requests = [request_for(f"criterion {i}", timeout=1.0) for i in range(2)]
        return await asyncio.gather(*(client.complete(r) for r in requests))

    results = drive(main, max_concurrent=1)  # the second waits 0.6 s, then takes 0.6 s
    assert len(results) == 2
    assert server.max_in_flight == 1


# -- redirects ---------------------------------------------------------------------------


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_refused_and_not_followed(drive: Drive, status: int) -> None:
    with hostile.ModelServer(hostile.body(completion(100))) as elsewhere:
        target = f"{elsewhere.url}/chat/completions"
        with hostile.ModelServer(hostile.redirect(target, status)) as server:
            error_ = fails(drive, server.url)
            assert server.count == 1
        assert elsewhere.count == 0
    assert isinstance(error_, JudgeBadReply)
    assert f"the endpoint redirected (HTTP {status}) to '{target}', which is not followed" in str(
        error_
    )
