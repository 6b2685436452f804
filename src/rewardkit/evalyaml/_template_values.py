"""The values a judge prompt's template sees: each knows its path in the case (for errors) and
whether it came from the agent's side, through any subscript, attribute, loop or method, so
that it prints fenced (`fence`) however it was reached (see `_template`)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from rewardkit.evalyaml import _case_text

__all__ = [
    "FINALIZE_LIMIT",
    "AgentIter",
    "AgentStr",
    "CaseDict",
    "CaseList",
    "fence",
    "taint",
    "untrusted",
    "wrap",
]

_TRUSTED_KEYS = frozenset({"annotations", "inputs", "case_id", "case_path", "case_dir"})
"""Keys of the record that are the author's (or rewardkit's), not the agent's."""
_CLOSING_TAG = re.compile(r"<\s*/\s*submission", re.IGNORECASE)
_SHOWN_AS_TEXT: dict[str, Callable[[Any], str]] = {"outputs.inputs": _case_text.inputs_text}
"""Mappings of the record the harness's record holds as text, by their path."""
FINALIZE_LIMIT = 1 << 22
"""The most characters one `{{ ... }}` prints (4 Mi), whatever the value."""


class AgentStr(str):
    """A string from the agent's side."""

    __slots__ = ()


class CaseDict(dict[Any, Any]):
    """A mapping of the case: its values are wrapped as they are read; one with a `text`
    prints as that text (worked out once)."""

    def __init__(
        self,
        data: Mapping[Any, Any],
        path: str,
        untrusted: bool,
        text: Callable[[], str] | None = None,
    ) -> None:
        super().__init__(data)
        self._rk_path, self._rk_untrusted, self._rk_text = path, untrusted, text
        self._rk_shown: str | None = None

    def _rk_child(self, key: Any) -> tuple[str, bool]:
        trusted = self._rk_path == "outputs" and (
            key in _TRUSTED_KEYS or (isinstance(key, str) and key.startswith("annotation_"))
        )
        return f"{self._rk_path}.{key}", self._rk_untrusted and not trusted

    def _rk_str(self, limit: int) -> str | None:
        """The text this mapping prints as, at most `limit` characters (None: it has none)."""
        if self._rk_text is None:
            return None
        if self._rk_shown is None:
            self._rk_shown = self._rk_text()
        return self._rk_shown[:limit]

    def __str__(self) -> str:
        shown = self._rk_str(FINALIZE_LIMIT)
        return _case_text.bounded_str(self, FINALIZE_LIMIT) if shown is None else shown

    def __getitem__(self, key: Any) -> Any:
        value = super().__getitem__(key)
        path, untrusted = self._rk_child(key)
        show = _SHOWN_AS_TEXT.get(path)
        if show is not None and isinstance(value, Mapping):
            return CaseDict(value, path, untrusted, functools.partial(show, value))
        return wrap(value, path, untrusted)

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def __iter__(self) -> Iterator[Any]:
        return (wrap(k, self._rk_path, self._rk_untrusted) for k in super().__iter__())

    def keys(self) -> Any:
        return CaseList(list(super().keys()), self._rk_path, self._rk_untrusted)

    def values(self) -> Any:
        return CaseList([self[k] for k in dict.__iter__(self)], self._rk_path, self._rk_untrusted)

    def items(self) -> Any:
        keys = dict.__iter__(self)
        pairs = [(wrap(k, self._rk_path, self._rk_untrusted), self[k]) for k in keys]
        return CaseList(pairs, self._rk_path, self._rk_untrusted)


class CaseList(list[Any]):
    """A list (or tuple) of the case: its items are wrapped as they are read."""

    def __init__(self, data: Any, path: str, untrusted: bool) -> None:
        super().__init__(data)
        self._rk_path, self._rk_untrusted = path, untrusted

    def __getitem__(self, index: Any) -> Any:
        item = super().__getitem__(index)
        if isinstance(index, slice):
            return CaseList(item, self._rk_path, self._rk_untrusted)
        return wrap(item, f"{self._rk_path}[{index}]", self._rk_untrusted)

    def __iter__(self) -> Iterator[Any]:
        for i, item in enumerate(super().__iter__()):
            yield wrap(item, f"{self._rk_path}[{i}]", self._rk_untrusted)


class AgentIter:
    """An iterator over values from the agent's side (e.g. what `map` returns)."""

    def __init__(self, items: Iterator[Any]) -> None:
        self._rk_items = items

    def __iter__(self) -> AgentIter:
        return self

    def __next__(self) -> Any:
        return wrap(next(self._rk_items), "(an item)", True)


def wrap(value: Any, path: str, untrusted: bool) -> Any:
    if isinstance(value, AgentStr | CaseDict | CaseList | AgentIter):
        return value
    if isinstance(value, Mapping):
        return CaseDict(value, path, untrusted)
    if isinstance(value, list | tuple):
        return CaseList(value, path, untrusted)
    if not untrusted:
        return value
    if isinstance(value, str):
        return AgentStr(value)
    if isinstance(value, Iterator):
        return AgentIter(value)
    return value


def untrusted(value: Any, depth: int = 1) -> bool:
    """Whether `value` came from the agent's side (a plain list or tuple: whether an item
    did, one level down, e.g. `[conversation] | join`)."""
    if isinstance(value, AgentStr | AgentIter):
        return True
    if isinstance(value, CaseDict | CaseList):
        return value._rk_untrusted
    if depth and isinstance(value, list | tuple):
        return any(untrusted(v, 0) for v in value[:1000])
    return False


def taint(value: Any) -> Any:
    return wrap(value, "(a value from the case)", True)


def fence(text: str) -> str:
    return "<submission>" + _CLOSING_TAG.sub(r"<\\/submission", text) + "</submission>"
