"""The safe expression language of `reward.formula` and judges' `if:` conditions.

Compile once, evaluate many: the text is parsed with `ast`, each node is checked against the
rules of `_expr_validate` and turned into a small Python closure, and the tree of closures
is the program. Nothing ever calls `eval`, `exec` or `compile` on the user's text. The
grammar, the two dialects and the limits are in docs/design/formula.md.
"""

from __future__ import annotations

import ast
import operator
import textwrap
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rewardkit.compose._expr_cost import (
    BUDGET,
    METERED,
    Share,
    charge_key,
    contains,
    metered_call,
    metered_compare,
)
from rewardkit.compose._expr_runtime import add as _add
from rewardkit.compose._expr_runtime import floordiv as _floordiv
from rewardkit.compose._expr_runtime import mod as _mod
from rewardkit.compose._expr_runtime import mul as _mul
from rewardkit.compose._expr_runtime import short_key
from rewardkit.compose._expr_validate import Dialect, Validator

__all__ = ["Expression", "compile_expression"]

Env = Mapping[str, object]
_Fn = Callable[[Env], Any]  # a compiled node: scope -> value
_Compare = Callable[[Any, Any], Any]

_COMPARE: dict[type[ast.cmpop], tuple[str, _Compare]] = {
    ast.Lt: ("<", operator.lt), ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt), ast.GtE: (">=", operator.ge),
    ast.Eq: ("==", operator.eq), ast.NotEq: ("!=", operator.ne),
    ast.In: ("in", lambda a, b: a in b), ast.NotIn: ("not in", lambda a, b: a not in b),
    ast.Is: ("is", operator.is_), ast.IsNot: ("is not", operator.is_not),
}  # fmt: skip


@dataclass(frozen=True)
class Expression:
    """A compiled, validated expression; evaluate it as often as you like.

    Attributes:
        source: the text as written.
        names: the free variables it reads (names not assigned earlier in the program).
        dialect: `"formula"` or `"condition"`.
    """

    source: str
    names: frozenset[str]
    dialect: Dialect
    evaluate: Callable[[Env], object] = field(repr=False, compare=False)
    """`evaluate(env)`: the value with the free variables bound by `env`. Raises `NameError`
    for a free variable missing from `env`, and whatever the arithmetic raises (e.g.
    `ZeroDivisionError`). A plain field, not a method: one call less per evaluation."""


def compile_expression(
    text: str,
    *,
    dialect: Dialect = "formula",
    names: Collection[str] | None = None,
    key: str | None = None,
    path: str | None = None,
) -> Expression:
    """Validate `text` and compile it into an `Expression`.

    Args:
        text: one expression, or `name = expression` lines followed by one expression.
        dialect: `"formula"` (numbers only) or `"condition"` (adds strings, `x[k]`,
            `.get(k)`, `not`, `in`, `is None`).
        names: when given, every free variable must be one of these.
        key: the config key quoted in error messages, e.g. `"reward.formula"`.
        path: the file quoted in error messages.

    Raises:
        FormulaError: naming the construct that is not allowed and where it is.

    >>> compile_expression("0.5 * a + 0.5 * min(b, 1)").evaluate({"a": 1.0, "b": 0.5})
    0.75
    """
    compiler = _Compiler(textwrap.dedent(text), dialect, names, key=key, path=path)
    run, free = compiler.program()
    return Expression(source=text, names=frozenset(free), dialect=dialect, evaluate=run)


class _Compiler(Validator):
    """Builds the closures of one program, checking each node before it becomes one."""

    def __init__(self, text: str, dialect: Dialect, names: Collection[str] | None, **where: Any):
        super().__init__(text, dialect, names, **where)
        self.share, self.metered = Share(), 0

    def meter(self) -> Share:
        """Count one more metered operation; all of them share `BUDGET` equally."""
        self.metered += 1
        return self.share

    def program(self) -> tuple[Callable[[Env], object], list[str]]:
        tree = self.parse()
        steps: list[tuple[str, _Fn]] = []
        for stmt in tree.body[:-1]:
            target, value = self.assignment(stmt)
            fn = self.expr(value)  # `x = x + 1` reads the earlier (or free) x
            steps.append((self.store(target), fn))
        run = _program(steps, self.expr(self.last_line(tree.body[-1])))
        # no loops: each operation runs at most once per evaluation, so equal shares of the
        # budget bound the whole evaluation (docs/design/formula.md, "Cost")
        self.share.steps = BUDGET // max(1, self.metered)
        return run, list(self.free)

    def expr(self, node: ast.expr) -> _Fn:
        visit = getattr(self, f"visit_{type(node).__name__}", None)
        if visit is None:
            self.refuse(node)
        fn: _Fn = visit(node)
        return fn

    def visit_Constant(self, node: ast.Constant) -> _Fn:
        self.check_constant(node)
        value = node.value
        return lambda s: value

    def visit_Name(self, node: ast.Name) -> _Fn:
        self.check_name(node)
        name = node.id
        if name in self.assigned:
            return lambda s: s[name]
        self.check_free(node)

        def read(s: Env) -> Any:
            try:
                return s[name]
            except KeyError:
                raise NameError(f"name {name!r} is not defined") from None

        return read

    def visit_UnaryOp(self, node: ast.UnaryOp) -> _Fn:
        self.check_unary(node)
        op = node.op
        operand = self.expr(node.operand)
        if isinstance(op, ast.Not):
            return lambda s: not operand(s)
        if isinstance(op, ast.USub):
            literal = node.operand.value if isinstance(node.operand, ast.Constant) else None
            if isinstance(literal, int | float):
                folded = -literal
                return lambda s: folded
            return lambda s: -operand(s)
        return lambda s: +operand(s)

    def visit_BinOp(self, node: ast.BinOp) -> _Fn:
        self.check_binop(node)
        left, right = self.expr(node.left), self.expr(node.right)
        constant = node.left.value if isinstance(node.left, ast.Constant) else None
        if type(constant) is float and isinstance(node.op, ast.Mult | ast.Add):
            # float * x and float + x can neither repeat a sequence nor grow an int: no guard,
            # and the literal is captured rather than called (the common `0.3 * quality`)
            if isinstance(node.op, ast.Mult):
                return lambda s: constant * right(s)
            return lambda s: constant + right(s)
        return _binop(type(node.op), left, right)

    def visit_BoolOp(self, node: ast.BoolOp) -> _Fn:
        *firsts, last = [self.expr(v) for v in node.values]
        stop_when = not isinstance(node.op, ast.And)  # `or` stops at the first truthy value

        def boolop(s: Env) -> Any:
            for fn in firsts:
                value = fn(s)
                if bool(value) is stop_when:
                    return value
            return last(s)

        return boolop

    def visit_Compare(self, node: ast.Compare) -> _Fn:
        pairs = []
        operands = [node.left, *node.comparators]
        for i, op in enumerate(node.ops):
            symbol, fn = _COMPARE[type(op)]
            self.check_comparison(node, op, symbol, operands[i : i + 2])
            pairs.append(self.comparison(op, symbol, fn, operands[i], operands[i + 1]))
        first, *rest = [self.expr(o) for o in operands]
        if len(pairs) == 1:
            compare, second = pairs[0], rest[0]
            if isinstance(node.comparators[0], ast.Constant):  # `a > 0.5`: capture the literal
                literal = node.comparators[0].value
                return lambda s: compare(first(s), literal)
            return lambda s: compare(first(s), second(s))
        chain = list(zip(pairs, rest, strict=True))

        def compare_chain(s: Env) -> Any:
            left = first(s)
            result: Any = True
            for compare, operand in chain:
                right = operand(s)
                result = compare(left, right)
                if not result:
                    return result
                left = right
            return result

        return compare_chain

    def comparison(
        self, op: ast.cmpop, symbol: str, fn: _Compare, left: ast.expr, right: ast.expr
    ) -> _Compare:
        """`fn`, metered unless a literal bounds its cost (`is None` always does)."""
        if isinstance(op, ast.Is | ast.IsNot):
            return fn
        if isinstance(op, ast.In | ast.NotIn):
            if isinstance(right, ast.Constant):  # a search within a literal string
                return fn
            share = self.meter()
            if isinstance(op, ast.In):
                return lambda a, b: contains(a, b, share.steps)
            return lambda a, b: not contains(a, b, share.steps)
        if isinstance(left, ast.Constant) or isinstance(right, ast.Constant):
            return fn  # stops within the literal, which is at most 10,000 characters
        return metered_compare(symbol, fn, self.meter())

    def visit_IfExp(self, node: ast.IfExp) -> _Fn:
        test, body, orelse = self.expr(node.test), self.expr(node.body), self.expr(node.orelse)
        return lambda s: body(s) if test(s) else orelse(s)

    def visit_List(self, node: ast.List) -> _Fn:
        items = self.items(node)
        return lambda s: [fn(s) for fn in items]

    def visit_Tuple(self, node: ast.Tuple) -> _Fn:
        items = self.items(node)
        return lambda s: tuple([fn(s) for fn in items])

    def items(self, node: ast.List | ast.Tuple) -> list[_Fn]:
        self.check_items(node)
        return [self.expr(e) for e in node.elts]

    def visit_Subscript(self, node: ast.Subscript) -> _Fn:
        self.check_subscript(node)
        value, key = self.expr(node.value), self.expr(node.slice)
        share = self.meter() if isinstance(node.slice, ast.Name) else None

        def subscript(s: Env) -> Any:
            container, k = value(s), key(s)
            if share is not None:  # a key computed at run time: hashing it is metered
                charge_key(k, share.steps)
            try:
                return container[k]
            except KeyError:  # keep the message short whatever the key is
                raise KeyError(short_key(k)) from None

        return subscript

    def visit_Call(self, node: ast.Call) -> _Fn:
        self.check_keywords(node)
        func = node.func
        if isinstance(func, ast.Attribute) and self.dialect == "condition" and func.attr == "get":
            receiver, args = self.expr(func.value), [self.expr(a) for a in node.args]
            self.check_get(node)
            if isinstance(node.args[0], ast.Constant):
                return _call(lambda obj, *a: obj.get(*a), [receiver, *args])
            share = self.meter()  # a key computed at run time: hashing it is metered
            return _call(
                lambda obj, k, *a: obj.get(charge_key(k, share.steps), *a), [receiver, *args]
            )
        if not isinstance(func, ast.Name):
            self.expr(func)  # rejects attributes, lambdas, ... with their own message
            self.reject(func, "calling the result of an expression", "call a function by name")
        target, low, high = self.function(func)
        args = [self.expr(a) for a in node.args]
        self.check_arity(node, func.id, low, high)
        if func.id in METERED:
            return _metered(func.id, target, args, self.meter())
        return _call(target, args)


def _program(steps: list[tuple[str, _Fn]], result: _Fn) -> Callable[[Env], object]:
    if not steps:
        return result  # a single expression runs straight on the caller's mapping

    def run(env: Env) -> object:
        scope = dict(env)  # assignments go here, never into the caller's mapping
        for name, fn in steps:
            scope[name] = fn(scope)
        return result(scope)

    return run


def _call(target: Callable[..., Any], args: Sequence[_Fn]) -> _Fn:
    if len(args) == 1:
        (a,) = args
        return lambda s: target(a(s))
    if len(args) == 2:
        a, b = args
        return lambda s: target(a(s), b(s))
    return lambda s: target(*[fn(s) for fn in args])


def _metered(name: str, plain: Callable[..., Any], args: Sequence[_Fn], share: Share) -> _Fn:
    target = metered_call(name, plain, share)
    if len(args) != 2:
        return _call(target, args)
    a, b = args

    def call(s: Env) -> Any:
        # the common `min(a, b)`: with a float first, the one comparison (or addition) it
        # makes costs O(1) whatever the other argument, so the meter is skipped
        x = a(s)
        if x.__class__ is float:
            return plain(x, b(s))
        return target(x, b(s))

    return call


def _binop(op: type[ast.operator], left: _Fn, right: _Fn) -> _Fn:
    """The closure for one arithmetic operator; `+ * // %` guard against runaway sizes."""
    if op is ast.Sub:
        return lambda s: left(s) - right(s)
    if op is ast.Div:
        return lambda s: left(s) / right(s)
    if op is ast.FloorDiv:
        return lambda s: _floordiv(left(s), right(s))
    if op is ast.Mod:
        return lambda s: _mod(left(s), right(s))
    if op is ast.Mult:
        return lambda s: _mul(left(s), right(s))

    def add(s: Env) -> Any:
        a, b = left(s), right(s)
        if a.__class__ is float:
            return a + b
        return _add(a, b)

    return add
