"""Reward functions: `@reward_function` and the built-in reward functions.

`rewardkit.functions.<name>` reaches every built-in of `rewardkit.functions.builtin`
(loaded on first use, so importing this package stays cheap).

Example:
    >>> from rewardkit.functions import reward_function
    >>> @reward_function
    ... def short(messages, **kwargs):
    ...     return len(messages[-1]["content"]) < 80
    >>> short([{"role": "assistant", "content": "Yes."}]).score
    1.0
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType
from typing import Any

from rewardkit.functions._decorator import EvaluationMode, reward_function

__all__ = ["EvaluationMode", "reward_function"]

_BUILTIN = "rewardkit.functions.builtin"


def _builtin() -> ModuleType | None:
    """The built-in reward functions' package, or None when it is not there."""
    try:
        return import_module(_BUILTIN)
    except ModuleNotFoundError as exc:
        if exc.name != _BUILTIN:
            raise  # the package exists but one of its imports is missing: say so
        return None


def __getattr__(name: str) -> Any:
    """`rewardkit.functions.<builtin>`: forwarded to `rewardkit.functions.builtin`."""
    if name.startswith("_"):
        raise AttributeError(f"module 'rewardkit.functions' has no attribute {name!r}")
    builtin = _builtin()
    if builtin is None:
        raise AttributeError(
            f"module 'rewardkit.functions' has no attribute {name!r}: the built-in reward "
            f"functions ({_BUILTIN}) are not installed"
        )
    names: list[str] = list(getattr(builtin, "__all__", ()))
    if name not in names:
        from rewardkit.core._errors import did_you_mean

        raise AttributeError(
            f"module 'rewardkit.functions' has no reward function {name!r}."
            f"{did_you_mean(name, names)} Built-ins: {', '.join(sorted(names))}"
        )
    value = getattr(builtin, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    builtin = _builtin()
    return sorted({*__all__, *(getattr(builtin, "__all__", ()) if builtin else ())})
