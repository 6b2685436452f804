"""Reading the fields of untrusted report inputs: a number, a mapping, a text or a judge's
status when it is one (else a neutral value), and why a file could not be read."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["judge_status", "mapping", "number", "text", "why_unreadable"]

_STATUSES = ("scored", "skipped", "error", "timeout")


def number(value: object) -> float | None:
    """`value` as a finite float, else None (a bool is not a number here)."""
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok and math.isfinite(float(value)) else None  # type: ignore[arg-type]


def mapping(value: object) -> Mapping[str, Any]:
    """`value` if it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def text(value: object) -> str | None:
    """`value` if it is a non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def judge_status(given: object, value: object, error: object) -> str:
    """`given` if it is a status; else (a summary or details from before `status`) inferred."""
    if given in _STATUSES:
        return str(given)
    return "error" if error else "scored" if value is not None else "skipped"


def why_unreadable(exc: BaseException) -> str:
    """One line saying why a file could not be read."""
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    if isinstance(exc, UnicodeDecodeError):
        return "not UTF-8 text"
    if type(exc).__name__ == "JSONDecodeError":
        return f"not valid JSON ({exc}); truncated?"
    return str(exc) or type(exc).__name__
