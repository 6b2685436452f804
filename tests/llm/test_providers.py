"""The native providers: routing, keys, capabilities, and each protocol's own body.

The shared behaviour (replies, retries, limits, cache) is in `test_transport.py`,
`test_limits.py` and `test_cache.py`, run for every provider; here is what differs.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from server import KEY, VALID, ChatServer, Reply, error, parse

from rewardkit.core._errors import ConfigError, JudgeAuthError, JudgeUnavailable
from rewardkit.models import CompletionRequest, route

Drive = Callable[..., Any]
Make = Callable[..., CompletionRequest]
SCHEMA = {"type": "object", "properties": {"score": {"type": "string"}}, "required": ["score"]}
PNG = "data:image/png;base64," + base64.b64encode(b"\x89PNG fake").decode()
IMAGE_MESSAGES = [
    {"role": "system", "content": "You are a judge."},
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Is this a cat?"},
            {"type": "image_url", "image_url": {"url": PNG}},
        ],
    },
]


def one(drive: Drive, request: CompletionRequest) -> Any:
    return drive(lambda c: c.complete(request, parse=parse))


# -- routing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "base", "provider", "sent"),
    [
        ("openai/gpt-5", None, "openai", "gpt-5"),
        ("anthropic/claude-sonnet-4-5", None, "anthropic", "claude-sonnet-4-5"),
        ("hosted_vllm/Qwen/Qwen3-8B", "http://h:8000/v1", "compatible", "Qwen/Qwen3-8B"),
        ("meta-llama/Llama-3-8B", "http://h:8000/v1", "compatible", "meta-llama/Llama-3-8B"),
        ("gemini/gemini-2.5-pro", None, "litellm", "gemini/gemini-2.5-pro"),
    ],
)
def test_models_are_routed_by_prefix_and_base_url(
    model: str, base: str | None, provider: str, sent: str
) -> None:
    way = route(model, base, env={})
    assert (way.provider, way.model) == (provider, sent)


def test_base_urls_and_keys_come_from_the_variables_litellm_reads() -> None:
    env = {"OPENAI_API_BASE": "http://old/v1", "OPENAI_BASE_URL": "http://new/v1"}
    env |= {"OPENAI_API_KEY": "sk-env-0000000000", "ANTHROPIC_BASE_URL": "http://a"}
    openai = route("openai/gpt-5", env=env)
    assert (openai.base_url, openai.key, openai.missing_key) == (
        "http://new/v1",
        "sk-env-0000000000",
        None,
    )
    assert route("openai/gpt-5", "http://given/v1", env=env).base_url == "http://given/v1"
    anthropic = route("anthropic/claude-x", env=env)
    assert (anthropic.base_url, anthropic.missing_key) == ("http://a", "ANTHROPIC_API_KEY")
    assert "sk-env" not in repr(openai)


def test_litellm_can_be_forced_and_refused() -> None:
    assert route("openai/gpt-5", env={"REWARDKIT_TRANSPORT": "litellm"}).provider == "litellm"
    with pytest.raises(ConfigError, match="needs LiteLLM, but REWARDKIT_TRANSPORT=native"):
        route("gemini/x", env={"REWARDKIT_TRANSPORT": "native"})
    with pytest.raises(ConfigError, match="REWARDKIT_TRANSPORT must be one of auto, native"):
        route("openai/gpt-5", env={"REWARDKIT_TRANSPORT": "httpx"})
    with pytest.raises(ConfigError, match="set HOSTED_VLLM_API_BASE or REWARDKIT_API_BASE"):
        route("hosted_vllm/m", env={})


# -- keys ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_a_missing_key_is_named_before_any_call(
    drive: Drive, server: ChatServer, request_for: Make, provider: str, variable: str
) -> None:
    with pytest.raises(JudgeAuthError) as info:
        one(drive, request_for(api_key=None))
    assert server.count == 0
    assert f"no API key; set {variable} in the environment" in str(info.value)
    assert info.value.attempts == 0


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_base_url_and_key_from_the_environment(
    drive: Drive,
    server: ChatServer,
    request_for: Make,
    provider: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prefix = provider.upper()
    monkeypatch.setenv(f"{prefix}_BASE_URL", server.url)
    monkeypatch.setenv(f"{prefix}_API_KEY", KEY)
    _, value = one(drive, request_for(api_base=None, api_key=None))
    assert value == "yes"


def test_a_local_server_needs_no_key(drive: Drive, server: ChatServer, request_for: Make) -> None:
    server.script(error(500))  # then a valid reply: retried like any provider
    request = request_for(model="hosted_vllm/test-model", api_key=KEY)
    result, value = one(drive, request)
    assert (value, result.attempts) == ("yes", 2)
    assert server.requests[0]["model"] == "test-model"
    with pytest.raises(JudgeAuthError, match="HTTP 401"):  # no key at all: sent without one
        one(drive, request_for(model="hosted_vllm/test-model", api_key=None))


# -- OpenAI-compatible -----------------------------------------------------------------


def test_a_judge_can_override_the_capability_table(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    request = request_for(schema=SCHEMA, reasoning_effort="low", supports={"response_format": True})
    result, _ = one(drive, request)
    (body,) = server.requests
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert "reasoning_effort" not in body
    assert result.dropped == ("reasoning_effort",)


def test_reasoning_models_get_max_completion_tokens(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    one(
        drive,
        request_for(model="openai/o4-mini", reasoning_effort="high", params={"max_tokens": 9}),
    )
    (body,) = server.requests
    assert (body["reasoning_effort"], body["max_completion_tokens"]) == ("high", 9)
    assert "max_tokens" not in body


def test_images_are_left_out_for_a_model_without_vision(
    drive: Drive, server: ChatServer, request_for: Make
) -> None:
    result, _ = one(drive, request_for(model="openai/gpt-3.5-turbo", messages=IMAGE_MESSAGES))
    (body,) = server.requests
    assert "image_url" not in json.dumps(body)
    assert "an image was left out" in json.dumps(body)
    assert result.dropped == ("images",)


def test_a_proxy_reported_cost_is_kept(drive: Drive, server: ChatServer, request_for: Make) -> None:
    server.script(Reply(headers={"x-litellm-response-cost": "0.0042"}))
    result, _ = one(drive, request_for())
    assert result.usage.cost_usd == 0.0042
    again, _ = one(drive, request_for("another question"))
    assert again.usage.cost_usd is None  # no price map natively, and no header here


# -- Anthropic Messages ----------------------------------------------------------------


@pytest.mark.parametrize("provider", ["anthropic"])
def test_anthropic_gets_the_schema_as_a_forced_tool(
    drive: Drive, server: ChatServer, request_for: Make, provider: str
) -> None:
    result, value = one(drive, request_for(schema=SCHEMA, params={"temperature": 0, "stop": "x"}))
    (body,) = server.requests
    assert value == "yes"
    assert json.loads(result.text) == json.loads(VALID)
    assert body["system"] == "You are a judge. Answer in JSON."
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert body["tools"][0]["input_schema"] == SCHEMA
    assert body["tool_choice"] == {"type": "tool", "name": "judge_response"}
    assert (body["max_tokens"], body["temperature"], body["stop_sequences"]) == (4096, 0, ["x"])
    assert server.request_headers[0]["anthropic-version"] == "2023-06-01"


@pytest.mark.parametrize("provider", ["anthropic"])
def test_anthropic_reasoning_is_a_thinking_budget(
    drive: Drive, server: ChatServer, request_for: Make, provider: str
) -> None:
    model = "anthropic/claude-sonnet-4-5"
    one(drive, request_for(model=model, schema=SCHEMA, reasoning_effort="medium"))
    (body,) = server.requests
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["max_tokens"] > 2048
    assert "tools" not in body  # a forced tool call is not allowed with thinking
    assert json.dumps(SCHEMA) in body["system"]


@pytest.mark.parametrize("provider", ["anthropic"])
def test_anthropic_gets_images_as_image_blocks(
    drive: Drive, server: ChatServer, request_for: Make, provider: str
) -> None:
    one(drive, request_for(messages=IMAGE_MESSAGES))
    (body,) = server.requests
    image = body["messages"][0]["content"][1]
    assert image == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG.split(",")[1]},
    }


@pytest.mark.parametrize("provider", ["anthropic"])
def test_anthropic_overloaded_is_retried(
    drive: Drive, server: ChatServer, request_for: Make, provider: str
) -> None:
    server.script(then=error(529, "Overloaded"))
    with pytest.raises(JudgeUnavailable, match=r"HTTP 529: Overloaded"):
        one(drive, request_for())
    assert server.count == 4


# -- judges ----------------------------------------------------------------------------


JUDGE = """
[judge]
judge = "openai/test-model"
files = ["main.py"]
supports = { response_format = true }

[[criterion]]
description = "Is the code correct?"
"""


def test_a_run_with_an_openai_judge_never_imports_litellm(
    server: ChatServer, tmp_path: Path
) -> None:
    tests, ws = tmp_path / "tests", tmp_path / "ws"
    tests.mkdir()
    ws.mkdir()
    (ws / "main.py").write_text("print('hello')\n")
    (tests / "quality.toml").write_text(textwrap.dedent(JUDGE))
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('litellm' in sys.modules))\n"
        "from rewardkit.cli import main\n"
        f"raise SystemExit(main([{str(tests)!r}, '--workspace', {str(ws)!r}, "
        f"'--output', {str(tmp_path / 'out' / 'reward.json')!r}]))\n"
    )
    env = {"REWARDKIT_API_BASE": server.url, "OPENAI_API_KEY": KEY, "PATH": ""}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False"
    assert json.loads((tmp_path / "out" / "reward.json").read_text()) == {"reward": 1.0}
    (body,) = server.requests
    assert "response_format" in body  # the judge's `supports` override


def test_a_bad_supports_key_is_a_load_error(tmp_path: Path) -> None:
    from rewardkit.harbor._judge_config import load_definition

    errors: list[ConfigError] = []
    data = {"judge": {"judge": "openai/x", "supports": {"json": True, "images": "yes"}}}
    definition = load_definition(tmp_path / "judge.toml", data, errors)
    messages = " | ".join(str(e) for e in errors)
    assert "[judge].supports.json: unknown key 'json'" in messages
    assert "[judge].supports.images: must be true or false (got 'yes')" in messages
    assert definition.supports == {}
