"""`ModelClient` against a real chat server: replies, retries, what is sent.

Every case runs for each provider (native OpenAI, native Anthropic, LiteLLM) unless it is
about one protocol's body, and checks what the caller got and what the server saw (how
many requests, their bodies and headers), so retry counts are the server's, not the client's.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest
from server import KEY, PROVIDERS, VALID, ChatServer, drop, error, ok, parse, slow

from rewardkit.core._errors import (
    JudgeAuthError,
    JudgeBadReply,
    JudgeError,
    JudgeRateLimited,
    JudgeRequestError,
    JudgeTimeout,
    JudgeUnavailable,
)
from rewardkit.models import CompletionRequest, RetryPolicy

Drive = Callable[..., Any]
Make = Callable[..., CompletionRequest]
SCHEMA = {
    "type": "object",
    "properties": {
        "score": {"type": "string", "enum": ["yes", "no"]},
        "reasoning": {"type": "string"},
    },
    "required": ["score", "reasoning"],
    "additionalProperties": False,
}
KEY_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
KEY_ENV["litellm"] = KEY_ENV["openai"]
CHAT = ["openai", "litellm"]
"""The providers that speak chat completions (their bodies have `response_format`)."""


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def one(drive: Drive, request: CompletionRequest, **client: Any) -> Any:
    return drive(lambda c: c.complete(request, parse=parse), **client)


def fails(drive: Drive, request: CompletionRequest, **client: Any) -> JudgeError:
    with pytest.raises(JudgeError) as info:
        one(drive, request, **client)
    return info.value


# -- replies ---------------------------------------------------------------------------


def test_valid_json_reply(drive: Drive, server: ChatServer, request_for: Make) -> None:
    result, value = one(drive, request_for())
    assert value == "yes"
    assert result.text == VALID
    assert (result.attempts, result.cached, result.shared) == (1, False, False)
    assert result.usage.as_dict() == {
        "input_tokens": 12,
        "output_tokens": 5,
        "total_tokens": 17,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "reasoning_output_tokens": 0,
    }
    assert result.duration_ms > 0
    (body,) = server.requests
    assert body["model"] == "test-model"
    assert body["messages"][-1] == {"role": "user", "content": "Is the file there?"}


def test_fenced_json_reply(drive: Drive, server: ChatServer, request_for: Make) -> None:
    server.script(ok(f"```json\n{VALID}\n```"))
    result, value = one(drive, request_for())
    assert value == "yes"
    assert result.attempts == 1
    assert server.count == 1


def test_garbage_then_valid_is_asked_again(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(ok("I think it is fine."), ok(VALID))
    result, value = one(drive, request_for())
    assert value == "yes"
    assert result.attempts == 2
    assert server.count == 2
    assert result.usage.input_tokens == 24  # both replies were paid for


def test_three_unusable_replies_are_a_bad_reply(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(then=ok("no JSON here, sorry"))
    error_ = fails(drive, request_for())
    assert isinstance(error_, JudgeBadReply)
    assert isinstance(error_, ValueError)
    assert server.count == 3
    assert error_.attempts == 3
    assert error_.usage is not None
    assert error_.usage.input_tokens == 36
    assert "none of 3 replies could be used (not JSON" in str(error_)
    assert "no JSON here, sorry" in str(error_)


def test_without_a_parser_the_text_is_returned(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(ok("free text"))
    result, value = drive(lambda c: c.complete(request_for()))
    assert (result.text, value, server.count) == ("free text", None, 1)


# -- transient failures ----------------------------------------------------------------


def test_429_honours_retry_after(drive: Drive, server: ChatServer, request_for: Make) -> None:
    server.script(error(429, "slow down", retry_after=1))
    started = time.perf_counter()
    result, value = one(drive, request_for())
    assert value == "yes"
    assert result.attempts == 2
    assert server.count == 2
    assert time.perf_counter() - started >= 1.0  # the backoff alone would be ~10 ms


def test_429_until_the_attempts_run_out(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(then=error(429, "Rate limit reached for requests"))
    error_ = fails(drive, request_for())
    assert isinstance(error_, JudgeRateLimited)
    assert isinstance(error_, JudgeUnavailable)
    assert server.count == 4
    assert error_.attempts == 4
    assert error_.status == 429
    assert "rate limited by the provider (HTTP 429: " in str(error_)
    assert "Lower --max-concurrent-llm" in str(error_)


def test_a_retry_after_beyond_the_budget_gives_up_at_once(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(error(429, retry_after=3600))
    error_ = fails(drive, request_for())
    assert isinstance(error_, JudgeRateLimited)
    assert server.count == 1
    assert "asked to wait 3600s, beyond the 20s retry budget" in str(error_)


def test_500s_then_success(drive: Drive, server: ChatServer, request_for: Make) -> None:
    server.script(error(500), error(502), ok(VALID))
    result, _ = one(drive, request_for())
    assert result.attempts == 3
    assert server.count == 3


def test_503s_until_the_attempts_run_out(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(then=error(503, "overloaded"))
    error_ = fails(drive, request_for())
    assert type(error_) is JudgeUnavailable
    assert server.count == 4
    assert "the provider failed (HTTP 503: " in str(error_)
    assert "overloaded" in str(error_)


def test_a_connection_reset_is_retried(drive: Drive, server: ChatServer, request_for: Make) -> None:
    server.script(drop())
    result, _ = one(drive, request_for())
    assert result.attempts == 2
    assert server.count == 2


def test_a_reply_slower_than_the_timeout(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(then=slow(3))
    started = time.perf_counter()
    error_ = fails(drive, request_for(timeout=0.3))
    assert isinstance(error_, JudgeTimeout)
    assert isinstance(error_, TimeoutError)
    assert server.count == 1  # the timeout bounds the whole request: no retry after it
    assert error_.attempts == 1
    assert time.perf_counter() - started < 2.0  # ≈0.3 s; the reply would take 3 s
    assert "no reply within the 0.3s timeout" in str(error_)


def test_retries_share_the_one_timeout(drive: Drive, server: ChatServer, request_for: Make) -> None:
    server.script(error(500), then=slow(3))
    started = time.perf_counter()
    error_ = fails(drive, request_for(timeout=0.5))
    assert isinstance(error_, JudgeTimeout)
    assert server.count == 2
    assert time.perf_counter() - started < 2.5  # ≈0.5 s; the second reply would take 3 s


# -- permanent failures ----------------------------------------------------------------


def test_a_wrong_key_is_an_auth_error_without_retry(
    drive: Drive, server: ChatServer, request_for: Make, provider: str
) -> None:
    wrong = "sk-wrong-key-9876543210"
    error_ = fails(drive, request_for(api_key=wrong))
    assert isinstance(error_, JudgeAuthError)
    assert error_.status == 401
    assert server.count == 1
    assert error_.attempts == 1
    assert wrong not in str(error_)
    assert wrong not in repr(error_.args)
    assert "Incorrect API key provided: ***" in str(error_)
    assert f"Check {KEY_ENV[provider]}" in str(error_)
    assert error_.__cause__ is None  # the provider's exception (with its text) is not kept


@pytest.mark.parametrize("status", [400, 404, 422])
def test_bad_requests_are_not_retried(
    drive: Drive, server: ChatServer, request_for: Make, status: int
) -> None:
    server.script(error(status, "The model `test-model` does not exist"))
    error_ = fails(drive, request_for())
    assert isinstance(error_, JudgeRequestError)
    assert server.count == 1
    assert f"HTTP {status}" in str(error_)


# -- what is sent ----------------------------------------------------------------------


@pytest.mark.parametrize("provider", CHAT)
def test_reasoning_effort_and_schema_are_not_sent_to_a_model_without_them(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    request = request_for(reasoning_effort="high", schema=SCHEMA, params={"temperature": 0})
    result, _ = one(drive, request)
    (body,) = server.requests
    assert "reasoning_effort" not in body
    assert "response_format" not in body
    assert body["temperature"] == 0
    assert result.dropped == ("response_format", "reasoning_effort")


@pytest.mark.parametrize("provider", CHAT)
def test_gpt_4o_gets_a_schema_but_no_reasoning_effort(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    one(drive, request_for(model="openai/gpt-4o", reasoning_effort="medium", schema=SCHEMA))
    (body,) = server.requests
    assert "reasoning_effort" not in body
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA


@pytest.mark.parametrize("provider", CHAT)
def test_a_model_that_supports_them_gets_both(
    drive: Drive, server: ChatServer, request_for: Make, structured: str, provider: str
) -> None:
    request = request_for(model=structured, reasoning_effort="low", schema=SCHEMA)
    result, _ = one(drive, request, max_concurrent=1)
    (body,) = server.requests
    assert body["reasoning_effort"] == "low"
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "judge_response", "schema": SCHEMA, "strict": True},
    }
    assert result.dropped == ()
    if provider == "litellm":  # LiteLLM prices the call; a native call has no price map
        assert result.usage.cost_usd == pytest.approx(12 * 1e-6 + 5 * 2e-6)


def test_unsupported_extra_parameters_are_dropped(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    result, _ = one(drive, request_for(params={"max_tokens": 50, "not_a_param": 1}))
    (body,) = server.requests
    assert body["max_tokens"] == 50
    assert "not_a_param" not in body
    assert result.dropped == ("not_a_param",)


def test_no_sdk_retries_behind_our_back(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    server.script(then=error(500))
    fails(drive, request_for(), retry=RetryPolicy(max_attempts=1))
    assert server.count == 1


def test_the_key_travels_only_in_its_header(
    drive: Drive, server: ChatServer, request_for: Make, provider: str
) -> None:
    one(drive, request_for())
    (headers,) = server.request_headers
    if provider == "anthropic":
        assert headers["x-api-key"] == KEY
        assert "authorization" not in headers
    else:
        assert headers["authorization"] == f"Bearer {KEY}"
    assert KEY not in json.dumps(server.requests)
