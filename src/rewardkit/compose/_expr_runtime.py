"""Run-time guards of the expression language: the allowed functions and the operators
that could otherwise build runaway values (huge strings, lists or integers).

Each guard raises (`OverflowError`, `TypeError`, `ValueError`); the composer turns that into
a 0.0 reward with a warning, as for any other run-time failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["FUNCTIONS", "mod", "mul", "sized"]

_MAX_SIZE = 10_000  # longest str/list/tuple that `+` or `*` may build at run time
_MAX_INT = 1 << 1100  # largest |int| that `*` may build (beyond any float)
_MAX_NDIGITS = 1000  # round(x, n): a huge |n| would build a huge power of ten
_SEQUENCES = (str, bytes, list, tuple)


def sized(value: Any) -> Any:
    if isinstance(value, _SEQUENCES) and len(value) > _MAX_SIZE:
        raise OverflowError(f"result has {len(value)} items; the limit is {_MAX_SIZE}")
    return value


def mul(a: Any, b: Any) -> Any:
    if a.__class__ is float and b.__class__ is float:
        return a * b
    seq, times = (a, b) if isinstance(a, _SEQUENCES) else (b, a)
    if isinstance(seq, _SEQUENCES) and isinstance(times, int) and len(seq) * times > _MAX_SIZE:
        raise OverflowError(f"repeating {len(seq)} items {times} times exceeds {_MAX_SIZE}")
    value = a * b
    if value.__class__ is int and not -_MAX_INT <= value <= _MAX_INT:
        raise OverflowError("integer result is too large")
    return value


def mod(a: Any, b: Any) -> Any:
    if isinstance(a, str | bytes):  # '%999999999s' % x would build a huge string
        raise TypeError("'%' string formatting is not allowed")
    return a % b


def _sum(*args: Any) -> Any:
    return sum(args[0] if len(args) == 1 else args)


def _mean(*args: Any) -> float:
    items = list(args[0] if len(args) == 1 else args)
    return sum(items) / len(items) if items else 0.0


def _round(number: Any, ndigits: Any = None) -> Any:
    if ndigits is None:
        return round(number)
    if isinstance(ndigits, int) and abs(ndigits) > _MAX_NDIGITS:
        raise ValueError(f"round() digits must be within ±{_MAX_NDIGITS} (got {ndigits})")
    return round(number, ndigits)


# name -> (implementation, fewest arguments, most arguments)
FUNCTIONS: Mapping[str, tuple[Callable[..., Any], int, int]] = {
    "abs": (abs, 1, 1),
    "len": (len, 1, 1),
    "max": (max, 1, 1 << 30),
    "mean": (_mean, 1, 1 << 30),
    "min": (min, 1, 1 << 30),
    "round": (_round, 1, 2),
    "sum": (_sum, 1, 1 << 30),
}
