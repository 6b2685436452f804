"""`@reward_function`: a plain function over messages becomes a checked reward function.

Everything that can be known before the first call (the signature, which parameters carry
messages, what their annotations ask for) is worked out at decoration time, so a call
costs a type check per message and one on the result.
"""

from __future__ import annotations

import functools
import inspect
import math
from collections.abc import Awaitable, Callable, Coroutine
from numbers import Real
from typing import Any, Literal, ParamSpec, Protocol, overload

from pydantic import ValidationError

from rewardkit.functions._inputs import input_plan, show
from rewardkit.types import EvaluateResult, RewardOutput

__all__ = ["reward_function"]

P = ParamSpec("P")
_isfinite = math.isfinite


class _Decorator(Protocol):
    @overload
    def __call__(
        self, func: Callable[P, Awaitable[Any]], /
    ) -> Callable[P, Coroutine[Any, Any, EvaluateResult]]: ...
    @overload
    def __call__(self, func: Callable[P, Any], /) -> Callable[P, EvaluateResult]: ...


@overload
def reward_function(
    func: Callable[P, Awaitable[Any]], /
) -> Callable[P, Coroutine[Any, Any, EvaluateResult]]: ...
@overload
def reward_function(func: Callable[P, Any], /) -> Callable[P, EvaluateResult]: ...
@overload
def reward_function(
    func: None = None,
    /,
    *,
    id: str | None = None,
    requirements: list[str] | None = None,
    mode: Literal["pointwise"] = "pointwise",
) -> _Decorator: ...
def reward_function(
    func: Callable[..., Any] | None = None,
    /,
    *,
    id: str | None = None,
    requirements: list[str] | None = None,
    mode: Literal["pointwise"] = "pointwise",
) -> Any:
    """Make `func` a reward function: messages in, an `EvaluateResult` out.

    The decorated function accepts `messages` and `original_messages` (and `ground_truth`
    when it is annotated as messages) as dicts or `Message`s, whatever its annotations say,
    and receives what they ask for: `List[Message]` gets `Message`s, `List[Dict]` gets
    dicts, no annotation gets the items as passed. Other arguments (`ground_truth`,
    `metadata`, `**kwargs`) pass through. It may return an `EvaluateResult`, a dict of
    its fields, a number or a bool (`score=1.0/0.0`); the caller always gets an
    `EvaluateResult`. `async def` functions give an async reward function. Exceptions
    raised by `func` propagate unchanged. The wrapper has `__reward_function__ = True` and
    the original as `__wrapped__`.

    Unlike reward-kit 0.4.1, `**kwargs` is not required, messages are converted for any
    annotation (0.4.1 only for exactly `List[Message]`), numbers and bools are accepted as
    returns, `async def` works, and input errors are `TypeError`s (0.4.1: `ValueError`).

    Args:
        func: the function; omit it to use `@reward_function(...)` with options.
        id: an identifier kept as `_reward_function_id` (reward-kit compatibility).
        requirements: pip requirements kept as `_reward_function_requirements`.
        mode: only `"pointwise"` (one sample per call) is supported.

    Raises:
        TypeError: at call time, when a message input is malformed (the message names the
            parameter and the index) or `func` returns something that is not a result.

    Example:
        >>> @reward_function
        ... def mentions_paris(messages, ground_truth=None, **kwargs):
        ...     return "paris" in messages[-1]["content"].lower()
        >>> mentions_paris([{"role": "assistant", "content": "Paris."}]).score
        1.0
    """
    if mode != "pointwise":
        raise ValueError(
            f"reward_function(mode={mode!r}) is not supported; only 'pointwise' is. "
            "Score a batch by calling the function once per sample."
        )

    def decorate(func: Any) -> Any:
        if not callable(func):
            raise TypeError(f"@reward_function needs a function (got {show(func)}).")
        wrapper: Any = func if getattr(func, "__reward_function__", False) else _wrap(func)
        if id is not None or not hasattr(wrapper, "_reward_function_id"):
            wrapper._reward_function_id = id
        if requirements is not None or not hasattr(wrapper, "_reward_function_requirements"):
            wrapper._reward_function_requirements = list(requirements or [])
        wrapper._reward_function_mode = mode
        return wrapper

    return decorate if func is None else decorate(func)


def _label(func: Callable[..., Any]) -> str:
    """`name()` for error messages: the qualified name without `<locals>` prefixes."""
    qualname = getattr(func, "__qualname__", type(func).__name__)
    return f"{qualname.rsplit('<locals>.', 1)[-1]}()"


def _wrap(func: Callable[..., Any]) -> Any:
    label = _label(func)
    plan = input_plan(func, label)
    finish = functools.partial(_to_result, label=label)

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def async_wrapper(*args: Any, **kwargs: Any) -> EvaluateResult:
            for name, index, convert in plan:  # inlined: this runs on every call
                if index < len(args):
                    value = args[index]
                    new = convert(value)
                    if new is not value:
                        args = (*args[:index], new, *args[index + 1 :])
                elif name in kwargs:
                    kwargs[name] = convert(kwargs[name])
            result = await func(*args, **kwargs)
            if type(result) is EvaluateResult:
                score = result.score
                if type(score) is float and score - score == 0.0:  # finite
                    return result
            return finish(result)

        wrapper: Any = async_wrapper
    else:

        @functools.wraps(func)
        def sync_wrapper(*args: Any, **kwargs: Any) -> EvaluateResult:
            for name, index, convert in plan:
                if index < len(args):
                    value = args[index]
                    new = convert(value)
                    if new is not value:
                        args = (*args[:index], new, *args[index + 1 :])
                elif name in kwargs:
                    kwargs[name] = convert(kwargs[name])
            result = func(*args, **kwargs)
            if type(result) is EvaluateResult:
                score = result.score
                if type(score) is float and score - score == 0.0:  # finite
                    return result
            return finish(result)

        wrapper = sync_wrapper
    wrapper.__reward_function__ = True
    return wrapper


def _to_result(result: Any, *, label: str) -> EvaluateResult:
    """Turn what a reward function returned into an `EvaluateResult`, or say what is wrong."""
    if isinstance(result, EvaluateResult):
        if isinstance(result.score, Real) and _isfinite(result.score):
            return result
        raise TypeError(
            f"{label} returned an EvaluateResult whose score is not a finite number "
            f"(got {show(result.score)}). Give a finite score, and set `error` on failure."
        )
    if isinstance(result, dict):
        try:
            return EvaluateResult.model_validate(result)
        except ValidationError as exc:
            raise TypeError(
                f"{label} returned a dict that is not a valid EvaluateResult: "
                f"{_first_error(exc)}. Return e.g. {{'score': 0.5, 'reason': '...'}}."
            ) from exc
    if isinstance(result, Real):
        score = float(result)
        if not _isfinite(score):
            raise TypeError(f"{label} returned {score}; a score must be a finite number.")
        return EvaluateResult(score=score)
    if isinstance(result, RewardOutput):
        return result.to_evaluate_result()
    if inspect.iscoroutine(result):
        result.close()  # never awaited on purpose; closing it avoids a RuntimeWarning
        raise TypeError(
            f"{label} returned a coroutine: it is a sync function returning an awaitable. "
            "Declare it `async def` so @reward_function awaits it."
        )
    raise TypeError(
        f"{label} returned {show(result)}; a reward function must return an EvaluateResult, "
        "a dict of its fields (with a 'score'), or a number or bool."
    )


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    error = errors[0]
    loc = ".".join(str(p) for p in error["loc"]) or "(root)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{loc}: {error['msg']} (got {show(error['input'])}){more}"
