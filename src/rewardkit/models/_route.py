"""Which provider answers a model string, at which URL, with which key.

- `openai/<m>`: OpenAI chat completions at the request's base URL, `OPENAI_BASE_URL`,
  `OPENAI_API_BASE` or api.openai.com; key `OPENAI_API_KEY` (required).
- `anthropic/<m>`: Anthropic Messages at the request's base URL, `ANTHROPIC_BASE_URL`,
  `ANTHROPIC_API_BASE` or api.anthropic.com; key `ANTHROPIC_API_KEY` (required).
- `hosted_vllm/<m>`: OpenAI-compatible at the request's base URL or `HOSTED_VLLM_API_BASE`
  (one is required); key `HOSTED_VLLM_API_KEY` (optional).
- any other model with a base URL (`REWARDKIT_API_BASE`): OpenAI-compatible, the model sent
  as written; key `OPENAI_API_KEY` (optional).
- any other model: LiteLLM (the `llm` extra), with LiteLLM's URLs and keys.

`REWARDKIT_TRANSPORT=litellm` sends every model through LiteLLM; `native` refuses the
models that would need it (default `auto`).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from rewardkit.core._errors import ConfigError

__all__ = [
    "INSTALL_HINT",
    "NATIVE_PREFIXES",
    "Route",
    "litellm_available",
    "needs_litellm",
    "route",
]

INSTALL_HINT = "pip install 'rewardkit[llm]'"
NATIVE_PREFIXES = ("openai/", "anthropic/", "hosted_vllm/")
TRANSPORTS = ("auto", "native", "litellm")
Provider = Literal["openai", "compatible", "anthropic", "litellm"]


@dataclass(frozen=True, repr=False)
class Route:
    """Where one model's calls go."""

    provider: Provider
    """`openai` (api.openai.com's models), `compatible` (another chat-completions server),
    `anthropic`, or `litellm`."""
    model: str
    """The name sent on the wire: without the prefix (LiteLLM: the whole string)."""
    base_url: str | None = None
    key: str | None = None
    """Never in a repr or a message."""
    key_env: str | None = None
    """The variable the key is read from."""
    key_required: bool = False

    def __repr__(self) -> str:
        return f"Route({self.provider!r}, {self.model!r}, base_url={self.base_url!r})"

    @property
    def missing_key(self) -> str | None:
        """The variable to set when a required key is absent, else `None`."""
        return self.key_env if self.key_required and not self.key else None


def transport(env: Mapping[str, str] = os.environ) -> str:
    """`REWARDKIT_TRANSPORT`, checked (default `auto`)."""
    value = (env.get("REWARDKIT_TRANSPORT") or "auto").strip().lower()
    if value not in TRANSPORTS:
        raise ConfigError(
            f"REWARDKIT_TRANSPORT must be one of {', '.join(TRANSPORTS)} (got {value!r}); "
            "unset it to send OpenAI-compatible and Anthropic models natively"
        )
    return value


def route(
    model: str,
    api_base: str | None = None,
    api_key: str | None = None,
    env: Mapping[str, str] = os.environ,
) -> Route:
    """The provider, URL and key for `model` (see the module's table).

    Raises:
        ConfigError: `REWARDKIT_TRANSPORT` is invalid, or it is `native` and the model
            needs LiteLLM, or a `hosted_vllm/` model has no base URL.
    """
    how = transport(env)
    prefix, _, name = model.partition("/") if "/" in model else ("", "", model)
    if how == "litellm":
        return Route("litellm", model, api_base, api_key)
    if prefix == "anthropic":
        base = api_base or env.get("ANTHROPIC_BASE_URL") or env.get("ANTHROPIC_API_BASE")
        key = api_key or env.get("ANTHROPIC_API_KEY")
        return Route("anthropic", name, base, key, "ANTHROPIC_API_KEY", True)
    if prefix == "openai":
        base = api_base or env.get("OPENAI_BASE_URL") or env.get("OPENAI_API_BASE")
        key = api_key or env.get("OPENAI_API_KEY")
        return Route("openai", name, base, key, "OPENAI_API_KEY", True)
    if prefix == "hosted_vllm":
        base = api_base or env.get("HOSTED_VLLM_API_BASE")
        if not base:
            raise ConfigError(
                f"model {model!r}: hosted_vllm models need the server's URL; set "
                "HOSTED_VLLM_API_BASE or REWARDKIT_API_BASE (e.g. http://localhost:8000/v1)"
            )
        key = api_key or env.get("HOSTED_VLLM_API_KEY")
        return Route("compatible", name, base, key, "HOSTED_VLLM_API_KEY")
    if api_base:
        return Route("compatible", model, api_base, api_key or env.get("OPENAI_API_KEY"))
    if how == "native":
        raise ConfigError(
            f"model {model!r} needs LiteLLM, but REWARDKIT_TRANSPORT=native; natively sent "
            f"are {', '.join(NATIVE_PREFIXES)} and any model with REWARDKIT_API_BASE"
        )
    return Route("litellm", model, api_base, api_key)


def litellm_available() -> bool:
    """Whether LiteLLM is installed, answered without importing it."""
    if "litellm" in sys.modules:
        return sys.modules["litellm"] is not None
    return importlib.util.find_spec("litellm") is not None


def needs_litellm(model: str, api_base: str | None = None) -> ConfigError | None:
    """The error to report when `model` must go through LiteLLM and it is not installed."""
    try:
        if route(model, api_base).provider != "litellm" or litellm_available():
            return None
    except ConfigError as exc:
        return exc
    provider = model.split("/", 1)[0] if "/" in model else model
    return ConfigError(
        f"model {model!r}: provider {provider!r} is sent through LiteLLM, which is not "
        f"installed. Install it with: {INSTALL_HINT} (without it: "
        f"{', '.join(NATIVE_PREFIXES)} models, or any model with REWARDKIT_API_BASE)"
    )
