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
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, Protocol, overload

from pydantic import ValidationError

from rewardkit.core._errors import RewardFunctionError
from rewardkit.functions._inputs import input_plan, show
from rewardkit.types import EvaluateResult, RewardOutput

if TYPE_CHECKING:
    from pydantic import TypeAdapter

__all__ = ["EvaluationMode", "plain_call", "reward_function"]

P = ParamSpec("P")
_isfinite = math.isfinite

EvaluationMode = Literal["pointwise", "batch"]
"""`pointwise`: one conversation per call (`messages`), one result. `batch`: many
conversations per call (`rollouts_messages`), a list of results."""
_MODES = ("pointwise", "batch")


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
    mode: EvaluationMode = "pointwise",
) -> _Decorator: ...
def reward_function(
    func: Callable[..., Any] | None = None,
    /,
    *,
    id: str | None = None,
    requirements: list[str] | None = None,
    mode: EvaluationMode = "pointwise",
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
    the original as `__wrapped__`. With `mode="batch"`, `rollouts_messages` is a list of
    conversations (each converted like `messages`) and `func` returns a list of results.

    Unlike reward-kit 0.4.1, `**kwargs` is not required (`reward_kit.reward_function`
    requires it, as 0.4.1 does), messages are converted for any annotation (0.4.1 only for
    exactly `List[Message]`), numbers and bools are accepted as returns, `async def` works,
    and a bad `mode` fails at decoration, not at the first call.

    Args:
        func: the function; omit it to use `@reward_function(...)` with options.
        id: an identifier kept as `_reward_function_id` (reward-kit compatibility).
        requirements: pip requirements kept as `_reward_function_requirements`.
        mode: `"pointwise"` (one conversation per call) or `"batch"` (a list of them).

    Raises:
        ValueError: at decoration, for an unknown `mode`.
        RewardFunctionError: (a `TypeError` and a `ValueError`) at call time, when a
            message input is malformed (the message names the parameter and the index) or
            `func` returns something that is not a result.

    Example:
        >>> @reward_function
        ... def mentions_paris(messages, ground_truth=None, **kwargs):
        ...     return "paris" in messages[-1]["content"].lower()
        >>> mentions_paris([{"role": "assistant", "content": "Paris."}]).score
        1.0
    """
    if mode not in _MODES:
        raise ValueError(
            f"reward_function(mode={mode!r}) is not a mode; use 'pointwise' (one "
            "conversation per call) or 'batch' (`rollouts_messages`, a list of them)."
        )

    def decorate(func: Any) -> Any:
        if not callable(func):
            raise TypeError(f"@reward_function needs a function (got {show(func)}).")
        if getattr(func, "__reward_function__", False):
            wrapper: Any = func
        else:
            wrapper = _wrap_batch(func) if mode == "batch" else _wrap(func)
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
    finish = functools.partial(_to_result, label=label, name=_name(func))

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

        def plain(kwargs: dict[str, Any]) -> Any:
            for name, _, convert in plan:
                if name in kwargs:
                    kwargs[name] = convert(kwargs[name])
            result = func(**kwargs)
            kind = type(result)
            if kind is float:
                if result - result == 0.0:  # finite
                    return result
            elif kind is bool or kind is int:
                return float(result)
            return finish(result)

        wrapper = sync_wrapper
        wrapper._rewardkit_plain = (wrapper, plain)
    wrapper.__reward_function__ = True
    return wrapper


def plain_call(fn: Callable[..., Any]) -> Callable[[dict[str, Any]], Any] | None:
    """The call of a sync `@reward_function` on keyword arguments that returns a finite
    number as a float rather than as `EvaluateResult(score=...)` (else what `fn` returns), for
    callers that only read the score: the same checks and errors, without building a result.
    `None` for any other callable, including a wrapper of `fn` that copied its attributes."""
    owner, plain = getattr(fn, "_rewardkit_plain", (None, None))
    return plain if owner is fn else None


def _name(func: Callable[..., Any]) -> str:
    return getattr(func, "__name__", type(func).__name__)


def _wrap_batch(func: Callable[..., Any]) -> Any:
    """The batch-mode wrapper: not on the hot path, so one plain loop for sync and async."""
    label = _label(func)
    plan = input_plan(func, label, batch=True)
    finish = functools.partial(_to_results, label=label, name=_name(func))

    def convert(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
        for name, index, converter in plan:
            if index < len(args):
                args = (*args[:index], converter(args[index]), *args[index + 1 :])
            elif name in kwargs:
                kwargs[name] = converter(kwargs[name])
        return args

    if inspect.iscoroutinefunction(func):

        @functools.wraps(func)
        async def async_wrapper(*args: Any, **kwargs: Any) -> list[EvaluateResult]:
            return finish(await func(*convert(args, kwargs), **kwargs))

        wrapper: Any = async_wrapper
    else:

        @functools.wraps(func)
        def sync_wrapper(*args: Any, **kwargs: Any) -> list[EvaluateResult]:
            return finish(func(*convert(args, kwargs), **kwargs))

        wrapper = sync_wrapper
    wrapper.__reward_function__ = True
    return wrapper


def _to_result(result: Any, *, label: str, name: str) -> EvaluateResult:
    """Turn what a reward function returned into an `EvaluateResult`, or say what is wrong."""
    if isinstance(result, EvaluateResult):
        if isinstance(result.score, Real) and _isfinite(result.score):
            return result
        raise RewardFunctionError(
            f"{label} returned an EvaluateResult whose score is not a finite number "
            f"(got {show(result.score)}). Give a finite score, and set `error` on failure."
        )
    if isinstance(result, dict):
        try:
            return EvaluateResult.model_validate(result)
        except ValidationError as exc:
            raise RewardFunctionError(
                f"{label} returned a dict that is not a valid EvaluateResult: "
                f"{_first_error(exc)}. Return e.g. {{'score': 0.5, 'reason': '...'}}.\n"
                f"{_invalid(name, 'pointwise', exc)}"
            ) from exc
    if isinstance(result, Real):
        score = float(result)
        if not _isfinite(score):
            raise RewardFunctionError(f"{label} returned {score}; a score must be a finite number.")
        return EvaluateResult(score=score)
    if isinstance(result, RewardOutput):
        return result.to_evaluate_result()
    if inspect.iscoroutine(result):
        result.close()  # never awaited on purpose; closing it avoids a RuntimeWarning
        raise RewardFunctionError(
            f"{label} returned a coroutine: it is a sync function returning an awaitable. "
            "Declare it `async def` so @reward_function awaits it."
        )
    raise RewardFunctionError(
        f"{label} returned {show(result)}; a reward function must return an EvaluateResult, "
        "a dict of its fields (with a 'score'), or a number or bool."
    )


def _to_results(result: Any, *, label: str, name: str) -> list[EvaluateResult]:
    """A batch reward function's list of results, validated like 0.4.1's."""
    if type(result) is not list:
        raise RewardFunctionError(
            f"{label} returned {show(result)}; a batch reward function (mode='batch') must "
            "return a list of results, one per conversation of `rollouts_messages`."
        )
    items = [
        EvaluateResult(score=float(r)) if isinstance(r, Real) and _isfinite(r) else r
        for r in result
    ]
    try:
        return _results_adapter().validate_python(items)
    except ValidationError as exc:
        raise RewardFunctionError(
            f"{label} returned a list that is not one valid EvaluateResult per conversation: "
            f"{_first_error(exc)}.\n{_invalid(name, 'batch', exc)}"
        ) from exc


@functools.cache
def _results_adapter() -> TypeAdapter[list[EvaluateResult]]:
    from pydantic import TypeAdapter

    return TypeAdapter(list[EvaluateResult])


def _invalid(name: str, mode: str, exc: ValidationError) -> str:
    """reward-kit 0.4.1's wording for a return value that is no result (code matches it)."""
    return (
        f"Return value from function '{name}' failed Pydantic validation for mode '{mode}':\n{exc}"
    )


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors()
    error = errors[0]
    loc = ".".join(str(p) for p in error["loc"]) or "(root)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{loc}: {error['msg']} (got {show(error['input'])}){more}"
