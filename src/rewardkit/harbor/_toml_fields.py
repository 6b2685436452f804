"""Typed reads of one TOML table that collect located errors instead of raising.

Hand-validated rather than through pydantic: the messages name the file, the table and key,
what was found, and an example of a valid value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from rewardkit.core._errors import ConfigError, did_you_mean

__all__ = ["TableReader"]

T = TypeVar("T")


class TableReader:
    """Read keys of `table` (at `where` in `path`); each problem is appended to `errors`
    and the default is returned, so one pass reports everything."""

    def __init__(
        self, table: Mapping[str, Any], path: Path, where: str, errors: list[ConfigError]
    ) -> None:
        self.table = table
        self.path = path
        self.where = where
        self.errors = errors

    def error(self, message: str, key: str | None = None) -> None:
        """Record `message` about `key` (or the whole table)."""
        where = f"{self.where}.{key}" if key is not None else self.where
        self.errors.append(ConfigError(message, path=self.path, key=where))

    def unknown(self, allowed: Sequence[str], what: str) -> None:
        """Report keys not in `allowed`, with a "did you mean" and the valid keys."""
        for key in self.table:
            if key not in allowed:
                valid = ", ".join(allowed)
                self.error(
                    f"unknown key {key!r}.{did_you_mean(key, allowed)} {what} takes: {valid}."
                )

    def string(self, key: str, example: str) -> str | None:
        """An optional non-empty string."""
        value = self.table.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.error(f"must be a non-empty string (got {value!r}), e.g. {key} = {example}", key)
            return None
        return value

    def strings(self, key: str, example: str) -> tuple[str, ...]:
        """An optional list of non-empty strings."""
        value = self.table.get(key, [])
        if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
            return tuple(value)
        self.error(
            f"must be a list of non-empty strings (got {value!r}), e.g. {key} = {example}", key
        )
        return ()

    def boolean(self, key: str, default: bool) -> bool:
        value = self.table.get(key, default)
        if not isinstance(value, bool):
            self.error(f"must be true or false (got {value!r})", key)
            return default
        return value

    def number(self, key: str, default: float, *, positive: bool = False) -> float:
        """A finite number (an int stays an int), optionally > 0."""
        value = self.table.get(key, default)
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok or not math.isfinite(value) or (positive and value <= 0):
            need = "a positive number" if positive else "a finite number"
            self.error(f"must be {need} (got {value!r}), e.g. {key} = {default!r}", key)
            return default
        return value  # type: ignore[no-any-return]

    def integer(self, key: str, default: int, *, minimum: int) -> int:
        value = self.table.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            self.error(
                f"must be an integer of at least {minimum} (got {value!r}), e.g. "
                f"{key} = {max(default, minimum)}",
                key,
            )
            return default
        return value

    def choice(self, key: str, choices: Sequence[T], default: T) -> T:
        """One of `choices` (strings)."""
        value = self.table.get(key, default)
        if value not in choices:
            valid = ", ".join(repr(c) for c in choices)
            hint = did_you_mean(value, [str(c) for c in choices]) if isinstance(value, str) else ""
            self.error(f"must be one of {valid} (got {value!r}).{hint}", key)
            return default
        return value  # type: ignore[no-any-return]
