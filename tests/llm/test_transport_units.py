"""The transport's pure parts: requests and keys, failure classes, waits, redaction, loading."""

from __future__ import annotations

import asyncio
import email.utils
import gc
import subprocess
import sys
import time
from typing import Any

import pytest

from rewardkit.core._errors import (
    ConfigError,
    JudgeAuthError,
    JudgeError,
    JudgeRateLimited,
    JudgeRequestError,
    JudgeTimeout,
    JudgeUnavailable,
)
from rewardkit.models import CompletionRequest, ModelClient, Usage, _litellm, needs_litellm
from rewardkit.models._retry import RetryPolicy, classify, judge_error, redact, retry_after

HI = [{"role": "user", "content": "hi"}]


# -- requests and keys -----------------------------------------------------------------


def test_the_key_ignores_timeout_and_credentials() -> None:
    base = CompletionRequest(model="openai/m", messages=HI)
    same = CompletionRequest(model="openai/m", messages=list(HI), timeout=3, api_key="sk-abcdef")
    assert base.key() == same.key()
    assert len(base.key()) == 64
    assert isinstance(same.messages, tuple)


@pytest.mark.parametrize(
    "change",
    [
        {"model": "openai/n"},
        {"messages": [{"role": "user", "content": "hello"}]},
        {"schema": {"type": "object"}},
        {"reasoning_effort": "low"},
        {"api_base": "http://127.0.0.1:1/v1"},
        {"params": {"temperature": 0}},
        {"sample": 2},
    ],
)
def test_the_key_covers_what_decides_the_answer(change: dict[str, Any]) -> None:
    fields: dict[str, Any] = {"model": "openai/m", "messages": HI, **change}
    assert (
        CompletionRequest(**fields).key() != CompletionRequest(model="openai/m", messages=HI).key()
    )


def test_the_repr_shows_no_key_or_prompt() -> None:
    request = CompletionRequest(model="openai/m", messages=HI, api_key="sk-supersecret-1")
    assert "sk-supersecret-1" not in repr(request)
    assert "hi" not in repr(request)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"model": ""}, "model must be a model name"),
        ({"messages": []}, "at least one"),
        ({"messages": [{"content": "x"}]}, "with a 'role'"),
        ({"timeout": 0}, "timeout must be > 0"),
        ({"timeout": float("nan")}, "timeout must be > 0"),
        ({"params": {"stream": True}}, "may not set stream"),
        ({"messages": [{"role": "user", "content": b"bytes"}]}, "must be JSON data"),
    ],
)
def test_bad_requests_are_refused_when_built(fields: dict[str, Any], message: str) -> None:
    values: dict[str, Any] = {"model": "openai/m", "messages": HI, **fields}
    with pytest.raises(ValueError, match=message):
        CompletionRequest(**values)


def test_client_arguments_are_checked() -> None:
    with pytest.raises(ValueError, match="max_concurrent must be ≥ 0"):
        ModelClient(max_concurrent=-1)
    with pytest.raises(TypeError, match="must be an int"):
        ModelClient(max_concurrent=True)
    with pytest.raises(ValueError, match="parse_attempts must be at least 1"):
        RetryPolicy(parse_attempts=0)
    with pytest.raises(ValueError, match="budget must be a finite number"):
        RetryPolicy(budget=float("inf"))


# -- failures --------------------------------------------------------------------------


class Provider(Exception):
    def __init__(self, status: int | None, headers: dict[str, str] | None = None) -> None:
        super().__init__(f"litellm.SomeError: SomeError: OpenAIException - status {status}")
        self.status_code = status
        self.litellm_response_headers = headers


class RateLimitError(Exception):
    pass


class APIConnectionError(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "kind"),
    [
        (TimeoutError(), "timeout"),
        (Provider(408), "timeout"),
        (Provider(429), "rate_limit"),
        (RateLimitError(), "rate_limit"),
        (APIConnectionError(), "unavailable"),
        (ConnectionResetError(), "unavailable"),
        (Provider(500), "unavailable"),
        (Provider(529), "unavailable"),
        (Provider(409), "unavailable"),
        (Provider(401), "auth"),
        (Provider(403), "auth"),
        (Provider(400), "request"),
        (Provider(404), "request"),
        (Provider(None), "request"),
        (KeyError("x"), "request"),
        (Exception("OpenAIException - Missing credentials. Please pass an `api_key`"), "auth"),
        (Exception("Missing Anthropic API Key - A call is being made"), "auth"),
    ],
)
def test_failures_are_classified(exc: BaseException, kind: str) -> None:
    assert classify(exc) == kind


def test_retry_after_in_its_three_spellings() -> None:
    assert retry_after(Provider(429, {"retry-after": "2"})) == 2.0
    assert retry_after(Provider(429, {"retry-after-ms": "250", "retry-after": "9"})) == 0.25
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    assert 28 <= (retry_after(Provider(429, {"retry-after": later})) or 0) <= 31
    assert retry_after(Provider(429, {"retry-after": "soon"})) is None
    assert retry_after(Provider(429, {"retry-after": "-3"})) is None
    assert retry_after(Provider(429)) is None


def test_backoff_doubles_with_jitter_and_a_cap() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0)
    for retry, (low, high) in {1: (0.5, 1.0), 2: (1.0, 2.0), 3: (2.0, 4.0), 6: (2.5, 5.0)}.items():
        assert all(low <= policy.backoff(retry) <= high for _ in range(50))


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (429, JudgeRateLimited),
        (503, JudgeUnavailable),
        (401, JudgeAuthError),
        (400, JudgeRequestError),
        (408, JudgeTimeout),
    ],
)
def test_judge_errors_name_the_model_and_the_fix(status: int, cls: type[JudgeError]) -> None:
    error = judge_error(
        classify(Provider(status)),
        Provider(status),
        model="anthropic/claude-x",
        attempts=2,
        elapsed=1.25,
        timeout=30,
    )
    assert type(error) is cls
    assert error.attempts == 2
    assert error.model == "anthropic/claude-x"
    assert str(error).startswith("anthropic/claude-x: ")
    if cls is JudgeAuthError:
        assert "Check ANTHROPIC_API_KEY" in str(error)
    if cls is JudgeTimeout:
        assert "30s timeout (2 calls in 1.2s)" in str(error)


def test_redaction(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_PROVIDER_API_KEY", "plainsecretvalue")
    text = "key plainsecretvalue, sk-ant-abc123456789, Bearer abc.def-123456, given given-key"
    assert redact(text, ("given-key",)) == "key ***, ***, ***, given ***"


def test_usage_adds_up_and_round_trips() -> None:
    total = Usage(input_tokens=3, cost_usd=0.5) + Usage(input_tokens=2) + Usage()
    assert (total.input_tokens, total.cost_usd) == (5, 0.5)
    assert Usage().cost_usd is None
    assert "cost_usd" not in Usage().as_dict()
    assert Usage.from_dict(total.as_dict()) == total
    assert Usage.from_dict({"input_tokens": -1, "cost_usd": float("nan"), "x": 1}) == Usage()


# -- loading and leaving ---------------------------------------------------------------


def test_a_missing_module_names_the_extra() -> None:
    loader = _litellm.Loader("rewardkit_no_such_module")
    with pytest.raises(ConfigError, match=r"pip install 'rewardkit\[llm\]'"):
        asyncio.run(loader.load())
    assert loader.finished_at is not None
    assert not loader.loaded()


def test_a_provider_without_litellm_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "litellm", None)  # as if it were not installed
    problem = needs_litellm("gemini/gemini-2.5-pro")
    assert problem is not None
    assert "provider 'gemini' is sent through LiteLLM, which is not installed" in str(problem)
    assert "pip install 'rewardkit[llm]'" in str(problem)
    assert needs_litellm("openai/gpt-5") is None
    assert needs_litellm("anthropic/claude-sonnet-4-5") is None
    assert needs_litellm("gemini/gemini-2.5-pro", "http://127.0.0.1:1/v1") is None


def test_a_cancelled_waiter_does_not_cancel_the_import() -> None:
    loader = _litellm.Loader("json")

    async def main() -> None:
        waiter = asyncio.ensure_future(loader.load())
        await asyncio.sleep(0)
        waiter.cancel()
        assert (await loader.load()).__name__ == "json"

    asyncio.run(main())


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_importing_the_transport_does_not_import_litellm() -> None:
    done = run_python(
        "import sys; import rewardkit.models, rewardkit.core._errors; print('litellm' in sys.modules)"
    )
    assert done.stdout.strip() == "False", done.stderr


def test_without_litellm_a_call_fails_with_the_install_line() -> None:
    done = run_python(
        "import sys, asyncio; sys.modules['litellm'] = None\n"
        "from rewardkit.models import CompletionRequest, ModelClient\n"
        "from rewardkit.core._errors import ConfigError\n"
        "r = CompletionRequest(model='gemini/m', messages=[{'role': 'user', 'content': 'x'}])\n"
        "try:\n"
        "    asyncio.run(ModelClient().complete(r))\n"
        "except ConfigError as e:\n"
        "    print(e)\n"
    )
    assert "install it with: pip install 'rewardkit[llm]'" in done.stdout.lower(), done.stderr


def test_exit_now_flushes_and_skips_finalization() -> None:
    done = run_python(
        "import atexit, sys\n"
        "from rewardkit.models._litellm import exit_now\n"
        "atexit.register(lambda: print('atexit ran'))\n"
        "sys.stdout.write('written')\n"
        "exit_now(3)\n"
    )
    assert (done.returncode, done.stdout) == (3, "written")


def test_prepare_exit_freezes_the_collector() -> None:
    before = gc.get_freeze_count()
    try:
        _litellm.prepare_exit()
        assert gc.get_freeze_count() >= before
    finally:
        gc.unfreeze()
