"""Fixtures for the LLM transport tests: a real chat-completions server and LiteLLM."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from types import ModuleType
from typing import Any

import pytest
from server import KEY, ChatServer

from rewardkit.judges import _litellm
from rewardkit.judges._retry import RetryPolicy
from rewardkit.judges._transport import CompletionRequest, ModelClient

FAST = RetryPolicy(base_delay=0.01, max_delay=0.05, budget=20.0, max_attempts=4)
"""Tiny backoffs so retry tests take milliseconds."""

STRUCTURED = "openai/test-structured"


@pytest.fixture(scope="session")
def litellm() -> ModuleType:
    """LiteLLM, loaded the way rewardkit loads it (skips when the `llm` extra is absent)."""
    if not _litellm.litellm_available():
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
def structured(litellm: ModuleType) -> str:
    """A model LiteLLM believes supports JSON schemas and reasoning, and has prices for."""
    return STRUCTURED


@pytest.fixture
def server(litellm: ModuleType) -> Iterator[ChatServer]:
    """A fresh chat-completions server on 127.0.0.1 for one test."""
    with ChatServer() as chat:
        yield chat


@pytest.fixture
def request_for(server: ChatServer) -> Callable[..., CompletionRequest]:
    """`request_for(content="...", **fields)`: a request aimed at the test server."""

    def make(content: str = "Is the file there?", **fields: Any) -> CompletionRequest:
        values: dict[str, Any] = {
            "model": "openai/test-model",
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
