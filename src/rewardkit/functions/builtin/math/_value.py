"""The value of an answer tree (see `_parse`): a `Fraction` where it is rational,
else an mpmath number at a working precision chosen for the comparison at hand.

Bounded for answers built to run away: exact arithmetic stops at 100,000 bits, a power
whose result would pass e^100000 and a factorial past 1000 are `Undefined`, and so is a
comparison that would need more than 2,000 digits (`working_digits`).
"""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

from rewardkit.functions.builtin.math._parse import Node

__all__ = ["Undefined", "approx", "nodes", "numbers_equal", "symbols", "value", "working_digits"]

_DIGITS = 60
"""Working precision beyond what an answer's own numbers could hide (see `_hidden`)."""
_GUARD = 15
"""Values agreeing to all but this many of the working digits are equal."""
_MAX_DIGITS = 2_000
"""A comparison that would need more working digits is undefined (`1 + 10^{-5000}\\pi`)."""
_MAX_LOG = 100_000
"""A power whose natural log passes this is undefined (bounds time and memory)."""
_MAX_BITS = 100_000


class Undefined(Exception):
    """0/0, 0·∞, a runaway power: the expression has no value."""


_local = threading.local()


def _ctx() -> Any:
    """This thread's mpmath context at `_DIGITS` digits (mpmath's `mp` is shared state)."""
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        import mpmath

        ctx = _local.ctx = mpmath.MPContext()
        ctx.dps = _DIGITS
    return ctx


def nodes(node: Any) -> Iterator[tuple[Any, ...]]:
    """Every node of a tree (words inside `text` nodes are not looked into)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, tuple) and item:
            yield item
            if item[0] != "text":
                stack.extend(item[1:])
        elif isinstance(item, list):
            stack.extend(item)


def symbols(node: Any) -> set[str]:
    """The variables a tree mentions."""
    return {item[1] for item in nodes(node) if item[0] == "s"}


# -- evaluation ----------------------------------------------------------------------------
def _exact(node: Node) -> Fraction | None:
    """The rational value of a variable-free tree, or None when it is not (known to be)
    rational."""
    kind = node[0]
    if kind == "n":
        return node[1]  # type: ignore[no-any-return]
    if kind == "neg":
        value = _exact(node[1])
        return None if value is None else -value
    if kind in ("+", "*"):
        total = Fraction(0 if kind == "+" else 1)
        for part in node[1]:
            value = _exact(part)
            if value is None:
                return None
            total = total + value if kind == "+" else total * value
            if max(total.numerator.bit_length(), total.denominator.bit_length()) > _MAX_BITS:
                raise Undefined
        return total
    if kind == "/":
        top, bottom = _exact(node[1]), _exact(node[2])
        if top is None or bottom is None:
            return None
        if bottom == 0:
            raise Undefined
        return top / bottom
    if kind == "^":
        base, power = _exact(node[1]), _exact(node[2])
        if base is None or power is None or power.denominator != 1:
            return None
        if base == 0 and power < 0:
            raise Undefined
        size = max(base.numerator.bit_length(), base.denominator.bit_length())
        if abs(power) * size > _MAX_BITS:
            return None  # left to the bounded numerical path
        return base ** int(power)
    if kind == "f" and node[1] in ("abs", "sqrt"):
        value = _exact(node[2])
        if value is None:
            return None
        if node[1] == "abs":
            return abs(value)
        root_top = math.isqrt(max(value.numerator, 0))
        root_bottom = math.isqrt(value.denominator)
        squares = root_top**2 == value.numerator and root_bottom**2 == value.denominator
        return Fraction(root_top, root_bottom) if value >= 0 and squares else None
    return None


def approx(node: Node, env: dict[str, Fraction]) -> Any:
    """The value as an mpmath number (complex where needed); raises `Undefined`."""
    ctx = _ctx()
    kind = node[0]
    if kind == "n":
        return ctx.mpf(node[1].numerator) / node[1].denominator
    if kind == "s":
        if node[1] not in env:
            raise Undefined
        value = env[node[1]]
        return ctx.mpf(value.numerator) / value.denominator
    if kind == "c":
        return {"pi": ctx.pi, "e": ctx.e, "i": ctx.mpc(0, 1), "inf": ctx.inf}[node[1]]
    if kind == "neg":
        return -approx(node[1], env)
    if kind == "+":
        return _checked(ctx, ctx.fsum(approx(part, env) for part in node[1]))
    if kind == "*":
        total = ctx.mpf(1)
        for part in node[1]:
            total = _checked(ctx, total * approx(part, env))
        return total
    if kind == "/":
        top, bottom = approx(node[1], env), approx(node[2], env)
        if bottom == 0:
            raise Undefined
        return _checked(ctx, top / bottom)
    if kind == "^":
        return _power(ctx, approx(node[1], env), approx(node[2], env))
    if kind == "f":
        return _function(ctx, node[1], node[2], env)
    if kind in ("unit", "deg"):  # inside an equation: the number (`v = 4 km/h`)
        return approx(node[1], env)
    if kind == "pct":
        return approx(node[1], env) / 100
    raise Undefined


def _checked(ctx: Any, value: Any) -> Any:
    if ctx.isnan(value):
        raise Undefined
    return value


def _power(ctx: Any, base: Any, power: Any) -> Any:
    if base == 0:
        if ctx.re(power) <= 0:
            raise Undefined
        return ctx.mpf(0)
    if ctx.isinf(base) or ctx.isinf(power):
        raise Undefined
    if abs(power) * abs(ctx.log(abs(base))) > _MAX_LOG:
        raise Undefined
    if ctx.im(base) == 0 and ctx.re(base) < 0 and ctx.im(power) == 0:
        ratio = Fraction(str(ctx.nstr(ctx.re(power), 30)))
        if ratio.denominator % 2 == 1 and ratio.limit_denominator(1000) == ratio:
            magnitude = ctx.power(-ctx.re(base), ctx.re(power))  # a real odd root
            return magnitude if ratio.numerator % 2 == 0 else -magnitude
    return _checked(ctx, ctx.power(base, power))


_MPMATH_NAMES = {
    "sqrt": "sqrt", "abs": "fabs", "sin": "sin", "cos": "cos", "tan": "tan", "cot": "cot",
    "sec": "sec", "csc": "csc", "arcsin": "asin", "arccos": "acos", "arctan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "ln": "ln", "log": "log", "exp": "exp",
    "lg": "log10",
}  # fmt: skip


def _function(ctx: Any, name: str, arg: Node, env: dict[str, Fraction]) -> Any:
    value = approx(arg, env)
    if name == "factorial":
        if value != ctx.floor(value) or not 0 <= value <= 1000:
            raise Undefined
        return ctx.factorial(value)
    if name == "abs":
        return abs(value)
    if name in ("floor", "ceil"):
        return getattr(ctx, name)(ctx.re(value))
    if name == "exp" and abs(value) > _MAX_LOG:
        raise Undefined
    if name not in _MPMATH_NAMES or (name in ("ln", "log", "lg") and value == 0):
        raise Undefined
    return _checked(ctx, getattr(ctx, _MPMATH_NAMES[name])(value))


def value(node: Node, env: dict[str, Fraction]) -> Any:
    """Exact where possible (a `Fraction`), else an mpmath number."""
    if not env:
        exact = _exact(node)
        if exact is not None:
            return exact
    return approx(node, env)


def numbers_equal(a: Any, b: Any, tolerance: tuple[float, float]) -> bool:
    if isinstance(a, Fraction) and isinstance(b, Fraction) and a == b:
        return True
    ctx = _ctx()
    x = ctx.mpf(a.numerator) / a.denominator if isinstance(a, Fraction) else a
    y = ctx.mpf(b.numerator) / b.denominator if isinstance(b, Fraction) else b
    if ctx.isinf(x) or ctx.isinf(y):
        return bool(x == y)
    difference = abs(x - y)
    scale = max(abs(x), abs(y))
    if difference <= scale * ctx.mpf(10) ** (_GUARD - ctx.dps):
        return not (isinstance(a, Fraction) and isinstance(b, Fraction))
    relative, absolute = tolerance
    return bool(difference <= max(relative * scale, absolute)) if relative or absolute else False


@contextlib.contextmanager
def working_digits(*nodes: Node) -> Iterator[None]:
    """Compare at 60 digits more than the nodes' own numbers could hide a difference in
    (`_hidden`); past 2,000 digits the comparison is `Undefined`."""
    digits = _DIGITS + max(_hidden(node) for node in nodes)
    if digits > _MAX_DIGITS:
        raise Undefined
    ctx = _ctx()
    ctx.dps = digits
    try:
        yield
    finally:
        ctx.dps = _DIGITS


def _magnitude(node: Node) -> float:
    """The size of an irrational exponent (`i\\pi`, `\\pi\\sqrt{163}`); 10 for one in
    variables (they are sampled at small values)."""
    try:
        return min(float(abs(approx(node, {}))), float(_MAX_DIGITS))
    except Undefined:
        return 10.0


def _hidden(node: Any) -> int:
    """How many decimal places an expression could hide a difference in: the longest number
    written, the largest power of ten (`10^{-1000}`, `e^{-1000}`, `\\exp(1000)`). Working
    at this many more digits, `1 + 10^{-1000}\\pi` is not 1."""
    if isinstance(node, list):
        return max((_hidden(item) for item in node), default=0)
    if not isinstance(node, tuple) or not node or node[0] in ("s", "c", "text"):
        return 0
    if node[0] == "n":
        return len(str(node[1].numerator)) + len(str(node[1].denominator))
    inner = max(_hidden(part) for part in node[1:])
    if node[0] == "^" or (node[0] == "f" and node[1] == "exp"):
        power = _exact(node[2])
        magnitude = float(abs(power)) if power is not None else _magnitude(node[2])
        base = _exact(node[1]) if node[0] == "^" else None
        size = abs(math.log10(abs(base))) if base not in (None, 0) else 1.0
        return int(min(magnitude * max(size, 1.0), _MAX_DIGITS)) + inner
    return inner


# -- answers -------------------------------------------------------------------------------
