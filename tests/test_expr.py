"""The expression language: escapes rejected at compile time, Python's arithmetic kept."""

from __future__ import annotations

import ast
import builtins
import importlib
import inspect
import keyword
import math
import re
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from rewardkit.compose import Expression, compile_expression
from rewardkit.core._errors import ConfigError, FormulaError

ENV = {"a": 0.25, "b": 0.5, "c": 1.0, "x": 2.0, "y": 3.0}
CONDITION_NAMES = ("outputs", "annotations")

# (source, a fragment of the message). Every one must fail in *both* dialects.
ESCAPES: list[tuple[str, str]] = [
    ("().__class__", "attribute access ('.__class__')"),
    ("().__class__.__bases__[0].__subclasses__()", "attribute access"),
    ("x.__class__", "attribute access ('.__class__')"),
    ("x.real", "attribute access ('.real')"),
    ("__import__('os')", "'__import__'"),
    ("__import__", "'__import__'"),
    ("__builtins__", "'__builtins__'"),
    ("_", "names starting with '_'"),
    ("_x + 1", "names starting with '_'"),
    ("_secret = 1\n_secret", "names starting with '_'"),
    ("x = 1\n__class__ = x\nx", "names starting with '_'"),
    ("eval('1')", "calling 'eval'"),
    ("exec('x = 1')", "calling 'exec'"),
    ("compile('1', 'f', 'eval')", "calling 'compile'"),
    ("open('/etc/passwd')", "calling 'open'"),
    ("getattr(x, 'real')", "calling 'getattr'"),
    ("globals()", "calling 'globals'"),
    ("vars()", "calling 'vars'"),
    ("type(x)", "calling 'type'"),
    ("print(x)", "calling 'print'"),
    ("breakpoint()", "calling 'breakpoint'"),
    ("lambda: 1", "'lambda'"),
    ("(lambda: 1)()", "'lambda'"),
    ("[x for x in y]", "comprehension"),
    ("sum(v for v in [x, y])", "generator"),
    ("{x: 1 for x in y}", "comprehension"),
    ("{x for x in y}", "comprehension"),
    ("1e7", "exceeds the limit"),
    ("10000001", "exceeds the limit"),
    ("-1e7", "exceeds the limit"),
    ("1e999", "exceeds the limit"),
    ("10**9", "'**'"),
    ("x ** 2", "'**' is not allowed (line 1, col 1); write x * x instead"),
    ("1 << 30", "'<<'"),
    ("x @ y", "'@'"),
    ("x | y", "'|'"),
    ("~x", "'~'"),
    ("(y := 3)", "':='"),
    ("min(*[x, y])", "'*' unpacking"),
    ("min(x, key=abs)", "keyword argument (key=)"),
    ("min(**{'key': abs})", "keyword argument (**)"),
    ("f = 1\nf(2)", "'f' is assigned in this formula"),
    ("min = 1\nmin(x, y)", "'min' is assigned in this formula"),
    ("x()", "calling 'x'"),
    ("x(1)(2)", "calling 'x'"),
    ("(1)(2)", "calling the result of an expression"),
    ("import os", "'import'"),
    ("from os import path\nx", "'from ... import'"),
    ("del x\n1", "'del'"),
    ("global x\nx", "'global'"),
    ("with x:\n    pass\nx", "'with'"),
    ("def f():\n    return 1\nf()", "'def'"),
    ("class A:\n    pass\nx", "'class'"),
    ("for i in x:\n    pass\nx", "'for'"),
    ("while x:\n    pass\nx", "'while'"),
    ("try:\n    x\nexcept Exception:\n    pass\nx", "'try'"),
    ("if x:\n    y\nx", "'if'"),
    ("assert x\nx", "'assert'"),
    ("x += 1\nx", "augmented assignment"),
    ("x: int = 1\nx", "annotated assignment"),
    ("x = y = 1\nx", "one plain name"),
    ("x, y = 1, 2\nx", "one plain name"),
    ("x = 1", "the last line must be an expression"),
    ("x\ny", "only the last line may be a bare expression"),
    ("b'abc'", "constant b'abc'"),
    ("{'a': 1}", "dict literal"),
    ("{1, 2}", "set literal"),
    ("1j", "constant 1j"),
    ("...", "constant Ellipsis"),
    ("await x", "'await'"),
    ("x[1:2]", "subscript"),  # formula: subscript; condition: slice
    ("x.get('k').__class__", "attribute access ('.__class__')"),
    ("x.keys()", "attribute access ('.keys')"),
    ("x.get(k=1)", "keyword argument (k=)"),
    ("a +", "invalid syntax"),
    ("(a", "line 1"),
    ("", "the expression is empty"),
    ("# only a comment", "the expression is empty"),
    ("\x00", "null bytes"),
    ("-" * 150 + "x", "syntax nodes"),
    ("[" * 120 + "]" * 120, "syntax nodes"),
    (" + ".join(["x"] * 101), "syntax nodes"),
    ("x" * 200_000, "characters"),
]

# Rejected in the formula dialect only: the condition dialect allows them.
FORMULA_ONLY: list[tuple[str, str]] = [
    ("'a' * 10", "a string constant is not allowed (line 1, col 1); a formula works on numbers"),
    ("'abc'", "a string constant"),
    ("f'{x}'", "f-string"),  # rejected in both; checked in both below
    ("not x", "'not'"),
    ("x in [1, 2]", "'in'"),
    ("x not in [1, 2]", "'not in'"),
    ("x is None", "'is'"),
    ("x is not None", "'is not'"),
    ("x[0]", "a subscript ('x[...]')"),
    ("x['k']", "a subscript"),
    ("x.get('k')", "attribute access ('.get')"),
]

CONDITION_REJECTED: list[tuple[str, str]] = [
    ("annotations.__class__", "attribute access ('.__class__')"),
    (
        "outputs.keys()",
        "('.keys') is not allowed (line 1, col 1); only .get(key) calls are allowed",
    ),
    ("outputs.items", "attribute access ('.items')"),
    ("outputs.get", "attribute access ('.get')"),
    ("outputs.get()", ".get() takes 1 or 2 arguments (0 given)"),
    ("outputs.get('a', 1, 2)", ".get() takes 1 or 2 arguments (3 given)"),
    ("outputs[len(outputs)]", "this index"),
    ("outputs['a' + 'b']", "this index"),
    ("outputs[1:2]", "a slice"),
    ("outputs is 1", "'is' with anything but None"),
    ("outputs ** 2", "'**'"),
    ("f'{outputs}'", "f-string"),
    ("f'{outputs:>999999999}'", "f-string"),
    ("'a' * 10_001 if 0 else '" + "a" * 10_001 + "'", "exceeds 10000"),
    ("_outputs", "names starting with '_'"),
    ("outputs.get('a').__dict__", "attribute access"),
    ("[c for c in outputs]", "comprehension"),
    ("lambda: outputs", "'lambda'"),
    ("str(outputs)", "calling 'str'"),
    ("outputs.__getitem__('a')", "attribute access ('.__getitem__')"),
]

CONDITION_ALLOWED: list[tuple[str, dict[str, Any], object]] = [
    ("annotations.get('category') == 'navigation'", {"category": "navigation"}, True),
    ("annotations.get('category') == 'navigation'", {}, False),
    ("annotations.get('missing', 'dflt')", {}, "dflt"),
    ("annotations['category'] != 'x'", {"category": "y"}, True),
    ("'category' in annotations", {"category": "y"}, True),
    ("'category' not in annotations", {"category": "y"}, False),
    ("annotations.get('n') is None", {}, True),
    ("None is not annotations.get('n')", {"n": 1}, True),
    ("not annotations", {}, True),
    ("len(annotations) >= 1 and annotations['n'] > 2", {"n": 3}, True),
    ("annotations['tags'][-1] == 'z'", {"tags": ["x", "z"]}, True),
    ("annotations['tags'][0]", {"tags": ["x", "z"]}, "x"),
    ("k = 'n'\nannotations[k] * 2", {"n": 4}, 8),
    ("'%' in annotations.get('s', '')", {"s": "50%"}, True),
    ("min(annotations['xs']) + max(annotations['xs'])", {"xs": [1, 5]}, 6),
]


@pytest.mark.parametrize("dialect", ["formula", "condition"])
@pytest.mark.parametrize(("source", "fragment"), ESCAPES)
def test_escapes_are_rejected_at_compile_time(source: str, fragment: str, dialect: str) -> None:
    if dialect == "condition" and source == "x[1:2]":
        fragment = "a slice is not allowed (line 1, col 3); index with one key or number"
    with pytest.raises(FormulaError) as info:
        compile_expression(source, dialect=dialect)  # type: ignore[arg-type]
    assert fragment in str(info.value)
    assert isinstance(info.value, ConfigError)


def test_there_are_at_least_40_escape_attempts() -> None:
    assert len(ESCAPES) + len(FORMULA_ONLY) + len(CONDITION_REJECTED) >= 40
    assert len(ESCAPES) >= 40


@pytest.mark.parametrize(("source", "fragment"), FORMULA_ONLY)
def test_formula_dialect_rejects_the_condition_extras(source: str, fragment: str) -> None:
    with pytest.raises(FormulaError) as info:
        compile_expression(source)
    assert fragment in str(info.value)


@pytest.mark.parametrize(("source", "fragment"), CONDITION_REJECTED)
def test_condition_dialect_still_rejects(source: str, fragment: str) -> None:
    with pytest.raises(FormulaError) as info:
        compile_expression(source, dialect="condition")
    assert fragment in str(info.value)


@pytest.mark.parametrize(("source", "annotations", "expected"), CONDITION_ALLOWED)
def test_condition_dialect_allows(
    source: str, annotations: dict[str, Any], expected: object
) -> None:
    compiled = compile_expression(source, dialect="condition", names=CONDITION_NAMES)
    assert compiled.evaluate({"annotations": annotations, "outputs": {}}) == expected


def test_condition_get_on_a_value_without_get_fails_at_run_time() -> None:
    compiled = compile_expression("outputs.get('a')", dialect="condition")
    with pytest.raises(AttributeError):
        compiled.evaluate({"outputs": "a string"})


def test_message_locates_quotes_and_repairs() -> None:
    with pytest.raises(FormulaError) as info:
        compile_expression("0.5 * quality ** 2", key="reward.formula", path="eval.yaml")
    error = info.value
    assert str(error) == (
        "eval.yaml: reward.formula: '**' is not allowed (line 1, col 7); write x * x instead"
    )
    assert (error.line, error.col, error.key) == (1, 7, "reward.formula")


def test_line_and_column_of_a_later_line() -> None:
    with pytest.raises(FormulaError, match=r"\('.y'\) is not allowed \(line 2, col 8\)") as info:
        compile_expression("base = a\nbase + x.y")
    assert info.value.line == 2


def test_syntax_errors_quote_the_line() -> None:
    with pytest.raises(FormulaError, match=r"\(line 1, col \d+\) in 'a \+\* b'"):
        compile_expression("a +* b")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("0.6 * a + 0.4 * b", 0.6 * 0.25 + 0.4 * 0.5),
        ("a - b / c // 1 % 3", 0.25 - 0.5 / 1.0 // 1 % 3),
        ("-a + +b", 0.25),
        ("min(a, b) + max([a, b, c])", 1.25),
        ("min([a, b])", 0.25),
        ("abs(a - c)", 0.75),
        ("round(x / y, 2)", 0.67),
        ("round(2.5)", 2),
        ("sum([a, b, c])", 1.75),
        ("sum(a, b, c)", 1.75),
        ("len([a, b, c])", 3),
        ("mean([a, b])", 0.375),
        ("mean(a, b, c, x)", 0.9375),
        ("mean([])", 0.0),
        ("a < b < c", True),
        ("a < b > c", False),
        ("a == 0.25 != b", True),
        ("a and b", 0.5),
        ("0 and b", 0),
        ("a or b", 0.25),
        ("0 or None", None),
        ("x if a > b else y", 3.0),
        ("(a, b) < (a, c)", True),
        ("True + True", 2),
        ("1e6 * 1e6 * 1e6", 1e18),
        ("base = mean([a, b])\nmin(base, c)", 0.375),
        ("a = a * 2\nb = a + b\na + b", 1.5),
        ("\n  a + b\n", 0.75),
    ],
)
def test_formulas_compute_what_python_computes(source: str, expected: object) -> None:
    assert compile_expression(source, names=ENV).evaluate(ENV) == expected


def test_names_are_the_free_variables_read() -> None:
    compiled = compile_expression("base = mean([a, b])\nmin(base, c) + a")
    assert compiled.names == frozenset({"a", "b", "c"})
    assert compiled.source == "base = mean([a, b])\nmin(base, c) + a"
    assert compile_expression("x = x + 1\nx").names == {"x"}  # read before it is assigned


def test_unknown_names_suggest_the_closest() -> None:
    with pytest.raises(FormulaError) as info:
        compile_expression("0.5 * qualty + speed", names=["quality", "speed"])
    assert "unknown name 'qualty' (line 1, col 7)" in str(info.value)
    assert "Did you mean 'quality'?" in str(info.value)
    assert "known names: 'quality', 'speed'" in str(info.value)


def test_unknown_function_suggests_the_closest() -> None:
    with pytest.raises(FormulaError, match="Did you mean 'mean'"):
        compile_expression("maen([a])")


def test_assigned_names_need_not_be_declared() -> None:
    compiled = compile_expression("t = a + b\nt * 2", names=["a", "b"])
    assert compiled.evaluate({"a": 1, "b": 2}) == 6
    assert compiled.names == {"a", "b"}


@pytest.mark.parametrize(
    ("source", "message"),
    [("abs(a, b)", "abs() takes 1 argument"), ("round(a, 1, 2)", "round() takes 1 or 2"),
     ("min()", "min() takes 1+ argument"), ("len()", "len() takes 1 argument")],
)  # fmt: skip
def test_arity_is_checked_at_compile_time(source: str, message: str) -> None:
    with pytest.raises(FormulaError, match=re.escape(message)):
        compile_expression(source)


def test_node_limit_counts_every_node_of_the_module() -> None:
    def formula(terms: int) -> str:
        return " + ".join(["a"] * terms)

    def count(source: str) -> int:
        return sum(1 for _ in ast.walk(ast.parse(source)))

    # `a + a + ...`: Module, Expr, then per term Name + Load and per `+` BinOp + Add.
    fits = next(n for n in range(100, 0, -1) if count(formula(n)) <= 200)
    assert count(formula(fits)) <= 200 < count(formula(fits + 1))
    assert compile_expression(formula(fits)).evaluate({"a": 1}) == fits
    with pytest.raises(FormulaError, match=rf"has {count(formula(fits + 1))} syntax nodes"):
        compile_expression(formula(fits + 1))


def test_constants_up_to_the_cap_are_allowed() -> None:
    assert compile_expression("1e6 + -1000000").evaluate({}) == 0
    assert compile_expression("True and None is None", dialect="condition").evaluate({}) is True


@pytest.mark.parametrize(
    ("source", "env", "error"),
    [
        ("a / b", {"a": 1.0, "b": 0.0}, ZeroDivisionError),
        ("a // 0", {"a": 1}, ZeroDivisionError),
        ("a % 0", {"a": 1}, ZeroDivisionError),
        ("a + missing", {"a": 1.0}, NameError),
        ("mean([a, None])", {"a": 1.0}, TypeError),
        ("min([])", {}, ValueError),
        ("round(a, 100000)", {"a": 5}, ValueError),
        ("round(5, a)", {"a": -1_000_000 * 1_000_000}, ValueError),
        ("[a] * 1000000", {"a": 1}, OverflowError),
        ("x = [a] * 10000\nx + x", {"a": 1}, OverflowError),
        ("x = 1000000 * 1000000\n" + "x = x * x\n" * 12 + "x", {}, OverflowError),
    ],
)
def test_run_time_errors_raise_normally(source: str, env: dict[str, object], error: type) -> None:
    compiled = compile_expression(source)
    with pytest.raises(error):
        compiled.evaluate(env)


@pytest.mark.parametrize(
    ("source", "env"),
    [
        ("s * 100000", {"s": "abc"}),
        ("x = s + s\ny = x * 1000\ny", {"s": "a" * 100}),
        ("s % 1", {"s": "%999999999s"}),
        ("'%999999999s' % s", {"s": "a"}),
    ],
)
def test_condition_strings_cannot_grow_without_bound(source: str, env: dict[str, object]) -> None:
    compiled = compile_expression(source, dialect="condition")
    with pytest.raises((OverflowError, TypeError)):
        compiled.evaluate(env)


def test_missing_name_is_a_name_error_naming_it() -> None:
    with pytest.raises(NameError, match="name 'speed' is not defined"):
        compile_expression("quality + speed").evaluate({"quality": 1.0})


def test_a_branch_not_taken_needs_no_value() -> None:
    compiled = compile_expression("a if a > 0 else missing")
    assert compiled.evaluate({"a": 1}) == 1


def test_assignments_do_not_touch_the_callers_mapping() -> None:
    env = {"a": 1.0}
    assert compile_expression("a = a + 1\na").evaluate(env) == 2.0
    assert env == {"a": 1.0}


def test_evaluation_calls_no_eval_exec_or_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled = compile_expression("t = mean([a, b])\nmin(t, 1) if a > 0 else abs(-a)")

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("eval/exec/compile called during evaluation")

    for name in ("eval", "exec", "compile"):
        monkeypatch.setattr(builtins, name, forbidden)
    assert compiled.evaluate({"a": 0.5, "b": 1.0}) == 0.75


@pytest.mark.parametrize("module", ["_expr", "_expr_validate", "_expr_cost", "_expr_runtime"])
def test_the_expression_modules_never_call_eval_exec_or_compile(module: str) -> None:
    source = inspect.getsource(importlib.import_module(f"rewardkit.compose.{module}"))
    called = {
        node.func.id
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert not called & {"eval", "exec", "compile", "__import__"}


def test_expression_equality_ignores_the_closures() -> None:
    one, two = compile_expression("a + b"), compile_expression("a + b")
    assert one == two
    assert "evaluate" not in repr(one)
    assert isinstance(one, Expression)


# --- properties ------------------------------------------------------------------------

VARS = ("a", "b", "c")
_leaf = st.one_of(
    st.sampled_from(VARS),
    st.integers(-5, 5).map(str),
    st.sampled_from(["0.5", "2.0", "1e6", "0.1", "3"]),
)


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%"]), inner)
    compare = st.tuples(inner, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), inner)
    return st.one_of(
        binary.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        compare.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(inner, inner).map(lambda t: f"({t[0]} and {t[1]})"),
        st.tuples(inner, inner).map(lambda t: f"({t[0]} or {t[1]})"),
        st.tuples(inner, inner, inner).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        inner.map(lambda t: f"(-{t})"),
        inner.map(lambda t: f"abs({t})"),
        inner.map(lambda t: f"round({t})"),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: f"min({', '.join(xs)})"),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: f"max([{', '.join(xs)}])"),
        st.lists(inner, max_size=3).map(lambda xs: f"sum([{', '.join(xs)}])"),
        st.lists(inner, max_size=3).map(lambda xs: f"mean([{', '.join(xs)}])"),
        st.lists(inner, max_size=3).map(lambda xs: f"len([{', '.join(xs)}])"),
    )


formulas = st.recursive(_leaf, _extend, max_leaves=12)
values = st.floats(-10, 10, allow_nan=False) | st.integers(-3, 3)


def _oracle_mean(items: list[float]) -> float:
    return sum(items) / len(items) if items else 0.0


def _outcome(run: Callable[[], object]) -> tuple[str, object]:
    try:
        return "ok", run()
    except Exception as exc:
        return "error", type(exc)


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(formulas, st.fixed_dictionaries({v: values for v in VARS}))
def test_compiled_formulas_match_python(source: str, env: dict[str, float]) -> None:
    assume(sum(1 for _ in ast.walk(ast.parse(source))) <= 200)
    compiled = compile_expression(source, names=VARS)
    scope = {"__builtins__": {}, "min": min, "max": max, "abs": abs, "round": round}
    scope |= {"sum": sum, "len": len, "mean": _oracle_mean}
    expected = _outcome(lambda: eval(source, scope, dict(env)))  # the oracle; tests only
    actual = _outcome(lambda: compiled.evaluate(env))
    if expected[0] == "ok" and actual[0] == "ok" and isinstance(expected[1], float):
        assert isinstance(actual[1], float)
        assert actual[1] == expected[1] or (math.isnan(actual[1]) and math.isnan(expected[1]))
    else:
        assert actual == expected


_identifier = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True).filter(
    lambda s: not keyword.iskeyword(s) and s not in {"True", "False", "None"}
)


@given(_identifier)
def test_every_name_not_allowed_is_rejected(name: str) -> None:
    allowed = {"quality", "speed"}
    if name in allowed and not name.startswith("_"):
        assert compile_expression(name, names=allowed).names == {name}
        return
    with pytest.raises(FormulaError):
        compile_expression(f"0.5 * {name} + 1", names=allowed)


@given(_identifier)
def test_every_call_not_allowed_is_rejected(name: str) -> None:
    source = f"{name}(1)"
    if name in {"abs", "len", "max", "mean", "min", "round", "sum"}:
        compile_expression(f"{name}([1])" if name != "abs" and name != "round" else source)
        return
    with pytest.raises(FormulaError):
        compile_expression(source)
    with pytest.raises(FormulaError):
        compile_expression(source, dialect="condition")


@given(st.from_regex(r"_[A-Za-z0-9_]{0,8}", fullmatch=True))
def test_underscore_names_are_rejected_read_or_written(name: str) -> None:
    for source in (name, f"{name} = 1\n1", f"x = {name}\nx"):
        with pytest.raises(FormulaError, match="names starting with '_'"):
            compile_expression(source)


# --- cost: every evaluation is bounded (docs/design/formula.md, "Cost") -----------------


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("[[a]] * 3", "a list or tuple inside a list or tuple is not allowed (line 1, col 2)"),
        ("[[1] * 9999] * 9999 == [[1] * 9999] * 9999", "inside a list or tuple"),
        ("max([a, (b, c)])", "inside a list or tuple"),
        ("min([a, [b] + [c]])", "inside a list or tuple"),
        ("([a] if a else [b], c)", "inside a list or tuple"),
    ],
)
def test_formulas_refuse_nested_list_literals(source: str, fragment: str) -> None:
    with pytest.raises(FormulaError, match=re.escape(fragment)):
        compile_expression(source)
    compile_expression(source, dialect="condition")  # conditions may compare nested data


def test_formulas_keep_flat_lists_and_tuples() -> None:
    env = {"a": 0.25, "b": 0.5, "c": 1.0}
    assert compile_expression("[max([a, b]), c] == [b, c]").evaluate(env) is True
    assert compile_expression("(a, b) < (a, c)").evaluate(env) is True


@pytest.mark.parametrize(
    ("source", "env", "expected"),
    [
        ("x < y", {"x": [1, 2], "y": [1, 3]}, True),
        ("x == y", {"x": {"k": [1, "a"]}, "y": {"k": [1, "a"]}}, True),
        ("x in y", {"x": "b", "y": ["a", "b"]}, True),
        ("x in y", {"x": [1], "y": [[0], [1]]}, True),
        ("x not in y", {"x": "zz", "y": "abc"}, True),
        ("x in y", {"x": "k", "y": {"k": 1}}, True),
        ("max(x) + min(x)", {"x": "abc"}, "ca"),
        ("max(x, y)", {"x": [1, 2], "y": [1, 3]}, [1, 3]),
        ("sum(x) + mean(x)", {"x": [1, 2, 3]}, 8.0),
        ("y[x]", {"x": "k", "y": {"k": 7}}, 7),
        ("y.get(x, 0) + y.get(x)", {"x": "k", "y": {"k": 7}}, 14),
    ],
)
def test_metered_operations_compute_what_python_computes(
    source: str, env: dict[str, object], expected: object
) -> None:
    assert compile_expression(source, dialect="condition").evaluate(env) == expected


def test_metered_operations_share_the_budget() -> None:
    env = {"a": 0.5}
    alone = compile_expression("x = [a] * 9999\nmax(x)")
    assert alone.evaluate(env) == 0.5  # one metered operation: the whole budget
    many = compile_expression("x = [a] * 9999\n" + " + ".join(["max(x)"] * 6))
    with pytest.raises(OverflowError, match=r"max\(\) over values this large would exceed"):
        many.evaluate(env)  # six share it: 8,333 steps each, and x weighs 10,001


@pytest.mark.parametrize(
    ("source", "env", "fragment"),
    [
        ("x = [a] * 9999\ny = [x] * 9999\ny == [x] * 9999", {"a": 1}, "'==' on values"),
        ("x = [a] * 9999\ny = [x] * 9999\nx in y", {"a": 1}, "'in' on values"),
        ("x = [a] * 9999\ny = [x] * 9999\nsum(y)", {"a": 1}, "sum() over values"),
        ("s in t", {"s": "ab", "t": "a" * 1_000_000}, "'in' on values"),
        ("max(t)", {"t": "a" * 100_000}, "max() over values"),
        ("t = (s,) * 9999\ny.get(t)", {"s": "a" * 10_000, "y": {}}, "a key this large"),
        ("t = (s,) * 9999\ny[t]", {"s": "a" * 10_000, "y": {}}, "a key this large"),
    ],
)
def test_work_beyond_the_budget_is_refused_before_it_starts(
    source: str, env: dict[str, object], fragment: str
) -> None:
    compiled = compile_expression(source, dialect="condition")
    with pytest.raises(OverflowError, match=re.escape(fragment)):
        compiled.evaluate(env)


@pytest.mark.parametrize(
    ("source", "env"),
    [
        ("a * b", {"a": 10**400, "b": 10**400}),
        ("a // 3", {"a": 1 << 1101}),
        ("a % 3", {"a": -(1 << 1101)}),
        ("round(a, -5)", {"a": 1 << 1101}),
        ("s + s", {"s": "a" * 6000}),
    ],
)
def test_big_operands_are_refused_before_the_work(source: str, env: dict[str, object]) -> None:
    with pytest.raises(OverflowError):
        compile_expression(source, dialect="condition").evaluate(env)


def test_big_integers_still_work_where_the_work_is_linear() -> None:
    env = {"a": 1 << 1101, "b": 10**300}
    assert compile_expression("a * 0 + (a - a) + (a > b) + (round(a) == a)").evaluate(env) == 2
    assert compile_expression("(b // 7) % 5").evaluate(env) == (10**300 // 7) % 5


def test_a_missing_key_is_named_briefly() -> None:
    compiled = compile_expression("y[x]", dialect="condition")
    with pytest.raises(KeyError, match=r"'aaaa.*…'"):
        compiled.evaluate({"x": "a" * 100_000, "y": {}})
    with pytest.raises(KeyError, match="<a tuple key>"):
        compiled.evaluate({"x": (1,) * 9999, "y": {}})
    with pytest.raises(KeyError, match="'k'"):
        compiled.evaluate({"x": "k", "y": {}})
