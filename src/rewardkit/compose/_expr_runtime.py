"""Run-time guards of the expression language: the allowed functions, and the operators
that could otherwise build runaway values.

Sizes: `+` and `*` build at most 10,000 items, `*` builds integers of at most 2**1100, and
`//`, `%` and `round(x, -n)` refuse integers beyond that. The time an operation may take is
bounded by the cost meter, in `_expr_cost`.

Each guard raises (`OverflowError`, `TypeError`, `ValueError`); the composer turns that into
a 0.0 reward with a warning, as for any other run-time failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from rewardkit.compose._expr_cost import NUMBERS

__all__ = ["FUNCTIONS", "add", "floordiv", "mod", "mul", "short_key"]

_MAX_SIZE = 10_000  # longest str/list/tuple that `+` or `*` may build at run time
_MAX_INT_BITS = 1100  # largest |int| that `*` may build, and `//`, `%`, `round` accept
_MAX_INT = 1 << _MAX_INT_BITS
_MAX_NDIGITS = 1000  # round(x, n): a huge |n| would build a huge power of ten
_SEQUENCES = (str, bytes, list, tuple)


def short_key(key: Any) -> Any:
    """`key` as a `KeyError` may show it: long strings cut, big keys named by their type."""
    if isinstance(key, str):
        return key if len(key) <= 100 else key[:100] + "…"
    if key.__class__ in NUMBERS or (isinstance(key, int) and key.bit_length() <= 64):
        return key
    return f"<a {type(key).__name__} key>"


def add(a: Any, b: Any) -> Any:
    """`a + b`; sequences are measured before they are joined."""
    if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES):
        size = len(a) + len(b)
        if size > _MAX_SIZE:
            raise OverflowError(f"result has {size} items; the limit is {_MAX_SIZE}")
    return a + b


def mul(a: Any, b: Any) -> Any:
    if a.__class__ is float and b.__class__ is float:
        return a * b
    seq, times = (a, b) if isinstance(a, _SEQUENCES) else (b, a)
    if isinstance(seq, _SEQUENCES) and isinstance(times, int) and len(seq) * times > _MAX_SIZE:
        raise OverflowError(f"repeating {len(seq)} items {times} times exceeds {_MAX_SIZE}")
    # a product has at least bits(a) + bits(b) - 1 bits: refuse before computing it
    both_int = isinstance(a, int) and isinstance(b, int) and a and b
    if both_int and a.bit_length() + b.bit_length() > _MAX_INT_BITS + 2:
        raise OverflowError("integer result is too large")
    value = a * b
    if value.__class__ is int and not -_MAX_INT <= value <= _MAX_INT:
        raise OverflowError("integer result is too large")
    return value


def _big_int(*values: Any) -> None:
    for value in values:
        if isinstance(value, int) and not -_MAX_INT <= value <= _MAX_INT:
            raise OverflowError(f"an integer beyond 2**{_MAX_INT_BITS} is not allowed here")


def floordiv(a: Any, b: Any) -> Any:
    if a.__class__ is not float:
        _big_int(a, b)  # long division of huge integers is quadratic
    return a // b


def mod(a: Any, b: Any) -> Any:
    if isinstance(a, str | bytes):  # '%999999999s' % x would build a huge string
        raise TypeError("'%' string formatting is not allowed")
    if a.__class__ is not float:
        _big_int(a, b)
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
    if isinstance(ndigits, int) and ndigits < 0:
        _big_int(number)
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
