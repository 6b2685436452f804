"""Fixtures for the LLM transport tests: a real chat server, and each way of talking to it.

`provider` says which: `openai` (native chat completions), `anthropic` (native Messages
API), or `litellm` (chat completions through LiteLLM, `REWARDKIT_TRANSPORT=litellm`).
It is `openai` unless a module asks for more (`server.PROVIDERS`, see `test_transport.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from server import KEY, ChatServer

from rewardkit.models import CompletionRequest, ModelClient, RetryPolicy, _litellm
from rewardkit.models._route import litellm_available

FAST = RetryPolicy(base_delay=0.01, max_delay=0.05, budget=20.0, max_attempts=4)
"""Tiny backoffs so retry tests take milliseconds."""

STRUCTURED = "openai/test-structured"
MODELS = {"openai": "openai/test-model", "anthropic": "anthropic/test-model"}
MODELS["litellm"] = MODELS["openai"]


@pytest.fixture(scope="session")
def litellm() -> ModuleType:
    """LiteLLM, loaded the way rewardkit loads it (skips when the `llm` extra is absent)."""
    if not litellm_available():
        pytest.skip("LiteLLM is not installed (pip install 'rewardkit[llm]')")
    _litellm.start_loading()
    module = asyncio.run(_litellm.load())
    module.register_model(
        {
            STRUCTURED: {
                "litellm_provider": "openai",
                "mode": "chat",
                "supports_response_schema": True,
                "supports_reasoning": True,
                "input_cost_per_token": 1e-6,
                "output_cost_per_token": 2e-6,
            }
        }
    )
    return module


@pytest.fixture
def provider() -> str:
    """How the tests talk to the server (see the module docstring)."""
    return "openai"


@pytest.fixture
def structured(provider: str, request: pytest.FixtureRequest) -> str:
    """A model said to take JSON schemas and `reasoning_effort`: by the capability table
    natively; by LiteLLM's map (which also has prices for it) through LiteLLM."""
    if provider == "litellm":
        request.getfixturevalue("litellm")
        return STRUCTURED
    return "anthropic/claude-sonnet-4-test" if provider == "anthropic" else "openai/gpt-5-test"


@pytest.fixture
def server(
    provider: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ChatServer]:
    """A fresh chat server on 127.0.0.1 for one test, in the provider's protocol."""
    if provider == "litellm":
        request.getfixturevalue("litellm")
        monkeypatch.setenv("REWARDKIT_TRANSPORT", "litellm")
    with ChatServer(protocol="anthropic" if provider == "anthropic" else "openai") as chat:
        yield chat


@pytest.fixture
def request_for(server: ChatServer, provider: str) -> Callable[..., CompletionRequest]:
    """`request_for(content="...", **fields)`: a request aimed at the test server."""

    def make(content: str = "Is the file there?", **fields: Any) -> CompletionRequest:
        values: dict[str, Any] = {
            "model": MODELS[provider],
            "messages": [
                {"role": "system", "content": "You are a judge. Answer in JSON."},
                {"role": "user", "content": content},
            ],
            "api_base": server.url,
            "api_key": KEY,
            "timeout": 5.0,
        }
        values.update(fields)
        return CompletionRequest(**values)

    return make


Main = Callable[[ModelClient], Awaitable[Any]]


@pytest.fixture
def drive() -> Callable[..., Any]:
    """`drive(main, **client)`: run `main(client)` in a fresh loop, then close the client."""

    def run(main: Main, **client: Any) -> Any:
        client.setdefault("retry", FAST)

        async def body() -> Any:
            async with ModelClient(**client) as model_client:
                return await main(model_client)

        return asyncio.run(body())

    return run
