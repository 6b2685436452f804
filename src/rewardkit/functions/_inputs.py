"""Message inputs of a reward function: read the annotations once, check every call cheaply.

`@reward_function` asks `input_plan(func)` at decoration time which parameters carry
messages and what their annotations ask for:

- a `Message` class: a list of them (`List[Message]`, `Optional[list[Message]]`, or a
  subclass of `Message`): dicts are validated into that class;
- `dict`: a list of dicts (`List[Dict[str, str]]`, `list[dict]`, `list[Mapping]`, ...):
  `Message`s are dumped to OpenAI-format dicts;
- `keep`: anything else (no annotation, `list`, `Any`, a union of both): the items stay
  as they are.

In every mode the value must be a list whose items are dicts or `Message`s with a string
`role`, and a text, content-parts or `None` `content`; anything else is a
`RewardFunctionError` (a `TypeError` and a `ValueError`) that names the function, the
parameter and the index, and ends with reward-kit 0.4.1's "Input '<name>' failed
Pydantic validation". In batch mode, `rollouts_messages` is a list of such lists.
"""

from __future__ import annotations

import inspect
import sys
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from pydantic import ValidationError

from rewardkit.core._errors import RewardFunctionError
from rewardkit.types import Message

__all__ = ["Converter", "InputPlan", "input_plan", "show"]

Mode = Literal["dict", "keep"] | type[Message]
"""`dict`, `keep`, or the `Message` class (or subclass) to validate dicts into."""
Converter = Callable[[Any], Any]

_MESSAGE_PARAMS = ("messages", "original_messages")
_BATCH_PARAMS = ("rollouts_messages",)
_VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
_KEYWORD_ONLY = sys.maxsize
"""The 'position' of a parameter that can only be passed by keyword."""


class InputPlan(NamedTuple):
    """How to convert one parameter: its name, its position (if positional), the converter."""

    name: str
    position: int
    """Its index among the positional arguments; `sys.maxsize` if keyword-only."""
    convert: Converter


def input_plan(
    func: Callable[..., Any], label: str, *, batch: bool = False
) -> tuple[InputPlan, ...]:
    """The parameters of `func` that carry messages, with their converters.

    `label` names the function in error messages, e.g. `my_reward()`. With `batch`, the
    messages come as `rollouts_messages`, a list of conversations.
    """
    message_params = _BATCH_PARAMS if batch else _MESSAGE_PARAMS
    params = inspect.signature(func).parameters
    hints = _hints(func)
    plan: list[InputPlan] = []
    position = 0
    for param in params.values():
        index = _KEYWORD_ONLY
        if param.kind in (param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD):
            index, position = position, position + 1
        if param.name not in (*message_params, "ground_truth") or param.kind in _VARIADIC:
            continue
        annotation = _resolve(func, hints.get(param.name, param.annotation))
        if batch and param.name != "ground_truth":
            mode, optional = _mode(_item_annotation(annotation))
            convert = _batch_converter(label, param.name, mode, param.default is None)
            plan.append(InputPlan(param.name, index, convert))
            continue
        mode, optional = _mode(annotation)
        if param.name == "ground_truth" and not isinstance(mode, type):
            continue  # ground truth is free-form unless annotated as messages
        allow_none = optional or param.default is None
        plan.append(InputPlan(param.name, index, _converter(label, param.name, mode, allow_none)))
    has_var_keyword = any(p.kind is p.VAR_KEYWORD for p in params.values())
    for name in message_params:  # messages that arrive through **kwargs are checked too
        if has_var_keyword and name not in params:
            convert = (_batch_converter if batch else _converter)(label, name, "keep", True)
            plan.append(InputPlan(name, _KEYWORD_ONLY, convert))
    return tuple(plan)


def _item_annotation(annotation: Any) -> Any:
    """`List[Message]` from `List[List[Message]]` (or `Optional[...]` of it); else `Any`."""
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _item_annotation(members[0]) if len(members) == 1 else Any
    args = typing.get_args(annotation)
    return args[0] if origin in (list, Sequence, Iterable) and args else Any


def _batch_converter(label: str, name: str, mode: Mode, allow_none: bool) -> Converter:
    """Convert a list of conversations, each as `_converter` converts one."""
    where = f"{label}: {name}"

    def convert(value: Any) -> Any:
        if type(value) is not list:
            if value is None and allow_none:
                return None
            raise _input_error(
                where,
                f"{where} must be a list of conversations, each a list of messages "
                f"(got {show(value)}). Pass e.g. [[{_EXAMPLE}]].",
            )
        return [
            _converter(label, name, mode, False, path=f"{name}[{i}]")(rollout)
            for i, rollout in enumerate(value)
        ]

    return convert


def _hints(func: Callable[..., Any]) -> dict[str, Any]:
    """Resolved annotations; unresolvable ones (e.g. names behind TYPE_CHECKING) stay text."""
    try:
        return typing.get_type_hints(func)
    except Exception:  # a bad annotation must not break decoration
        return {}


def _resolve(func: Callable[..., Any], annotation: Any) -> Any:
    """One string annotation evaluated alone, when resolving them all at once failed."""
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, getattr(func, "__globals__", {}))  # as get_type_hints does
    except Exception:
        return annotation


def _mode(annotation: Any) -> tuple[Mode, bool]:
    """What the annotation asks for, and whether it admits `None`."""
    if isinstance(annotation, str):
        return _mode_from_text(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in typing.get_args(annotation) if a is not type(None)]
        optional = len(members) < len(typing.get_args(annotation))
        modes: set[Mode] = {_mode(m)[0] for m in members}
        return (modes.pop() if len(modes) == 1 else "keep"), optional
    if origin in (list, Sequence, Iterable):
        args = typing.get_args(annotation)
        return (_item_mode(args[0]) if args else "keep"), False
    return "keep", False


def _item_mode(item: Any) -> Mode:
    if isinstance(item, type) and issubclass(item, Message):
        return item
    origin = typing.get_origin(item) or item
    if origin in (dict, Mapping):
        return "dict"
    return "keep"


def _mode_from_text(text: str) -> tuple[Mode, bool]:
    """A best guess from an annotation that could not be resolved."""
    optional = "Optional" in text or "None" in text
    has_message = "Message" in text
    has_dict = "dict" in text.lower() or "Mapping" in text
    if has_message and not has_dict:
        return Message, optional
    if has_dict and not has_message:
        return "dict", optional
    return "keep", optional


def show(value: Any) -> str:
    """`type: repr` of a value, the repr cut to 80 characters."""
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{type(value).__name__}: {text}"


_EXAMPLE = "{'role': 'user', 'content': 'Hi'}"


def _input_error(where: str, message: str) -> RewardFunctionError:
    """The error for a malformed input; it ends with reward-kit 0.4.1's wording."""
    name = where.partition(": ")[2].partition("[")[0]
    return RewardFunctionError(f"{message} (Input '{name}' failed Pydantic validation.)")


def _converter(
    label: str, name: str, mode: Mode, allow_none: bool, *, path: str | None = None
) -> Converter:
    """Build the per-call converter of one parameter.

    Fast paths: a list of plain dicts with text content only gets type-checked (`dict` and
    `keep` modes), or validated straight into `Message`s (a `Message` class). Everything else
    (other conversions, `None` content, errors) takes `_slow`.
    """
    where = f"{label}: {path or name}"

    if isinstance(mode, type):
        validate = mode.__pydantic_validator__.validate_python

        def to_messages(value: Any) -> Any:
            if type(value) is list:
                out = value.copy()
                try:
                    for i, item in enumerate(value):
                        if type(item) is dict:
                            out[i] = validate(item)
                        elif not isinstance(item, mode):
                            return _slow(value, where, mode, allow_none)
                except ValidationError:
                    return _slow(value, where, mode, allow_none)
                return out
            return _slow(value, where, mode, allow_none)

        return to_messages

    def check(value: Any) -> Any:
        if type(value) is list:
            for item in value:
                if not (
                    type(item) is dict
                    and type(item.get("role")) is str
                    and type(item.get("content", "")) is str
                ):
                    return _slow(value, where, mode, allow_none)
            return value
        return _slow(value, where, mode, allow_none)

    return check


def _slow(value: Any, where: str, mode: Mode, allow_none: bool) -> Any:
    """The general conversion, which also finds and describes what is wrong."""
    if type(value) is not list:
        if value is None and allow_none:
            return None
        raise _input_error(
            where,
            f"{where} must be a list of messages (got {show(value)}). Pass e.g. [{_EXAMPLE}].",
        )
    out = value
    for i, item in enumerate(value):
        new = item
        if isinstance(item, Message):
            if mode == "dict":
                new = item.model_dump(exclude_none=True)
            elif isinstance(mode, type) and not isinstance(item, mode):
                new = _to_message(mode, item.model_dump(), where, i)  # a Message subclass
        elif isinstance(item, Mapping):
            _check_dict(item, where, i)
            if isinstance(mode, type):
                new = _to_message(mode, item, where, i)
            elif mode == "dict" and type(item) is not dict:
                new = dict(item)
        else:
            raise _input_error(
                where,
                f"{where}[{i}] must be a dict or a Message (got {show(item)}). "
                f"Write each message as e.g. {_EXAMPLE}.",
            )
        if new is not item:
            out = _replace(out, value, i, new)
    return out


def _replace(out: list[Any], original: list[Any], i: int, new: Any) -> list[Any]:
    """Set `out[i]`, copying the caller's list first: their list is never modified."""
    if out is original:
        out = list(original)
    out[i] = new
    return out


def _check_dict(item: Mapping[str, Any], where: str, i: int) -> None:
    role = item.get("role")
    if type(role) is not str:
        if "role" not in item:
            raise _input_error(
                where,
                f"{where}[{i}] has no 'role' (got {show(item)}). Every message needs one: "
                "'system', 'user', 'assistant' or 'tool'.",
            )
        raise _input_error(where, f"{where}[{i}]['role'] must be a string (got {show(role)}).")
    content = item.get("content")
    if content is None or type(content) is str:
        return
    if type(content) is not list:
        raise _input_error(
            where,
            f"{where}[{i}]['content'] must be a string, a list of content parts or None "
            f"(got {show(content)}).",
        )
    for j, part in enumerate(content):
        if not isinstance(part, Mapping) or not isinstance(part.get("type"), str):
            raise _input_error(
                where,
                f"{where}[{i}]['content'][{j}] must be a content part with a string 'type' "
                f"(got {show(part)}). Write e.g. {{'type': 'text', 'text': '...'}}.",
            )


def _to_message(cls: type[Message], item: Mapping[str, Any], where: str, i: int) -> Message:
    try:
        return cls.model_validate(item)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = "".join(f"[{p!r}]" for p in error["loc"])
        raise _input_error(
            where, f"{where}[{i}]{loc}: {error['msg']} (got {show(error['input'])})."
        ) from exc
