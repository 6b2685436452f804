"""`Message`: one chat message in the OpenAI format, and its tool-call parts.

Public through `rewardkit.types` (and `rewardkit`, `reward_kit`). Differences from reward-kit
0.4.1, on purpose: `content` may be a list of content parts (multimodal), unknown keys such as
`reasoning_content` are kept instead of dropped, a tool call's `id` is optional and its
`arguments` may be given as a dict (stored as the JSON string the OpenAI format uses).
"""

from __future__ import annotations

import json
from collections.abc import ItemsView, Iterator, KeysView, Mapping
from typing import Annotated, Any, ClassVar, Self

from pydantic import AfterValidator, BaseModel, ConfigDict, field_validator

__all__ = ["ContentPart", "DictAccess", "FunctionCall", "Message", "ToolCall"]

ContentPart = dict[str, Any]
"""One part of a multimodal `content` list, e.g. `{"type": "text", "text": "hi"}`."""


class DictAccess:
    """Read-only mapping access to a model's fields: `obj["score"]`, `.get`, `.keys`, `in`.

    Only fields (and extra keys, on models that keep them) are keys; methods never are.
    Iterating yields the keys, as in reward-kit 0.4.1 (so `dict(obj)`, `list(obj)` and
    `set(obj)` all read like a dict's).
    """

    _hidden_when_none: ClassVar[frozenset[str]] = frozenset()
    """Optional fields that are keys (and dumped) only when set, e.g. `MetricResult.success`."""

    def _keys(self) -> dict[str, None]:
        model: Any = self
        keys = dict.fromkeys(type(model).model_fields)
        for name in self._hidden_when_none:
            if getattr(model, name) is None:
                del keys[name]
        if model.model_extra:
            keys.update(dict.fromkeys(model.model_extra))
        return keys

    def __getitem__(self, key: str) -> Any:
        if key in self._keys():
            return getattr(self, key)
        valid = ", ".join(self._keys())
        raise KeyError(f"{type(self).__name__} has no key {key!r}; valid keys: {valid}")

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self._keys()

    def __iter__(self) -> Iterator[str]:
        """The keys (pydantic's own `__iter__` yields `(name, value)` pairs)."""
        return iter(self._keys())

    def get(self, key: str, default: Any = None) -> Any:
        """`obj[key]`, or `default` when `key` is not a field.

        Example:
            >>> from rewardkit.types import EvaluateResult
            >>> EvaluateResult(score=0.5, reason="ok").get("reason", "none given")
            'ok'
            >>> EvaluateResult(score=0.5).get("confidence", "none given")
            'none given'
        """
        return self[key] if key in self else default  # noqa: SIM401 - `self` is no dict

    def keys(self) -> KeysView[str]:
        """The field names, in declaration order (then any extra keys)."""
        return self._keys().keys()

    def values(self) -> list[Any]:
        """The field values, in the order of `keys()`."""
        return [getattr(self, k) for k in self._keys()]

    def items(self) -> ItemsView[str, Any]:
        """`(name, value)` pairs, in the order of `keys()`."""
        return {k: getattr(self, k) for k in self._keys()}.items()


def _arguments_to_json(value: Any) -> Any:
    """Arguments given as a dict become the JSON string the OpenAI format specifies."""
    if isinstance(value, dict):
        return json.dumps(value)
    return value


class FunctionCall(BaseModel):
    """A function call: its `name` and its `arguments` as a JSON string.

    Example:
        >>> FunctionCall(name="get_weather", arguments={"city": "Paris"}).arguments
        '{"city": "Paris"}'
    """

    model_config = ConfigDict(extra="allow")

    name: str
    arguments: str = "{}"
    """A JSON object as text; a dict given here is serialized with `json.dumps`."""

    @field_validator("arguments", mode="before")
    @classmethod
    def _normalize_arguments(cls, value: Any) -> Any:
        return _arguments_to_json(value)


class ToolCall(BaseModel):
    """One entry of an assistant message's `tool_calls`.

    Example:
        >>> call = ToolCall(function={"name": "search", "arguments": '{"q": "rust"}'})
        >>> call.function.name, call.type
        ('search', 'function')
    """

    model_config = ConfigDict(extra="allow")

    id: str | None = None
    """The call id; optional here (datasets often leave it out), required by OpenAI."""
    type: str = "function"
    function: FunctionCall


def _check_parts(parts: list[ContentPart]) -> list[ContentPart]:
    for i, part in enumerate(parts):
        if not isinstance(part.get("type"), str):
            raise ValueError(
                f"content part {i} needs a string 'type' (got {part!r}); "
                'write e.g. {"type": "text", "text": "..."}'
            )
    return parts


Content = str | Annotated[list[ContentPart], AfterValidator(_check_parts)] | None
"""Text, a list of content parts (`{"type": "text"|"image_url"|..., ...}`), or `None`."""


class Message(DictAccess, BaseModel):  # type: ignore[misc]  # iterates keys, not pairs
    """One chat message, compatible with the OpenAI message format.

    `role` is required and is any string (`system`, `user`, `assistant`, `tool`, ...).
    Unknown keys are kept (`msg.model_extra`), so provider fields such as
    `reasoning_content` survive a round trip. Read it like a dict too: `msg["content"]`.

    Example:
        >>> msg = Message(role="assistant", content="Paris.")
        >>> msg.role, msg["content"], msg.tool_calls
        ('assistant', 'Paris.', None)
    """

    model_config = ConfigDict(extra="allow")

    role: str
    """Who sent the message: `system`, `user`, `assistant`, `tool`, ..."""
    content: Content = ""
    """The text, a list of content parts, or `None` (e.g. for a pure tool-call turn)."""
    name: str | None = None
    """The sender's name, for named participants."""
    tool_call_id: str | None = None
    """On a `tool` message: the id of the call this answers."""
    tool_calls: list[ToolCall] | None = None
    """On an `assistant` message: the tools it calls."""
    function_call: FunctionCall | None = None
    """The legacy single function call."""

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        """Validate `obj` into a `Message`; a mapping without `role` is a plain `ValueError`.

        Example:
            >>> Message.model_validate({"content": "hi"})  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            ValueError: Role is required: a message needs a 'role' ... (got keys: ['content'])
        """
        if isinstance(obj, Mapping) and "role" not in obj:
            raise ValueError(  # reward-kit 0.4.1's message, then ours
                "Role is required: a message needs a 'role' such as 'user' or 'assistant' "
                f"(got keys: {sorted(map(str, obj))})"
            )
        return super().model_validate(obj, *args, **kwargs)
