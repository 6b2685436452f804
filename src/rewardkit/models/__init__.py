"""The model transport: one `ModelClient` per run sends every LLM judge's requests.

It holds the per-model limiter, the retries (`RetryPolicy`), the sharing of identical
requests in flight, the opt-in reply cache and the usage accounting (`Usage`). Providers sit
behind one small interface (`_provider.Provider`): OpenAI-compatible chat completions and
Anthropic's Messages API natively (`_http`: our own keep-alive connections, httpx where a
proxy is configured), every other model through LiteLLM (the `llm` extra), which is
imported only then. Routing: `_route`; what each model accepts: `_capabilities`.

Names load on first use: a run that only prices or budgets (`_prices`) pays for no client.
"""

from typing import TYPE_CHECKING

from rewardkit.core._lazy import lazy_names

if TYPE_CHECKING:
    from rewardkit.models._capabilities import Capabilities
    from rewardkit.models._client import ClientStats, ModelClient
    from rewardkit.models._keys import missing_keys
    from rewardkit.models._request import FEATURES, CompletionRequest, CompletionResult
    from rewardkit.models._retry import RetryPolicy
    from rewardkit.models._route import INSTALL_HINT, Route, needs_litellm, route
    from rewardkit.models._usage import Usage

_LAZY = {
    "Capabilities": "_capabilities",
    "ClientStats": "_client",
    "ModelClient": "_client",
    "FEATURES": "_request",
    "CompletionRequest": "_request",
    "CompletionResult": "_request",
    "RetryPolicy": "_retry",
    "INSTALL_HINT": "_route",
    "Route": "_route",
    "missing_keys": "_keys",
    "needs_litellm": "_route",
    "route": "_route",
    "Usage": "_usage",
}

__getattr__ = lazy_names(__name__, _LAZY, globals())

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
