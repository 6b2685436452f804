"""Which API-key variables a model needs and the environment lacks, asked before its first
call so that a missing key is one clear error, not a failed call per sample."""

from __future__ import annotations

from rewardkit.core._errors import ConfigError
from rewardkit.models._route import litellm_available, route

__all__ = ["missing_keys"]


async def missing_keys(model: str, api_base: str | None = None) -> list[str]:
    """The key variables `model` needs and the environment lacks (LiteLLM's answer for the
    models it sends, loading it); `[]` when the call itself will say what is wrong."""
    try:
        way = route(model, api_base)
    except ConfigError:
        return []
    if way.provider != "litellm":
        return [way.missing_key] if way.missing_key else []
    if not litellm_available():
        return []
    from rewardkit.models import _litellm  # only for a model LiteLLM sends

    try:
        info = (await _litellm.load()).validate_environment(model=model)
    except Exception:  # an unknown provider or a broken install: the call reports it
        return []
    if info.get("keys_in_environment"):
        return []
    return [str(key) for key in info.get("missing_keys") or []]
