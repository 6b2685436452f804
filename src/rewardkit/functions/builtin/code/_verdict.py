"""Verdicts decided outside the jail: a test passes only on evidence the program cannot forge.

The protocol (`docs/security.md`, "Verdicts"):

1. The grader parses the trusted test code and rewrites every `assert` into a call
   `__rk_check(k, (lambda: operand, ...))`. The operands are the parts of the assertion
   that need the solution (calls, names, attributes...); its *shape* (comparisons, `and`,
   `or`, `not`) and its *literals* (`5`, `[1, 2]`, or a name bound once to a literal)
   stay here and never enter the jail.
2. In the jail the harness (`_harness.py`) runs the solution, then the rewritten tests;
   each check evaluates the operands and writes them on descriptor 3 as *plain* values:
   exact built-in types only, so a rigged `__eq__`, `__hash__` or `__str__` never
   reaches a comparison, and a subclass is refused.
3. The grader rebuilds the values and evaluates each assertion itself. It passes when the
   harness said `done`, every top-level assertion was reported exactly once, and every
   report holds. An early `sys.exit`, `os._exit`, a patched hook or a crash leaves no
   `done`; a malformed report line fails the run.

Decoding and comparing are bounded (depth, size) and never raise.
"""

from __future__ import annotations

import ast
import json
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Check", "Verdict", "decode", "judge_call", "judge_checks", "rewrite_tests"]

_MAX_DEPTH = 100
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
    ast.Is: lambda a, b: a is b if _singleton(a) or _singleton(b) else _same(a, b),
    ast.IsNot: lambda a, b: not (a is b if _singleton(a) or _singleton(b) else _same(a, b)),
}


class _Failed(Exception):
    """An operand has no plain value, or the report is malformed."""


def _singleton(value: Any) -> bool:
    return value is None or value is True or value is False


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


# --- values: tagged JSON from the harness → plain Python ------------------------------


def decode(data: Any, depth: int = 0) -> Any:
    """A value the harness wrote, rebuilt; `_Failed` if it is not one it could write."""
    if depth > _MAX_DEPTH:
        raise _Failed("a value nested too deeply")
    if data is None or isinstance(data, bool | str):
        return data
    if not isinstance(data, dict) or len(data) != 1:
        raise _Failed(f"not a tagged value: {data!r:.80}")
    ((tag, payload),) = data.items()
    items = (lambda: [decode(x, depth + 1) for x in payload]) if isinstance(payload, list) else None
    try:
        if tag == "i":
            return _int(payload)
        if tag == "f":
            return float(payload)
        if tag == "c":
            return complex(float(payload[0]), float(payload[1]))
        if tag == "b":
            return bytes.fromhex(payload)
        if tag == "d" and items:
            return {_key(k): v for k, v in ((decode(k, depth + 1), decode(v, depth + 1))
                                            for k, v in payload)}  # fmt: skip
        kinds: dict[str, Callable[[list[Any]], Any]] = {"l": list, "t": tuple, "s": set,
                                                        "z": frozenset}  # fmt: skip
        if tag in kinds and items:
            return kinds[tag](items())
    except (TypeError, ValueError, IndexError) as exc:
        raise _Failed(f"a malformed {tag!r} value ({exc})") from None
    raise _Failed(f"an unknown tag {tag!r}")


def _int(digits: str) -> int:
    """`int(digits)` past Python's 4,300-digit guard, halving (so in sub-quadratic time)."""
    if len(digits) <= 4000:
        return int(digits)
    if digits[0] in "+-":
        magnitude = _int(digits[1:])
        return -magnitude if digits[0] == "-" else magnitude
    if not digits.isdigit():
        raise ValueError(f"not an integer: {digits[:40]!r}")
    half = len(digits) // 2
    scale: int = 10 ** (len(digits) - half)
    return _int(digits[:half]) * scale + _int(digits[half:])


def _key(key: Any) -> Any:
    hash(key)  # an unhashable key raises TypeError, caught above
    return key


# --- the test code: split into what runs there and what stays here --------------------


@dataclass(frozen=True)
class Check:
    """One `assert` of the test code, as the grader evaluates it.

    Attributes:
        line: Its line in the test code.
        text: Its source, for reasons.
        shape: The assertion with operands replaced by `("leaf", i)` and literals by
            `("lit", value)`; inner nodes `("cmp", ops, parts)`, `("and"|"or", parts)`,
            `("not", part)`.
        top_level: It is a statement of the module itself, so it must run exactly once.
    """

    line: int
    text: str
    shape: tuple[Any, ...]
    top_level: bool


def _literals(tree: ast.Module) -> dict[str, Any]:
    """Names the test code binds exactly once, at the top, to a literal."""
    bound: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound[node.id] = bound.get(node.id, 0) + 1
    found = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name) and bound.get(target.id) == 1:
                try:
                    found[target.id] = ast.literal_eval(stmt.value)
                except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                    continue
    return found


class _Rewriter(ast.NodeTransformer):
    def __init__(self, source: str, literals: dict[str, Any]) -> None:
        self.source, self.literals, self.checks = source, literals, list[Check]()
        self._depth = 0

    def visit_Assert(self, node: ast.Assert) -> ast.stmt:
        leaves: list[ast.expr] = []
        shape = self._shape(node.test, leaves)
        text = ast.get_source_segment(self.source, node) or f"line {node.lineno}"
        self.checks.append(Check(node.lineno, text, shape, top_level=self._depth == 0))
        thunks = ast.Tuple([ast.Lambda(_no_args(), leaf) for leaf in leaves], ast.Load())
        call = ast.Call(ast.Name("__rk_check", ast.Load()),
                        [ast.Constant(len(self.checks) - 1), thunks], [])  # fmt: skip
        return ast.copy_location(ast.Expr(call), node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        nested = isinstance(node, ast.stmt) and not isinstance(node, ast.Module)
        self._depth += nested
        try:
            return super().generic_visit(node)
        finally:
            self._depth -= nested

    def _shape(self, node: ast.expr, leaves: list[ast.expr]) -> tuple[Any, ...]:
        if isinstance(node, ast.Compare):
            parts = [self._shape(n, leaves) for n in (node.left, *node.comparators)]
            return ("cmp", tuple(type(op) for op in node.ops), tuple(parts))
        if isinstance(node, ast.BoolOp):
            kind = "and" if isinstance(node.op, ast.And) else "or"
            return (kind, tuple(self._shape(n, leaves) for n in node.values))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return ("not", self._shape(node.operand, leaves))
        if isinstance(node, ast.Name) and node.id in self.literals:
            return ("lit", self.literals[node.id])
        try:
            return ("lit", ast.literal_eval(node))
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            leaves.append(node)
            return ("leaf", len(leaves) - 1)


def _no_args() -> ast.arguments:
    return ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])


def rewrite_tests(test_code: str) -> tuple[str, list[Check]]:
    """The test code to run in the jail, and the checks the grader keeps.

    Raises:
        SyntaxError: the test code does not parse.
    """
    tree = ast.parse(test_code)
    rewriter = _Rewriter(test_code, _literals(tree))
    rewritten = ast.fix_missing_locations(rewriter.visit(tree))
    return ast.unparse(rewritten), rewriter.checks


# --- judging the report -----------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What the grader concluded from the harness's report.

    Attributes:
        passed: Every check held and the tests ran to their end.
        reason: Why not (or a summary when they passed).
        value: The returned value (`judge_call` only), rebuilt.
    """

    passed: bool
    reason: str
    value: Any = None


def _records(report: str) -> list[dict[str, Any]]:
    records = []
    for number, line in enumerate(report.splitlines(), 1):
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            raise _Failed(f"report line {number} is not JSON (the program wrote on it)") from None
        if not isinstance(record, dict):
            raise _Failed(f"report line {number} is not a record")
        records.append(record)
    return records


def _evaluate(shape: tuple[Any, ...], leaves: list[Any]) -> Any:
    kind = shape[0]
    if kind == "lit":
        return shape[1]
    if kind == "leaf":
        status, payload = leaves[shape[1]]
        if status != "v":
            raise _Failed(str(payload)[:300])
        return decode(payload)
    if kind == "not":
        return not _evaluate(shape[1], leaves)
    if kind in ("and", "or"):
        for part in shape[1]:
            value = _evaluate(part, leaves)
            if bool(value) is (kind == "or"):
                return value
        return value
    ops, parts = shape[1], shape[2]
    left = _evaluate(parts[0], leaves)
    for op, part in zip(ops, parts[1:], strict=True):
        right = _evaluate(part, leaves)
        if not _COMPARE[op](left, right):
            return False
        left = right
    return True


def _holds(check: Check, record: dict[str, Any]) -> str | None:
    """None when the check holds for this report, else why not."""
    leaves = record.get("leaves")
    if not isinstance(leaves, list) or not all(
        isinstance(leaf, list) and len(leaf) == 2 for leaf in leaves
    ):
        return f"malformed report for `{check.text:.100}`"
    try:
        return None if bool(_evaluate(check.shape, leaves)) else f"failed: `{check.text:.200}`"
    except (_Failed, TypeError, ValueError, IndexError, RecursionError, MemoryError) as exc:
        return f"failed: `{check.text:.200}` ({exc})"


def judge_checks(report: str, checks: list[Check]) -> Verdict:
    """The verdict on the rewritten tests' report; never raises."""
    try:
        records = _records(report)
    except _Failed as exc:
        return Verdict(False, str(exc))
    seen = [0] * len(checks)
    for record in records:
        if "crash" in record:
            return Verdict(False, str(record["crash"])[:500])
        if "done" in record:
            break
        k = record.get("k")
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(checks):
            return Verdict(False, "malformed report (the program wrote on it)")
        seen[k] += 1
        problem = _holds(checks[k], record)
        if problem:
            return Verdict(False, problem)
    else:
        return Verdict(False, "the tests did not run to their end (the program exited early)")
    missed = [c for c, n in zip(checks, seen, strict=True) if c.top_level and n != 1]
    if missed:
        return Verdict(False, f"`{missed[0].text:.200}` was not checked exactly once")
    return Verdict(True, f"{len(checks)} assertion(s) held")


def judge_call(report: str) -> Verdict:
    """The returned value of a `"call"` run, rebuilt; never raises."""
    try:
        records = _records(report)
        if len(records) != 1:
            return Verdict(False, "the call returned no result")
        record = records[0]
        if "crash" in record:
            return Verdict(False, str(record["crash"])[:500])
        if "value" not in record:
            return Verdict(False, "the call returned no result")
        return Verdict(True, "returned", decode(record["value"]))
    except (_Failed, RecursionError, MemoryError) as exc:
        return Verdict(False, f"the call's result is not a plain value ({exc})")
