"""Reading one JSON object of a grader file, each problem a `ConfigError` at its JSON path."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError, did_you_mean

__all__ = ["Fields"]


@dataclass(frozen=True)
class Fields:
    """A JSON object of the grader file at `prefix` (e.g. `graders.b.`)."""

    data: Mapping[str, Any]
    path: Path | None
    prefix: str = ""

    def error(self, key: str, message: str) -> ConfigError:
        """`<file>: <prefix><key>: <message>`."""
        return ConfigError(message, path=self.path, key=f"{self.prefix}{key}")

    def only(self, keys: Collection[str], what: str) -> None:
        """Refuse a key `what` (e.g. "a python grader") does not have, naming the valid ones."""
        for key in self.data:
            if key not in keys:
                hint = did_you_mean(str(key), keys)
                valid = ", ".join(sorted(keys))
                raise self.error(str(key), f"unknown field of {what}.{hint} Valid: {valid}")

    def text(self, key: str, *, default: str | None = None) -> str:
        """A required string (or `default` when absent and one is given)."""
        value = self.data.get(key, default)
        if value is None:
            raise self.error(key, "is required")
        if not isinstance(value, str):
            raise self.error(key, f"must be a string (got {_short(value)})")
        return value

    def choice(self, key: str, choices: Collection[str]) -> str:
        """A required string among `choices`."""
        value = self.text(key)
        if value not in choices:
            hint = did_you_mean(value, choices)
            raise self.error(key, f"unknown {value!r}.{hint} Valid: {', '.join(choices)}")
        return value

    def number(self, key: str) -> float | None:
        """An optional finite number."""
        value = self.data.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.error(key, f"must be a number (got {_short(value)})")
        if not math.isfinite(value):
            raise self.error(key, f"must be a finite number (got {value!r})")
        return float(value)

    def strings(self, key: str) -> tuple[str, ...]:
        """A required, non-empty list of strings."""
        value = self.data.get(key)
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise self.error(key, f"must be a non-empty list of strings (got {_short(value)})")
        return tuple(value)

    def mapping(self, key: str) -> Mapping[str, Any]:
        """A required, non-empty JSON object."""
        value = self.data.get(key)
        if not isinstance(value, Mapping) or not value:
            raise self.error(key, f"must be a non-empty object (got {_short(value)})")
        return value


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."
