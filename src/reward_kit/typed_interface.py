"""reward-kit's `reward_kit.typed_interface`: `@reward_function` as reward-kit 0.4.1 has it.

It is rewardkit's decorator plus one 0.4.1 rule: the function must accept `**kwargs`
(pipelines pass extra arguments such as `final_filesystem_state`). `rewardkit`'s own
`@reward_function` does not require it.

Example:
    >>> from reward_kit.typed_interface import reward_function
    >>> reward_function(lambda messages, **kwargs: 0.5)([]).score
    0.5
    >>> reward_function(lambda messages: 0.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Function '<lambda>' must accept **kwargs parameter. Please add '**kwargs' ...
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from rewardkit.functions import EvaluationMode
from rewardkit.functions import reward_function as _reward_function

__all__ = ["EvaluationMode", "reward_function"]


def reward_function(
    _func: Callable[..., Any] | None = None,
    *,
    mode: EvaluationMode = "pointwise",
    id: str | None = None,
    requirements: list[str] | None = None,
) -> Any:
    """`rewardkit.functions.reward_function`, requiring `**kwargs` as reward-kit 0.4.1 does.

    Raises:
        ValueError: when the function has no `**kwargs` parameter.
    """
    decorator = _reward_function(mode=mode, id=id, requirements=requirements)

    def decorate(func: Callable[..., Any]) -> Any:
        if callable(func) and not _takes_kwargs(func):
            name = getattr(func, "__name__", type(func).__name__)
            raise ValueError(
                f"Function '{name}' must accept **kwargs parameter. "
                "Please add '**kwargs' to the function signature."
            )
        return decorator(func)

    return decorate if _func is None else decorate(_func)


def _takes_kwargs(func: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # no signature to read (some builtins): let it through
        return True
    return any(p.kind is p.VAR_KEYWORD for p in params)
