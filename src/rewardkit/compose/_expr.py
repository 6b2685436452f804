"""The safe expression language of `reward.formula` and judges' `if:` conditions.

Compile once, evaluate many: the text is parsed with `ast`, checked against a whitelist,
and turned into a tree of small Python closures. Nothing ever calls `eval`, `exec` or
`compile` on the user's text. The grammar, the two dialects and the limits are in
docs/design/formula.md.
"""

from __future__ import annotations

import ast
import operator
import textwrap
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NoReturn

from rewardkit._errors import FormulaError, did_you_mean
from rewardkit.compose._expr_runtime import (
    BUDGET,
    FUNCTIONS,
    METERED,
    Share,
    charge_key,
    contains,
    metered_call,
    metered_compare,
    short_key,
)
from rewardkit.compose._expr_runtime import add as _add
from rewardkit.compose._expr_runtime import floordiv as _floordiv
from rewardkit.compose._expr_runtime import mod as _mod
from rewardkit.compose._expr_runtime import mul as _mul

__all__ = ["Dialect", "Expression", "compile_expression"]

Dialect = Literal["formula", "condition"]
Env = Mapping[str, object]
_Fn = Callable[[Env], Any]  # a compiled node: scope -> value
_Compare = Callable[[Any, Any], Any]

MAX_NODES = 200  # every node of the parsed module, as `ast.walk` counts them
MAX_CONSTANT = 1e6  # largest |number| a literal may spell
MAX_STRING = 10_000  # longest string literal (condition dialect)
_MAX_SOURCE = 100_000  # characters; keeps the parser itself out of trouble
_FUNCTIONS_TEXT = "abs, len, max, mean, min, round, sum"
_COMPARE: dict[type[ast.cmpop], tuple[str, _Compare]] = {
    ast.Lt: ("<", operator.lt), ast.LtE: ("<=", operator.le),
    ast.Gt: (">", operator.gt), ast.GtE: (">=", operator.ge),
    ast.Eq: ("==", operator.eq), ast.NotEq: ("!=", operator.ne),
    ast.In: ("in", lambda a, b: a in b), ast.NotIn: ("not in", lambda a, b: a not in b),
    ast.Is: ("is", operator.is_), ast.IsNot: ("is not", operator.is_not),
}  # fmt: skip
_FORMULA_COMPARE = ast.Lt | ast.LtE | ast.Gt | ast.GtE | ast.Eq | ast.NotEq
_BANNED_BINOPS: dict[type[ast.operator], tuple[str, str]] = {
    ast.Pow: ("**", "write x * x instead"), ast.MatMult: ("@", "use * instead"),
    ast.LShift: ("<<", "use * instead"), ast.RShift: (">>", "use // instead"),
    ast.BitAnd: ("&", "use 'and' instead"), ast.BitOr: ("|", "use 'or' instead"),
    ast.BitXor: ("^", "use != instead"),
}  # fmt: skip
_LOOPS = "list the values instead, e.g. mean([a, b, c])"
_STATEMENTS = "a formula is 'name = expression' lines followed by one expression"
# node kind -> (what, hint): what reads "... is not allowed"; other kinds are named as they are
_WHAT: dict[str, tuple[str, str]] = {
    "ListComp": ("a comprehension", _LOOPS), "SetComp": ("a comprehension", _LOOPS),
    "DictComp": ("a comprehension", _LOOPS), "GeneratorExp": ("a generator", _LOOPS),
    "Lambda": ("'lambda'", "write the expression inline"),
    "NamedExpr": ("':='", "assign on a line of its own: name = expression"),
    "Starred": ("'*' unpacking", "pass the values one by one"),
    "JoinedStr": ("an f-string", "compare plain strings instead"),
    "Dict": ("a dict literal", "use a list"), "Set": ("a set literal", "use a list"),
    "Slice": ("a slice", "index with one key or number"),
    "AugAssign": ("augmented assignment", "write x = x + 1"),
    "AnnAssign": ("annotated assignment", "write x = value"),
    **{kind: (f"'{word}'", _STATEMENTS) for kind, word in [
        ("Import", "import"), ("ImportFrom", "from ... import"), ("FunctionDef", "def"),
        ("AsyncFunctionDef", "async def"), ("ClassDef", "class"), ("Delete", "del"),
        ("Global", "global"), ("Nonlocal", "nonlocal"), ("With", "with"), ("For", "for"),
        ("While", "while"), ("If", "if"), ("Try", "try"), ("Return", "return"),
        ("Raise", "raise"), ("Assert", "assert"), ("Pass", "pass"), ("Await", "await"),
        ("Yield", "yield"), ("YieldFrom", "yield from"),
    ]},
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


class _Compiler:
    """Checks one program node by node and builds its closures in the same pass."""

    def __init__(self, text: str, dialect: Dialect, names: Collection[str] | None, **where: Any):
        self.text, self.dialect, self.where = text, dialect, where
        self.allowed = None if names is None else frozenset(names)
        self.free: dict[str, None] = {}  # insertion-ordered set
        self.assigned: set[str] = set()
        self.share, self.metered = Share(), 0

    def meter(self) -> Share:
        """Count one more metered operation; all of them share `BUDGET` equally."""
        self.metered += 1
        return self.share

    def fail(self, message: str, node: ast.AST | None = None, hint: str = "") -> NoReturn:
        line = col = None
        if isinstance(node, ast.expr | ast.stmt | ast.keyword):
            line = node.lineno
            source_line = self.text.splitlines()[line - 1].encode()
            col = len(source_line[: node.col_offset].decode(errors="replace")) + 1
            message = f"{message} (line {line}, col {col})"
        if hint:
            message = f"{message}; {hint}"
        raise FormulaError(message, line=line, col=col, **self.where)

    def reject(self, node: ast.AST, what: str, hint: str = "") -> NoReturn:
        self.fail(f"{what} is not allowed", node, hint)

    def program(self) -> tuple[Callable[[Env], object], list[str]]:
        if len(self.text) > _MAX_SOURCE:
            self.fail(f"the expression has {len(self.text)} characters; at most {_MAX_SOURCE}")
        try:
            tree = ast.parse(self.text, mode="exec")
        except SyntaxError as exc:
            where = f" (line {exc.lineno}, col {exc.offset})" if exc.lineno else ""
            quoted = f" in {exc.text.strip()!r}" if exc.text else ""
            hint = "check the brackets and operators"
            self.fail(f"{exc.msg}{where}{quoted}", None, hint)
        except (ValueError, RecursionError, MemoryError) as exc:
            self.fail(f"the expression cannot be parsed ({type(exc).__name__}: {exc})")
        count = sum(1 for _ in ast.walk(tree))
        if count > MAX_NODES:
            hint = "simplify it, e.g. mean([a, b, c]) instead of a long sum"
            self.fail(f"the expression has {count} syntax nodes; at most {MAX_NODES}", None, hint)
        if not tree.body:
            self.fail("the expression is empty", None, "write one, e.g. 0.5 * a + 0.5 * b")
        steps: list[tuple[str, _Fn]] = []
        for stmt in tree.body[:-1]:
            if isinstance(stmt, ast.Expr):
                self.fail("only the last line may be a bare expression", stmt, _STATEMENTS)
            if not isinstance(stmt, ast.Assign):
                self.statement(stmt)
            if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
                self.reject(stmt, "assigning to anything but one plain name", "write x = ...")
            value = self.expr(stmt.value)  # `x = x + 1` reads the earlier (or free) x
            steps.append((self.store(stmt.targets[0]), value))
        last = tree.body[-1]
        if not isinstance(last, ast.Expr):
            if isinstance(last, ast.Assign):
                self.fail("the last line must be an expression (the value)", last, "not x = ...")
            self.statement(last)
        run = _program(steps, self.expr(last.value))
        # no loops: each operation runs at most once per evaluation, so equal shares of the
        # budget bound the whole evaluation (docs/design/formula.md, "Cost")
        self.share.steps = BUDGET // max(1, self.metered)
        return run, list(self.free)

    def statement(self, stmt: ast.stmt) -> NoReturn:
        kind = type(stmt).__name__
        self.reject(stmt, *_WHAT.get(kind, (f"a {kind!r} statement", _STATEMENTS)))

    def store(self, target: ast.Name) -> str:
        self.check_name(target)
        self.assigned.add(target.id)
        return target.id

    def check_name(self, node: ast.Name) -> None:
        if node.id.startswith("_"):
            self.reject(node, f"the name {node.id!r} (names starting with '_')")

    def expr(self, node: ast.expr) -> _Fn:
        visit = getattr(self, f"visit_{type(node).__name__}", None)
        if visit is None:
            kind = type(node).__name__
            self.reject(node, *_WHAT.get(kind, (f"{kind!r}", "")))
        fn: _Fn = visit(node)
        return fn

    def visit_Constant(self, node: ast.Constant) -> _Fn:
        value = node.value
        if isinstance(value, str):
            if self.dialect == "formula":
                self.reject(node, "a string constant", "a formula works on numbers only")
            if len(value) > MAX_STRING:
                self.fail(f"a string of {len(value)} characters exceeds {MAX_STRING}", node)
        elif isinstance(value, bool) or value is None:
            pass
        elif isinstance(value, int | float):
            if not abs(value) <= MAX_CONSTANT:  # also catches inf (1e999)
                self.fail(f"the constant {value!r} exceeds the limit of ±1e6", node)
        else:
            self.reject(node, f"the constant {value!r} ({type(value).__name__})")
        return lambda s: value

    def visit_Name(self, node: ast.Name) -> _Fn:
        self.check_name(node)
        name = node.id
        if name in self.assigned:
            return lambda s: s[name]
        if self.allowed is not None and name not in self.allowed:
            known = ", ".join(repr(n) for n in sorted(self.allowed)[:12]) or "none"
            hint = f"known names: {known}.{did_you_mean(name, self.allowed)}"
            self.fail(f"unknown name {name!r}", node, hint)
        self.free[name] = None

        def read(s: Env) -> Any:
            try:
                return s[name]
            except KeyError:
                raise NameError(f"name {name!r} is not defined") from None

        return read

    def visit_UnaryOp(self, node: ast.UnaryOp) -> _Fn:
        op = node.op
        if isinstance(op, ast.Not) and self.dialect == "formula":
            self.reject(node, "'not'", "a formula has no 'not'; write (0 if x else 1)")
        if isinstance(op, ast.Invert):
            self.reject(node, "'~'", "write -x - 1 or 1 - x")
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
        banned = _BANNED_BINOPS.get(type(node.op))
        if banned is not None:
            self.reject(node, repr(banned[0]), banned[1])
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
            if self.dialect == "formula" and not isinstance(op, _FORMULA_COMPARE):
                self.reject(node, repr(symbol), "a formula compares numbers only")
            if isinstance(op, ast.Is | ast.IsNot) and not any(
                isinstance(o, ast.Constant) and o.value is None for o in operands[i : i + 2]
            ):
                self.reject(node, f"{symbol!r} with anything but None", "use == or !=")
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
        if self.dialect == "formula":
            for elt in node.elts:
                if _builds_sequence(elt):
                    hint = "a formula works on numbers: e.g. max([a, b]), not max([[a], [b]])"
                    self.reject(elt, "a list or tuple inside a list or tuple", hint)
        return [self.expr(e) for e in node.elts]

    def visit_Attribute(self, node: ast.Attribute) -> _Fn:
        hint = "only .get(key) calls are allowed"
        if self.dialect == "formula":
            hint = "a formula reads judges by their plain names"
        self.reject(node, f"attribute access ('.{node.attr}')", hint)

    def visit_Subscript(self, node: ast.Subscript) -> _Fn:
        if self.dialect == "formula":
            self.reject(node, "a subscript ('x[...]')", "a formula reads judges by plain names")
        index = node.slice
        if isinstance(index, ast.Slice):
            self.expr(index)  # rejected, with its own message
        negative = isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub)
        plain = index.operand if isinstance(index, ast.UnaryOp) and negative else index
        if not (isinstance(plain, ast.Constant) or (isinstance(plain, ast.Name) and not negative)):
            self.reject(index, "this index", "index with a constant or a name, e.g. x['key']")
        value, key = self.expr(node.value), self.expr(index)
        share = self.meter() if isinstance(plain, ast.Name) else None

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
        if node.keywords:
            kw = node.keywords[0]
            shown = f"{kw.arg}=" if kw.arg else "**"
            self.reject(kw, f"a keyword argument ({shown})", "pass arguments by position")
        func = node.func
        if isinstance(func, ast.Attribute) and self.dialect == "condition" and func.attr == "get":
            receiver, args = self.expr(func.value), [self.expr(a) for a in node.args]
            if not 1 <= len(args) <= 2:
                self.fail(f".get() takes 1 or 2 arguments ({len(args)} given)", node)
            if isinstance(node.args[0], ast.Constant):
                return _call(lambda obj, *a: obj.get(*a), [receiver, *args])
            share = self.meter()  # a key computed at run time: hashing it is metered
            return _call(
                lambda obj, k, *a: obj.get(charge_key(k, share.steps), *a), [receiver, *args]
            )
        if not isinstance(func, ast.Name):
            self.expr(func)  # rejects attributes, lambdas, ... with their own message
            self.reject(func, "calling the result of an expression", "call a function by name")
        self.check_name(func)
        if func.id in self.assigned:
            self.fail(f"{func.id!r} is assigned in this formula, so it cannot be called", func)
        spec = FUNCTIONS.get(func.id)
        if spec is None:
            hint = f"the functions are {_FUNCTIONS_TEXT}.{did_you_mean(func.id, FUNCTIONS)}"
            self.reject(func, f"calling {func.id!r}", hint)
        target, low, high = spec
        args = [self.expr(a) for a in node.args]
        if not low <= len(args) <= high:
            takes = f"{low}" if low == high else f"{low} or {high}" if high == 2 else f"{low}+"
            self.fail(f"{func.id}() takes {takes} argument(s) ({len(args)} given)", node)
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


def _builds_sequence(node: ast.expr) -> bool:
    """Whether `node` is a list or tuple literal, or an expression that may yield one."""
    if isinstance(node, ast.List | ast.Tuple):
        return True
    if isinstance(node, ast.BinOp):
        return _builds_sequence(node.left) or _builds_sequence(node.right)
    if isinstance(node, ast.IfExp):
        return _builds_sequence(node.body) or _builds_sequence(node.orelse)
    if isinstance(node, ast.BoolOp):
        return any(_builds_sequence(v) for v in node.values)
    return False


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
