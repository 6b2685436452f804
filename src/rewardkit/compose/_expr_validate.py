"""The load-time rules of the expression language: what is allowed, the limits, and how a
refusal reads.

`Validator` holds the checks; the compiler (`_expr`) runs them on each node as it builds
that node's closure, so validation and compilation stay one pass and the thing validated is
exactly the thing that runs. Every refusal is a `FormulaError` that names the construct, its
line and column, then the fix. docs/design/formula.md lists what is refused, and where.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection, Sequence
from typing import Any, Literal, NoReturn

from rewardkit.compose._expr_runtime import FUNCTIONS
from rewardkit.core._errors import FormulaError, did_you_mean

__all__ = ["Dialect", "Validator"]

Dialect = Literal["formula", "condition"]

MAX_NODES = 200  # every node of the parsed module, as `ast.walk` counts them
MAX_CONSTANT = 1e6  # largest |number| a literal may spell
MAX_STRING = 10_000  # longest string literal (condition dialect)
_MAX_SOURCE = 100_000  # characters; keeps the parser itself out of trouble
_FUNCTIONS_TEXT = "abs, len, max, mean, min, round, sum"
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


class Validator:
    """The checks of one program, and the names it reads and assigns as they are met."""

    def __init__(self, text: str, dialect: Dialect, names: Collection[str] | None, **where: Any):
        self.text, self.dialect, self.where = text, dialect, where
        self.allowed = None if names is None else frozenset(names)
        self.free: dict[str, None] = {}  # insertion-ordered set
        self.assigned: set[str] = set()

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

    def refuse(self, node: ast.AST) -> NoReturn:
        """Rejects an expression node the grammar does not have (no closure to become)."""
        if isinstance(node, ast.Attribute):
            hint = "only .get(key) calls are allowed"
            if self.dialect == "formula":
                hint = "a formula reads judges by their plain names"
            self.reject(node, f"attribute access ('.{node.attr}')", hint)
        kind = type(node).__name__
        self.reject(node, *_WHAT.get(kind, (f"{kind!r}", "")))

    def statement(self, stmt: ast.stmt) -> NoReturn:
        kind = type(stmt).__name__
        self.reject(stmt, *_WHAT.get(kind, (f"a {kind!r} statement", _STATEMENTS)))

    def parse(self) -> ast.Module:
        """The parsed program, within the size limits and not empty."""
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
        return tree

    def assignment(self, stmt: ast.stmt) -> tuple[ast.Name, ast.expr]:
        """The target and value of a line before the last, which must be `name = expression`."""
        if isinstance(stmt, ast.Expr):
            self.fail("only the last line may be a bare expression", stmt, _STATEMENTS)
        if not isinstance(stmt, ast.Assign):
            self.statement(stmt)
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            self.reject(stmt, "assigning to anything but one plain name", "write x = ...")
        return stmt.targets[0], stmt.value

    def last_line(self, stmt: ast.stmt) -> ast.expr:
        """The expression of the last line, which is the program's value."""
        if not isinstance(stmt, ast.Expr):
            if isinstance(stmt, ast.Assign):
                self.fail("the last line must be an expression (the value)", stmt, "not x = ...")
            self.statement(stmt)
        return stmt.value

    def store(self, target: ast.Name) -> str:
        self.check_name(target)
        self.assigned.add(target.id)
        return target.id

    def check_name(self, node: ast.Name) -> None:
        if node.id.startswith("_"):
            self.reject(node, f"the name {node.id!r} (names starting with '_')")

    def check_free(self, node: ast.Name) -> None:
        """A free variable must be one of the allowed names, when they are given."""
        name = node.id
        if self.allowed is not None and name not in self.allowed:
            known = ", ".join(repr(n) for n in sorted(self.allowed)[:12]) or "none"
            hint = f"known names: {known}.{did_you_mean(name, self.allowed)}"
            self.fail(f"unknown name {name!r}", node, hint)
        self.free[name] = None

    def check_constant(self, node: ast.Constant) -> None:
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

    def check_unary(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not) and self.dialect == "formula":
            self.reject(node, "'not'", "a formula has no 'not'; write (0 if x else 1)")
        if isinstance(node.op, ast.Invert):
            self.reject(node, "'~'", "write -x - 1 or 1 - x")

    def check_binop(self, node: ast.BinOp) -> None:
        banned = _BANNED_BINOPS.get(type(node.op))
        if banned is not None:
            self.reject(node, repr(banned[0]), banned[1])

    def check_comparison(
        self, node: ast.Compare, op: ast.cmpop, symbol: str, pair: Sequence[ast.expr]
    ) -> None:
        """One operator of a (possibly chained) comparison, between the two operands `pair`."""
        if self.dialect == "formula" and not isinstance(op, _FORMULA_COMPARE):
            self.reject(node, repr(symbol), "a formula compares numbers only")
        if isinstance(op, ast.Is | ast.IsNot) and not any(
            isinstance(o, ast.Constant) and o.value is None for o in pair
        ):
            self.reject(node, f"{symbol!r} with anything but None", "use == or !=")

    def check_items(self, node: ast.List | ast.Tuple) -> None:
        if self.dialect == "formula":
            for elt in node.elts:
                if _builds_sequence(elt):
                    hint = "a formula works on numbers: e.g. max([a, b]), not max([[a], [b]])"
                    self.reject(elt, "a list or tuple inside a list or tuple", hint)

    def check_subscript(self, node: ast.Subscript) -> None:
        """`x[k]` in a condition, with `k` a constant, a negative number or a name."""
        if self.dialect == "formula":
            self.reject(node, "a subscript ('x[...]')", "a formula reads judges by plain names")
        index = node.slice
        if isinstance(index, ast.Slice):
            self.refuse(index)
        negative = isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub)
        plain = index.operand if isinstance(index, ast.UnaryOp) and negative else index
        if not (isinstance(plain, ast.Constant) or (isinstance(plain, ast.Name) and not negative)):
            self.reject(index, "this index", "index with a constant or a name, e.g. x['key']")

    def check_keywords(self, node: ast.Call) -> None:
        if node.keywords:
            kw = node.keywords[0]
            shown = f"{kw.arg}=" if kw.arg else "**"
            self.reject(kw, f"a keyword argument ({shown})", "pass arguments by position")

    def check_get(self, node: ast.Call) -> None:
        if not 1 <= len(node.args) <= 2:
            self.fail(f".get() takes 1 or 2 arguments ({len(node.args)} given)", node)

    def function(self, func: ast.Name) -> tuple[Callable[..., Any], int, int]:
        """The implementation and the fewest and most arguments of a called function."""
        self.check_name(func)
        if func.id in self.assigned:
            self.fail(f"{func.id!r} is assigned in this formula, so it cannot be called", func)
        spec = FUNCTIONS.get(func.id)
        if spec is None:
            hint = f"the functions are {_FUNCTIONS_TEXT}.{did_you_mean(func.id, FUNCTIONS)}"
            self.reject(func, f"calling {func.id!r}", hint)
        return spec

    def check_arity(self, node: ast.Call, name: str, low: int, high: int) -> None:
        count = len(node.args)
        if not low <= count <= high:
            takes = f"{low}" if low == high else f"{low} or {high}" if high == 2 else f"{low}+"
            self.fail(f"{name}() takes {takes} argument(s) ({count} given)", node)


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
