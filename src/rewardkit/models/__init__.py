"""The model transport: one `ModelClient` per run sends every LLM judge's requests.

It holds the per-model limiter, the retries (`RetryPolicy`), the sharing of identical
requests in flight, the opt-in reply cache and the usage accounting (`Usage`). Providers sit
behind one small interface (`_provider.Provider`): OpenAI-compatible chat completions and
Anthropic's Messages API natively (`_http`: our own keep-alive connections, httpx where a
proxy is configured), every other model through LiteLLM (the `llm` extra), which is
imported only then. Routing: `_route`; what each model accepts:
`_capabilities`.
"""

from __future__ import annotations

from rewardkit.models._capabilities import Capabilities
from rewardkit.models._client import ClientStats, ModelClient
from rewardkit.models._request import FEATURES, CompletionRequest, CompletionResult
from rewardkit.models._retry import RetryPolicy
from rewardkit.models._route import INSTALL_HINT, Route, missing_keys, needs_litellm, route
from rewardkit.models._usage import Usage

__all__ = [
    "FEATURES",
    "INSTALL_HINT",
    "Capabilities",
    "ClientStats",
    "CompletionRequest",
    "CompletionResult",
    "ModelClient",
    "RetryPolicy",
    "Route",
    "Usage",
    "missing_keys",
    "needs_litellm",
    "route",
]
