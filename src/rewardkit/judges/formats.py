"""How a judge answers one criterion: yes/no, a Likert point, a number, or a rubric level.

Each format tells the judge what to answer (`prompt_fragment`), constrains the answer
(`json_schema`), and turns the answer into a score in [0, 1] (`normalize`):

| format | asked for | normalize(raw) |
|---|---|---|
| `Binary()` | `"yes" or "no"` | 1.0 for yes/true/1 (any case, stripped) or a non-zero number |
| `Likert(points=5)` | an integer from 1 to `points` | (raw - 1) / (points - 1) |
| `Numeric(min=0, max=1)` | a number from `min` to `max` | (raw - min) / (max - min) |
| `Rubric(levels)` | a level index from 0 to n - 1 | raw / (n - 1) |

Scores are clamped to [0, 1]; numeric strings are accepted. An answer that is no number at
all (or NaN, or infinite) raises `ValueError`, so the judge can be asked again.

>>> Likert(points=5).normalize(4)
0.75
>>> Binary().normalize(" Yes ")
1.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["FORMAT_TYPES", "Binary", "Format", "Likert", "Numeric", "Rubric"]

MAX_LEVELS = 10


@dataclass(frozen=True, kw_only=True)
class Binary:
    """A yes/no question: yes is 1.0, no is 0.0."""

    def prompt_fragment(self) -> str:
        """What the judge is asked to answer."""
        return '"yes" or "no"'

    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the `score` field."""
        return {"type": "string", "enum": ["yes", "no"]}

    def example(self) -> Any:
        """A valid answer for the prompt's JSON example (mid-scale, to suggest no verdict)."""
        return "yes"

    def normalize(self, raw: Any) -> float:
        """1.0 for `True`, "yes"/"true"/"1" or a non-zero number; 0.0 otherwise.

        Raises:
            ValueError: for a non-finite number or a value that is neither text nor a number.
        """
        if isinstance(raw, bool):
            return 1.0 if raw else 0.0
        if isinstance(raw, str):
            return 1.0 if raw.strip().lower() in ("yes", "true", "1") else 0.0
        return 1.0 if _number(raw) != 0 else 0.0


@dataclass(frozen=True, kw_only=True)
class Likert:
    """A point on a 1..`points` scale; 1 is 0.0 and `points` is 1.0."""

    points: int = 5

    def __post_init__(self) -> None:
        if isinstance(self.points, bool) or not isinstance(self.points, int) or self.points < 2:
            raise ValueError(
                f"likert points must be an integer of at least 2 (got {self.points!r}), "
                f"e.g. points = 5"
            )

    def prompt_fragment(self) -> str:
        return f"an integer from 1 to {self.points}"

    def json_schema(self) -> dict[str, Any]:
        return {"type": "integer"}

    def example(self) -> Any:
        return (self.points + 1) // 2

    def normalize(self, raw: Any) -> float:
        """`(raw - 1) / (points - 1)`, clamped to [0, 1].

        Raises:
            ValueError: when `raw` is not a finite number or numeric string.
        """
        return _clamp01((_number(raw) - 1) / (self.points - 1))


@dataclass(frozen=True, kw_only=True)
class Numeric:
    """A number from `min` to `max`, mapped linearly onto [0, 1]."""

    min: float = 0.0
    max: float = 1.0

    def __post_init__(self) -> None:
        for name in ("min", "max"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"numeric {name} must be a number (got {value!r})")
            if not math.isfinite(value):
                raise ValueError(f"numeric {name} must be finite (got {value!r})")
        if self.max <= self.min:
            raise ValueError(
                f"numeric max must be greater than min (got min = {self.min!r}, "
                f"max = {self.max!r}), e.g. min = 0 and max = 10"
            )

    def prompt_fragment(self) -> str:
        return f"a number from {float(self.min)} to {float(self.max)}"

    def json_schema(self) -> dict[str, Any]:
        return {"type": "number"}

    def example(self) -> Any:
        return (self.min + self.max) / 2

    def normalize(self, raw: Any) -> float:
        """`(raw - min) / (max - min)`, clamped to [0, 1].

        Raises:
            ValueError: when `raw` is not a finite number or numeric string.
        """
        return _clamp01((_number(raw) - self.min) / (self.max - self.min))


@dataclass(frozen=True, kw_only=True)
class Rubric:
    """One of 2 to 10 described levels, worst first; level i of n scores i / (n - 1)."""

    levels: tuple[str, ...]

    def __post_init__(self) -> None:
        levels = self.levels
        if isinstance(levels, str) or not isinstance(levels, list | tuple):
            raise ValueError(
                f"rubric levels must be a list of 2 to {MAX_LEVELS} descriptions (got "
                f'{levels!r}), e.g. levels = ["Wrong", "Partly right", "Right"]'
            )
        if not 2 <= len(levels) <= MAX_LEVELS:
            raise ValueError(
                f"a rubric needs 2 to {MAX_LEVELS} levels (got {len(levels)}), e.g. "
                f'levels = ["Wrong", "Partly right", "Right"]'
            )
        for i, level in enumerate(levels):
            if not isinstance(level, str) or not level.strip():
                raise ValueError(
                    f"rubric level {i} must be a non-empty description (got {level!r})"
                )
        object.__setattr__(self, "levels", tuple(levels))

    def prompt_fragment(self) -> str:
        scale = "; ".join(f"{i} = {level}" for i, level in enumerate(self.levels))
        return f"an integer from 0 to {len(self.levels) - 1}, where {scale}"

    def json_schema(self) -> dict[str, Any]:
        return {"type": "integer"}

    def example(self) -> Any:
        return (len(self.levels) - 1) // 2

    def normalize(self, raw: Any) -> float:
        """`raw / (n - 1)`, clamped to [0, 1].

        Raises:
            ValueError: when `raw` is not a finite number or numeric string.
        """
        return _clamp01(_number(raw) / (len(self.levels) - 1))


Format = Binary | Likert | Numeric | Rubric
"""Any criterion format."""

FORMAT_TYPES: dict[str, type[Format]] = {
    "binary": Binary,
    "likert": Likert,
    "numeric": Numeric,
    "rubric": Rubric,
}
"""The `type` values of a judge TOML's `[[criterion]]`."""


def _number(raw: Any) -> float:
    """`raw` as a finite float; bools are not numbers here (a judge answering `true` on a
    scale answered the wrong question)."""
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError(f"expected a number, got {raw!r}")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"expected a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {raw!r}")
    return value


def _clamp01(value: float) -> float:
    return min(1.0, max(0.0, value))
