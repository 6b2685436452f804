"""Are two parsed math answers the same? (see `_parse` for the trees)

Numbers are compared by value (`_value`): exactly where they are rational (`0.5` is
`\\frac{1}{2}`, `0.333` is not `\\frac13`), else numerically, with as many more digits as
the answers' own numbers could hide a difference in (`\\sqrt{117}` is `3\\sqrt{13}`;
`\\frac{355}{113}` is not `\\pi`, nor `1 + 10^{-1000}\\pi` 1). Expressions in variables are
compared at three fixed points (`(x-2)(x-3)` is `x^2-5x+6`); equations are the same when
their sides' differences are proportional (`y=2x+1` is `2x-y+1=0`); inequalities and
intervals compare as sets (`x>5` is `(5,\\infty)`); lists and sets ignore order, tuples and
matrices do not. Percentages, degrees and units: see `_scalar_equal`. A value that is
`Undefined` (`\\frac{0}{0}`, a runaway power) equals nothing, not even itself.

Over 350 lines: one comparison, case by case over the node kinds of `_parse`, all sharing its
tolerance rules.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from rewardkit.functions.builtin.math._parse import Node, parse_answer
from rewardkit.functions.builtin.math._value import (
    Undefined,
    approx,
    nodes,
    numbers_equal,
    symbols,
    value,
    working_digits,
)

__all__ = ["Tolerance", "same_answer", "texts_equal", "unwrap"]

Tolerance = tuple[float, float]
"""(relative, absolute) tolerance the user allows on numbers; (0, 0) is exact."""

_POINTS = (
    (Fraction(7071, 10000), Fraction(13183, 10000), Fraction(-5772, 10000)),
    (Fraction(25029, 10000), Fraction(-3391, 10000), Fraction(11447, 10000)),
    (Fraction(4142, 10000), Fraction(30103, 10000), Fraction(16180, 10000)),
)
_UNITS = {
    "km": ("m", 1000), "m": ("m", 1), "cm": ("m", Fraction(1, 100)), "mm": ("m", Fraction(1, 1000)),
    "kilometers": ("m", 1000), "meters": ("m", 1), "metres": ("m", 1),
    "centimeters": ("m", Fraction(1, 100)), "millimeters": ("m", Fraction(1, 1000)),
    "h": ("s", 3600), "hr": ("s", 3600), "hours": ("s", 3600), "hour": ("s", 3600),
    "min": ("s", 60), "minutes": ("s", 60), "minute": ("s", 60), "s": ("s", 1), "sec": ("s", 1),
    "seconds": ("s", 1), "second": ("s", 1), "kg": ("g", 1000), "g": ("g", 1),
    "grams": ("g", 1), "mg": ("g", Fraction(1, 1000)), "kilograms": ("g", 1000),
}  # fmt: skip


def _expressions_equal(a: Node, b: Node, tolerance: Tolerance) -> bool:
    for side, other in ((a, b), (b, a)):
        if side[0] == "n" and len(side) > 2 and _repeating(other):  # a printed float of 1/12
            tolerance = (max(tolerance[0], 10.0 ** (2 - side[2])), tolerance[1])
    names = symbols(a)
    if names != symbols(b):
        return False
    with working_digits(a, b):
        if not names:
            return numbers_equal(value(a, {}), value(b, {}), tolerance)
        ordered = sorted(names)
        for point in _POINTS:
            env = {n: point[i % 3] + i // 3 for i, n in enumerate(ordered)}
            if not numbers_equal(approx(a, env), approx(b, env), tolerance):
                return False
        return True


def _repeating(node: Node) -> bool:
    """A rational whose decimals never end (1/12, 1/3): a float can only print it to its last
    digits. A terminating value (1, 0.25) must be written exactly, and an irrational one
    (`\\sqrt2`, `\\pi`) is never a decimal, however long."""
    if symbols(node):
        return False
    exact = value(node, {})
    if not isinstance(exact, Fraction):
        return False
    denominator = exact.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator > 1


def unwrap(node: Node) -> tuple[Node, dict[str, Any]]:
    """The bare quantity of a percentage, an angle or a measurement, and what it was."""
    marks: dict[str, Any] = {}
    while node[0] in ("pct", "deg", "unit"):
        marks[node[0]] = node[2] if node[0] == "unit" else True
        node = node[1]
    return node, marks


def _scaled(node: Node, factor: Any) -> Node:
    return ("*", [node, ("n", Fraction(factor))])


def _unit_letter(node: Node, other: Node) -> Node:
    """`5000 m` read as 5000 times m is 5000 metres when the other side has no variable."""
    if node[0] == "*" and len(node[1]) == 2 and not symbols(other):
        number, letter = node[1]
        if letter[0] == "s" and letter[1] in _UNITS and not symbols(number):
            return ("unit", number, letter[1])
    return node


def _has(node: Any, kind: str, name: str | None = None) -> bool:
    """Whether the tree holds a node of this kind (and name): `("c", "pi")`, a `pm`."""
    return any(item[0] == kind and (name is None or item[1] == name) for item in nodes(node))


def _has_pi(node: Node) -> bool:
    return _has(node, "c", "pi")


def _scalar_equal(gold: Node, answer: Node, tolerance: Tolerance) -> bool:
    """Quantities: a percentage equals its number or its hundredth (`25\\%` is `25` and
    `0.25`); an angle in degrees equals its number, or its radians when the other side has
    π; units convert within length, time and mass (`5 km` is `5000 m`), and are otherwise
    ignored (`13 apples` is `13`)."""
    g, g_marks = unwrap(_unit_letter(gold, answer))
    a, a_marks = unwrap(_unit_letter(answer, gold))
    if "pct" in g_marks and "pct" not in a_marks:
        return any(_expressions_equal(c, a, tolerance) for c in (g, _scaled(g, Fraction(1, 100))))
    if "pct" in a_marks and "pct" not in g_marks:
        return any(_expressions_equal(g, c, tolerance) for c in (a, _scaled(a, Fraction(1, 100))))
    if ("deg" in g_marks) != ("deg" in a_marks):
        plain, degrees = (a, g) if "deg" in g_marks else (g, a)
        if _has_pi(plain) and not _has_pi(degrees):
            degrees = ("/", ("*", [degrees, ("c", "pi")]), ("n", Fraction(180)))
        g, a = (degrees, plain) if "deg" in g_marks else (plain, degrees)
    g_unit, a_unit = _UNITS.get(g_marks.get("unit", "")), _UNITS.get(a_marks.get("unit", ""))
    if g_unit and a_unit and g_unit[0] == a_unit[0]:
        g, a = _scaled(g, g_unit[1]), _scaled(a, a_unit[1])
    return _expressions_equal(g, a, tolerance)


_QUANTITIES = {"n", "s", "c", "+", "*", "/", "^", "neg", "f", "pct", "deg", "unit"}


def _assigned(node: Node) -> Node | None:
    """`x = 7` (or `(a, b) = (2, 3)`, `f(x) = 3x^2`): the value given to the unknown."""
    if node[0] == "rel" and node[2] == ["in"]:
        return node[1][1]  # type: ignore[no-any-return]
    if node[0] != "rel" or node[2] != ["="]:
        return None
    head, value = node[1]
    names = [head] if head[0] != "tuple" and head[0] != "*" else head[1]
    if all(part[0] == "s" for part in names) and not (symbols(value) & {names[0][1]}):
        return value  # type: ignore[no-any-return]
    return None


_MAX_SIGNS = 8


def _signs(node: Any) -> list[Any]:
    """Each reading of `±` (`\\frac{2 \\pm \\sqrt{76}}{2}`: two values), at most 8."""
    if isinstance(node, list):
        variants: list[list[Any]] = [[]]
        for item in node:
            variants = [[*v, w] for v in variants for w in _signs(item)][:_MAX_SIGNS]
        return variants
    if not isinstance(node, tuple) or not _has(node, "pm"):
        return [node]
    if node[0] == "pm":
        return [
            ("+", [base, spread])
            for base in _signs(node[1])
            for s in _signs(node[2])
            for spread in (s, ("neg", s))
        ][:_MAX_SIGNS]
    rebuilt: list[tuple[Any, ...]] = [(node[0],)]
    for part in node[1:]:
        rebuilt = [(*r, w) for r in rebuilt for w in _signs(part)][:_MAX_SIGNS]
    return rebuilt


def _point(group: Node) -> Node:
    """`p=5, q=2` as the point (5, 2), when each item gives a different unknown a value."""
    items = group[1] if group[0] == "list" else [group]
    values = [_assigned(item) for item in items]
    heads = [repr(item[1][0]) for item in items if item[0] == "rel"]
    if all(v is not None for v in values) and len(set(heads)) == len(items) > 1:
        return ("tuple", values, "(", ")")
    return group


def _spread(item: Node) -> list[Node]:
    """A list item, canonical: both readings of a `±` item (`1 \\pm 2, 5` is 3, -1, 5)."""
    canonical = _canonical(item)
    return canonical[1] if canonical[0] == "set" and _has(item, "pm") else [canonical]


def _canonical(node: Node) -> Node:
    """Lists become sets, `a ± b` the set {a+b, a-b}, `2^6 = 64` its value."""
    kind = node[0]
    if kind == "list" and node[2] == ";":  # p=5, q=2; p=7, q=2: the points (5, 2), (7, 2)
        return ("set", [_canonical(_point(group)) for group in node[1]])
    if kind == "list":
        items = [one for item in node[1] for one in _spread(item)]
        values = [_assigned(item) for item in items]
        heads = {repr(item[1][0]) for item in items if item[0] == "rel"}
        if all(v is not None for v in values) and len(heads) == 1:
            items = [one for v in values if v is not None for one in _spread(v)]
        return ("set", items)
    if kind in _QUANTITIES | {"pm"} and _has(node, "pm"):
        return ("set", _signs(node)[:_MAX_SIGNS])
    if kind in ("+", "*") and all(part[0] == "matrix" for part in node[1]):
        return _matrix_arithmetic(kind, node[1])
    if kind == "set":
        return ("set", [_canonical(item) for item in node[1]])
    if kind == "tuple":
        return ("tuple", [_canonical(item) for item in node[1]], node[2], node[3])
    if kind == "rel" and all(op == "=" for op in node[2]):
        if not symbols(node[1][:-1]) and not symbols(node[1][-1]):
            return _canonical(node[1][-1])  # a worked result: 2^6 = 64
        if len(node[1]) > 2:  # x = 5 + 5 + 1 = 11: what x is, finally
            return ("rel", [node[1][0], node[1][-1]], ["="])
    return node


def _matrix_arithmetic(kind: str, matrices: list[Node]) -> Node:
    """`A + B` and `A B` of written-out matrices, entry by entry (shapes must fit)."""
    result = matrices[0][1]
    for other in (m[1] for m in matrices[1:]):
        if kind == "+":
            if [len(r) for r in result] != [len(r) for r in other]:
                raise Undefined
            result = [
                [("+", [x, y]) for x, y in zip(r, o, strict=True)]
                for r, o in zip(result, other, strict=True)
            ]
        else:
            if len(result[0]) != len(other):
                raise Undefined
            columns = list(zip(*other, strict=True))
            result = [
                [("+", [("*", [x, y]) for x, y in zip(row, col, strict=True)]) for col in columns]
                for row in result
            ]
    return ("matrix", result)


def _interval(node: Node) -> tuple[str | None, list[tuple[Node, Node, bool, bool]]] | None:
    """A set of reals as (variable, intervals): `x > 5`, `(5, \\infty)`, `[0,1) \\cup (2,3]`."""
    inf = ("c", "inf")
    if node[0] == "tuple" and len(node[1]) == 2:
        lo, hi = node[1]
        return None, [(lo, hi, node[2] == "[", node[3] == "]")]
    if node[0] == "set" and node[1] and all(item[0] == "rel" for item in node[1]):
        pieces = [_interval(item) for item in node[1]]  # x < 1 or x > 2
        names = {p[0] for p in pieces if p is not None}
        if any(p is None for p in pieces) or len(names) != 1:
            return None
        return names.pop(), [i for p in pieces if p for i in p[1]]
    if node[0] == "union":
        parts = [_interval(part) for part in node[1]]
        if any(p is None or p[0] is not None for p in parts):
            return None
        return None, [i for p in parts if p for i in p[1]]
    if node[0] != "rel":
        return None
    sides, ops = node[1], node[2]
    if ops == ["in"]:
        inner = _interval(sides[1])
        return (sides[0][1] if sides[0][0] == "s" else None, inner[1]) if inner else None
    if not all(op in ("<", "<=", ">", ">=") for op in ops) or len(sides) > 3:
        return None
    if any(op in (">", ">=") for op in ops):  # read every chain left to right, upwards
        sides, ops = sides[::-1], [{">": "<", ">=": "<="}.get(op, op) for op in ops[::-1]]
    if not all(op in ("<", "<=") for op in ops):
        return None
    if len(sides) == 2 and ("neg" in (sides[0][0], sides[1][0])):  # -x > -1 is x < 1
        negated = [side[1] if side[0] == "neg" else ("neg", side) for side in sides]
        sides, ops = negated[::-1], ops
    variables = [i for i, side in enumerate(sides) if symbols(side)]
    if len(sides) == 3 and variables == [1]:  # 0 < f(x) < 1: the values of f(x)
        name = _variable(sides[1])
        return name, [(sides[0], sides[2], ops[0] == "<=", ops[1] == "<=")]
    if len(sides) == 2 and len(variables) == 1:
        if variables == [0]:
            return _variable(sides[0]), [(("neg", inf), sides[1], False, ops[0] == "<=")]
        return _variable(sides[1]), [(sides[0], inf, ops[0] == "<=", False)]
    return None


def _variable(side: Node) -> str:
    return str(side[1]) if side[0] == "s" else repr(side)


def _intervals_equal(g: Any, a: Any, tolerance: Tolerance) -> bool:
    if g[0] and a[0] and g[0] != a[0]:
        return False
    left, right = list(g[1]), list(a[1])
    if len(left) != len(right):
        return False
    for lo, hi, lo_closed, hi_closed in left:
        match = next(
            (
                other
                for other in right
                if other[2] == lo_closed
                and other[3] == hi_closed
                and _expressions_equal(lo, other[0], tolerance)
                and _expressions_equal(hi, other[1], tolerance)
            ),
            None,
        )
        if match is None:
            return False
        right.remove(match)
    return True


def _equations_equal(g: Node, a: Node) -> bool:
    """`l1 = r1` and `l2 = r2` are the same when `l1 - r1` is a constant multiple of
    `l2 - r2`."""
    d_g = ("+", [g[1][0], ("neg", g[1][1])])
    d_a = ("+", [a[1][0], ("neg", a[1][1])])
    names = symbols(d_g)
    if names != symbols(d_a) or not names:
        return False
    ordered = sorted(names)
    ratio = None
    for point in _POINTS:
        env = {n: point[i % 3] + i // 3 for i, n in enumerate(ordered)}
        top, bottom = approx(d_g, env), approx(d_a, env)
        if bottom == 0 or top == 0:
            return False
        if ratio is None:
            ratio = top / bottom
        elif not numbers_equal(ratio, top / bottom, (1e-25, 1e-25)):
            return False
    return True


def _all_matched(left: list[Node], right: list[Node], same: Callable[[Node, Node], bool]) -> bool:
    """Every item of each side equals some item of the other (sets: order and repeats aside)."""
    return all(any(same(x, y) for y in right) for x in left) and all(
        any(same(x, y) for x in left) for y in right
    )


def same_answer(gold: Node, answer: Node, tolerance: Tolerance = (0.0, 0.0)) -> bool:
    """Whether `answer` states the same thing as `gold` (see the module's docstring).

    Example:
        >>> from rewardkit.functions.builtin.math._parse import parse_answer
        >>> same_answer(parse_answer("\\\\frac{1}{2}"), parse_answer("0.5"))
        True
        >>> same_answer(parse_answer("(0,9)"), parse_answer("[0,9)"))
        False
    """
    try:
        return _same(_canonical(gold), _canonical(answer), tolerance)
    except (Undefined, ZeroDivisionError, OverflowError, ValueError, RecursionError):
        return False


def texts_equal(gold: str, answer: str, tolerance: Tolerance = (0.0, 0.0)) -> bool | None:
    """`same_answer` on two answers as text, or None when either is not math we can read
    (prose, a name: for the caller's own comparison).

    Example:
        >>> texts_equal("\\\\frac{1}{2}", "0.5"), texts_equal("Paris", "paris")
        (True, None)
    """
    expected, given = parse_answer(gold.strip().strip("$")), parse_answer(answer.strip().strip("$"))
    if expected is None or given is None or "text" in (expected[0], given[0]):
        return None
    return same_answer(expected, given, tolerance)


def _same(g: Node, a: Node, tolerance: Tolerance) -> bool:
    def same(x: Node, y: Node) -> bool:
        return _same(x, y, tolerance)

    gk, ak = g[0], a[0]
    if g == a and gk not in _QUANTITIES and _defined(g):  # `D = (0, 1)` twice
        return True
    if gk in _QUANTITIES and ak in _QUANTITIES:
        return _scalar_equal(g, a, tolerance)
    if ak == "rel" and gk != "rel" and (value := _assigned(a)) is not None:
        return same(g, _canonical(value))
    if gk == "rel" and ak != "rel" and (value := _assigned(g)) is not None:
        return same(_canonical(value), a)
    if "text" in (gk, ak) and {gk, ak} <= {"text", "s", "c"}:  # \\text{E} is E
        return _letters(str(g[1])) == _letters(str(a[1]))
    if gk == "set" and ak == "set":
        return _all_matched(g[1], a[1], same)
    if gk == "set" and len(g[1]) == 1 and ak != "set":
        return same(g[1][0], a)
    if gk == "matrix" and ak == "matrix":
        shape = [len(row) for row in g[1]] == [len(row) for row in a[1]]
        cells = zip(_cells(g), _cells(a), strict=False)
        return shape and all(same(x, y) for x, y in cells)
    if gk == "tuple" and ak == "tuple" and (g[2], g[3]) == (a[2], a[3]):
        return len(g[1]) == len(a[1]) and all(same(x, y) for x, y in zip(g[1], a[1], strict=True))
    if gk == "rel" and ak == "rel" and g[2] == ["="] == a[2]:
        return _equations_equal(g, a)
    g_set, a_set = _interval(g), _interval(a)
    if g_set is not None and a_set is not None:
        return _intervals_equal(g_set, a_set, tolerance)
    if gk == "rel" and ak == "rel" and len(g[1]) == len(a[1]):
        flipped = {"<": ">", ">": "<", "<=": ">=", ">=": "<="}
        for sides, ops in ((a[1], a[2]), (a[1][::-1], [flipped.get(o, o) for o in a[2][::-1]])):
            if ops == g[2] and all(same(x, y) for x, y in zip(g[1], sides, strict=True)):
                return True
    return False


def _defined(node: Any) -> bool:
    """Every number in the tree has a value (raises `Undefined` for `\\frac{0}{0}`)."""
    if isinstance(node, list):
        return all(_defined(item) for item in node)
    if not isinstance(node, tuple) or not node:
        return True
    if node[0] in _QUANTITIES:
        if not symbols(node):
            value(node, {})
        return True
    return all(_defined(part) for part in node[1:])


def _cells(matrix: Node) -> list[Node]:
    return [cell for row in matrix[1] for cell in row]


def _letters(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())
