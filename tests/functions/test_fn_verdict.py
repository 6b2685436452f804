"""The verdict protocol: test code split between the jail and the grader, and judged here."""

from __future__ import annotations

import ast
import json
import math
from typing import Any

import pytest

from rewardkit.functions.builtin import local_code_execution_reward
from rewardkit.functions.builtin.code._verdict import (
    decode,
    judge_call,
    judge_checks,
    rewrite_tests,
)


def test_literals_stay_in_the_grader() -> None:
    tests, checks = rewrite_tests(
        "assert add(2, 3) == 987654321\nexpected = [7, 8]\nassert f() == expected"
    )
    assert "987654321" not in tests
    assert "[7, 8]" in tests  # the assignment still runs there; the check uses the grader's copy
    assert [c.shape for c in checks] == [
        ("cmp", (ast.Eq,), (("leaf", 0), ("lit", 987654321))),
        ("cmp", (ast.Eq,), (("leaf", 0), ("lit", [7, 8]))),
    ]
    assert all(c.top_level for c in checks)


def test_a_name_bound_twice_is_not_a_literal() -> None:
    _, checks = rewrite_tests("x = 1\nx = 2\nassert f() == x")
    assert checks[0].shape[2][1] == ("leaf", 1)


def test_nested_assertions_are_not_top_level() -> None:
    _, checks = rewrite_tests(
        "for a in [1, 2]:\n    assert f(a) > 0\ndef t():\n    assert g()\nt()\nassert h()"
    )
    assert [c.top_level for c in checks] == [False, False, True]


def _report(*records: dict[str, Any]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def _v(value: Any) -> list[Any]:
    return ["v", {"i": str(value)}] if type(value) is int else ["v", value]


def test_judging_a_report() -> None:
    _, checks = rewrite_tests("assert f(1) == 2\nassert not g() or h() in 'abc'")
    good = _report(
        {"k": 0, "leaves": [_v(2)]}, {"k": 1, "leaves": [_v(True), _v("b")]}, {"done": True}
    )
    assert judge_checks(good, checks).passed
    wrong = _report(
        {"k": 0, "leaves": [_v(3)]}, {"k": 1, "leaves": [_v(True), _v("b")]}, {"done": True}
    )
    assert judge_checks(wrong, checks).reason == "failed: `assert f(1) == 2`"
    unfinished = _report({"k": 0, "leaves": [_v(2)]}, {"k": 1, "leaves": [_v(False), _v("x")]})
    assert "did not run to their end" in judge_checks(unfinished, checks).reason
    skipped = _report({"k": 0, "leaves": [_v(2)]}, {"done": True})
    assert "was not checked exactly once" in judge_checks(skipped, checks).reason
    twice = _report(
        *[{"k": 0, "leaves": [_v(2)]}] * 2, {"k": 1, "leaves": [_v(False), _v("")]}, {"done": True}
    )
    assert "exactly once" in judge_checks(twice, checks).reason


@pytest.mark.parametrize(
    "report",
    [
        "not json\n",
        "[1, 2]\n",
        '{"k": 99, "leaves": []}\n',
        '{"k": true, "leaves": []}\n',
        '{"k": 0, "leaves": "x"}\n{"done": true}\n',
        '{"k": 0, "leaves": [["v", {"q": 1}]]}\n{"done": true}\n',
        '{"k": 0, "leaves": [["v", {"i": "12abc"}]]}\n{"done": true}\n',
        '{"k": 0, "leaves": [["v", {"d": [[{"l": []}, 1]]}]]}\n{"done": true}\n',
        '{"k": 0, "leaves": [["x", "a Five, not a plain value"]]}\n{"done": true}\n',
        '{"k": 0, "leaves": [["e", "ZeroDivisionError: division by zero"]]}\n{"done": true}\n',
        "[" * 100_000 + "\n",
        '{"k": 0, "leaves": [["v", ' + '{"l": [' * 500 + "]}" * 500 + "]]}\n",
        '{"crash": "the solution failed"}\n',
    ],
)
def test_a_bad_report_fails_and_never_raises(report: str) -> None:
    _, checks = rewrite_tests("assert f() == 1")
    assert not judge_checks(report, checks).passed


def test_values_are_rebuilt_with_their_types() -> None:
    assert decode({"t": [{"i": "1"}, {"f": "2.5"}, {"s": ["a"]}, {"b": "ff"}]}) == (
        1,
        2.5,
        {"a"},
        b"\xff",
    )
    assert decode({"d": [[{"t": [{"i": "1"}]}, {"z": []}]]}) == {(1,): frozenset()}
    assert decode({"c": ["1.0", "-2.0"]}) == complex(1, -2)
    assert decode({"i": "9" * 5000}) == 10**5000 - 1  # past Python's 4,300-digit guard
    assert math.isnan(decode({"f": "nan"}))


def test_comparisons_between_mismatched_values_fail_with_a_reason() -> None:
    _, checks = rewrite_tests("assert f() < 3")
    verdict = judge_checks(_report({"k": 0, "leaves": [_v("a")]}, {"done": True}), checks)
    assert not verdict.passed
    assert "'<' not supported" in verdict.reason


def test_judge_call() -> None:
    assert judge_call(_report({"value": {"l": [{"i": "1"}]}})).value == [1]
    assert not judge_call("").passed
    assert not judge_call(_report({"value": 1}, {"value": 2})).passed
    assert "plain value" in judge_call(_report({"value": {"?": 1}})).reason


def _code(source: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": f"```python\n{source}\n```"}]


HONEST_TESTS = """
import math
assert add(2, 3) == 5, "two and three"
assert add(0.1, 0.2) != 0.3
assert abs(add(0.1, 0.2) - 0.3) < 1e-9
assert add(-1, 1) is not None and add(1, 1) in (2, 3)
assert not add(0, 0)
assert [add(i, i) for i in range(3)] == [0, 2, 4]
assert isinstance(add(1, 2), int)
def check(a, b):
    assert add(a, b) == a + b
for pair in [(1, 2), (5, 8)]:
    check(*pair)
assert math.isclose(add(1.5, 1.5), 3.0)
assert add("a", "b") == "ab"
assert 0 < add(1, 1) <= 2 < 3
"""


def test_honest_solutions_pass_every_form_of_assertion() -> None:
    result = local_code_execution_reward(
        _code("def add(a, b):\n    return a + b"), test_code=HONEST_TESTS
    )
    assert result.score == 1.0, result.reason


def test_a_wrong_solution_fails_on_its_first_wrong_assertion() -> None:
    result = local_code_execution_reward(
        _code("def add(a, b):\n    return a - b"), test_code=HONEST_TESTS
    )
    assert result.score == 0.0
    assert result.metrics["tests"].reason == 'failed: `assert add(2, 3) == 5, "two and three"`'


def test_test_code_that_does_not_parse_is_an_error_result() -> None:
    result = local_code_execution_reward(_code("x = 1"), test_code="assert (")
    assert result.score == 0.0
    assert "test_code does not parse" in (result.reason or "")
