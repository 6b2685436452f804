"""The cost meter of the expression language: it keeps every evaluation short.

The operations whose time grows with their operands — comparing, searching or hashing
containers and strings, and `min`/`max`/`sum`/`mean` — are *metered*. The compiler gives
each metered operation of an expression an equal `Share` of `BUDGET` steps, fixed once it is
compiled. An expression has no loops, so each operation runs at most once per evaluation
and the shares bound the whole evaluation. A metered operation first measures its operands
(`weight` stops counting once past the share, so measuring is bounded too) and raises
`OverflowError` rather than start work it could not finish in time. One step stands for
about 0.1 µs of the slowest work it may cause; docs/design/formula.md ("Cost") has the table.

The composer turns that `OverflowError` into a 0.0 reward with a warning, as for any other
run-time failure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import chain
from typing import Any

__all__ = [
    "BUDGET",
    "METERED",
    "NUMBERS",
    "SCALARS",
    "Share",
    "charge_key",
    "contains",
    "metered_call",
    "metered_compare",
    "weight",
]

BUDGET = 50_000  # steps one evaluation may spend on size-dependent work (about 5 ms)
_CONTAINERS = (list, tuple, set, frozenset)
_STR_SHIFT = 8  # comparing or hashing a string: one step per 256 characters
_SEARCH_SHIFT = 3  # searching a string (`in`): one step per 8 characters
_INT_SHIFT = 9  # an integer: one more step per 512 bits
SCALARS = frozenset({float, int, bool, type(None)})
"""Types whose comparisons cost O(1) whatever the other operand (ints: within a few µs)."""
NUMBERS = frozenset({float, bool, type(None)})
"""Types that weigh one step each, with no size to read."""
METERED = frozenset({"max", "mean", "min", "sum"})
"""The functions whose time grows with their arguments (`len`, `abs`, `round` do not)."""


class Share:
    """The steps each metered operation of one expression may spend.

    The compiler creates one, counts the metered operations it builds, then sets `steps` to
    `BUDGET // count`. It is never written again, so evaluations may run concurrently.
    """

    __slots__ = ("steps",)

    def __init__(self) -> None:
        self.steps = BUDGET


def _over(what: str, limit: int) -> OverflowError:
    return OverflowError(
        f"{what} would exceed the expression's cost budget ({limit:,} steps for this"
        f" operation, {BUDGET:,} per evaluation); see docs/design/formula.md"
    )


def weight(value: object, limit: int) -> int:
    """The steps an operation may spend on `value`; any result above `limit` means "too many".

    One step per value reached (the container, each item, each key and each value), one
    more per dict entry (the lookup), plus one per 256 characters of a string and per 512
    bits of an integer. Shared references count every time they are reached, as
    comparisons reach them. The walk goes level by level, at C speed when a level holds one
    type (a level mixing types is walked in Python, and each of its values counts thrice),
    and stops once past `limit`, so measuring costs about `limit` steps at most.

    >>> weight([0.5, 1.0, 2.0], 100), weight([0.5, 1.0, "abc"], 100), weight([[0.5]] * 9, 10)
    (4, 10, 19)
    """
    total = 0
    level: list[Any] = [value]
    while level:
        total += len(level)
        if total > limit:
            return total
        kinds = set(map(type, level))
        if kinds <= NUMBERS:
            return total
        kind = kinds.pop() if len(kinds) == 1 else None
        if kind is str:
            return total + (sum(map(len, level)) >> _STR_SHIFT)
        if kind is int:
            return total + (sum(map(int.bit_length, level)) >> _INT_SHIFT)
        if kind is list or kind is tuple or kind is dict:
            size = sum(map(len, level))
            if kind is dict:
                total += size  # the lookups
                size *= 2  # keys and values
            if total + size > limit:  # refused before a big level is built
                return total + size
            items = list(chain.from_iterable(level))
            if kind is dict:
                items += chain.from_iterable(map(dict.values, level))
            level = items
        else:
            total, level = _mixed_level(level, total, limit)
    return total


def _mixed_level(level: list[Any], total: int, limit: int) -> tuple[int, list[Any]]:
    """One level of `weight` holding several types: the extra steps, and the next level.

    The level is walked in Python, and the operations then run over mixed values: measured
    two to three times as slow per value as the one-type levels above, so each of its
    values counts two steps more.
    """
    total += 2 * len(level)
    parts: list[Any] = []
    for item in level:
        cls = item.__class__
        if cls in NUMBERS:
            continue
        if cls is list or cls is tuple:
            size = len(item)
        elif cls is dict:
            size = 2 * len(item)
            total += len(item)
        elif cls is str:
            total += len(item) >> _STR_SHIFT
            continue
        elif cls is int:
            total += item.bit_length() >> _INT_SHIFT
            continue
        else:
            total, size = _other(item, total)
        if total + len(parts) + size > limit:  # refused before a big level is built
            return total + len(parts) + size, []
        if size:
            parts += item
            if cls is dict or isinstance(item, Mapping):
                parts += item.values()
    return total, parts


def _other(item: Any, total: int) -> tuple[int, int]:
    """Subclasses, bytes and sets: the extra steps, and how many parts `item` adds."""
    if isinstance(item, str | bytes):
        return total + (len(item) >> _STR_SHIFT), 0
    if isinstance(item, int):
        return total + (item.bit_length() >> _INT_SHIFT), 0
    if isinstance(item, _CONTAINERS):
        return total, len(item)
    if isinstance(item, Mapping):
        return total + len(item), 2 * len(item)
    return total, 0  # a type neither the composer nor a case record binds: one step


def _check(what: str, cost: int, limit: int) -> None:
    if cost > limit:
        raise _over(what, limit)


def metered_compare(
    symbol: str, op: Callable[[Any, Any], Any], share: Share
) -> Callable[[Any, Any], Any]:
    """`op` (`==`, `<`, ...), refused when neither operand weighs at most half the share.

    A comparison stops at the first difference and can never walk more of either operand
    than it has, so the lighter operand bounds it; the other half pays for measuring.
    """
    what = f"'{symbol}' on values this large"

    def compare(a: Any, b: Any) -> Any:
        if a.__class__ in SCALARS or b.__class__ in SCALARS:
            return op(a, b)
        limit = share.steps
        half = limit // 2  # room to measure both operands
        light, heavy = (a, b) if _size(a) <= _size(b) else (b, a)
        if weight(light, half) > half and weight(heavy, half) > half:
            raise _over(what, limit)
        return op(a, b)

    return compare


def _size(value: object) -> int:
    try:
        return len(value)  # type: ignore[arg-type]
    except TypeError:
        return 0


def contains(needle: Any, haystack: Any, limit: int) -> bool:
    """`needle in haystack`, refused when its worst case exceeds `limit` steps."""
    what = "'in' on values this large"
    if isinstance(haystack, str | bytes):
        if isinstance(needle, str | bytes):
            _check(what, 1 + ((len(haystack) + len(needle)) >> _SEARCH_SHIFT), limit)
    elif isinstance(haystack, Mapping | set | frozenset):
        _check(what, weight(needle, limit), limit)  # hashing the needle
    elif isinstance(haystack, list | tuple):
        count = len(haystack) + 1
        if needle.__class__ not in SCALARS:
            # each item is compared with the needle: bounded by the needle times the count,
            # and by the items themselves (half the share each, for measuring both)
            half = limit // 2
            if count * weight(needle, half) > half:
                count = 2 * weight(haystack, half)
        _check(what, count, limit)
    return needle in haystack


def charge_key(key: Any, limit: int) -> Any:
    """`key`, once its hash (for `x[key]` or `.get(key)`) is known to fit in `limit` steps."""
    if key.__class__ not in SCALARS:
        _check("a key this large", weight(key, limit), limit)
    return key


def metered_call(name: str, target: Callable[..., Any], share: Share) -> Callable[..., Any]:
    """`target` (min, max, sum or mean), refused when the values it would walk weigh more
    than the share: one step per character of a string it iterates, else `weight`."""
    what = f"{name}() over values this large"

    def call(*args: Any) -> Any:
        limit = share.steps
        if len(args) == 1:
            items = args[0]
            if isinstance(items, str | bytes):
                _check(what, 1 + len(items), limit)
            elif items.__class__ not in SCALARS:
                _check(what, weight(items, limit), limit)
        elif not _all_numbers(args):
            _check(what, weight(args, limit), limit)
        return target(*args)

    return call


def _all_numbers(args: tuple[Any, ...]) -> bool:
    return set(map(type, args)) <= NUMBERS
