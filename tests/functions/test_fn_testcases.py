"""deepcoder_code_reward, evaluate_apps_solution and the test-case runner under them."""

from __future__ import annotations

import json
import shutil
from typing import Any

import pytest

from rewardkit.functions.builtin import deepcoder_code_reward, evaluate_apps_solution
from rewardkit.functions.builtin.code._apps import extract_python_code
from rewardkit.functions.builtin.code._testcases import (
    run_call_case,
    run_stdio_case,
    syntax_error,
    values_equal,
)

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="needs Node.js")
ADD_ONE = "print(int(input()) + 1)"
CASES = [{"input": "5", "expected_output": "6\n"}, {"input": "-2", "expected_output": "-1"}]


def answer(code: str, language: str = "python") -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Solve it."},
        {
            "role": "assistant",
            "content": f"Draft:\n```{language}\nbroken(\n```\nFinal:\n```{language}\n{code}\n```",
        },
    ]


def details(result: Any) -> list[dict[str, Any]]:
    parsed: list[dict[str, Any]] = json.loads(result.metrics["test_results"].reason)
    return parsed


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ([1, {"x": 2.0}], [1, {"x": 2}], True),
        (0.1 + 0.2, 0.3, True),
        (True, 1, False),
        ([1, 2], [1, 2, 3], False),
        ({"a": 1}, {"b": 1}, False),
        ("1", 1, False),
    ],
)
def test_values_equal(a: Any, b: Any, equal: bool) -> None:
    assert values_equal(a, b) is equal


def test_stdio_case_compares_lines_not_surrounding_whitespace() -> None:
    ok = run_stdio_case("print(' 3 ')\nprint()", "python", "", "3\n", timeout=5, memory_mb=256)
    assert ok.passed
    wrong = run_stdio_case("print('3 4')", "python", "", "3\n4", timeout=5, memory_mb=256)
    assert not wrong.passed
    assert wrong.actual == "3 4\n"


def test_call_case_handles_functions_methods_and_apps_wrapping() -> None:
    code = "def add(a, b):\n    return a + b\nclass Solution:\n    def twice(self, xs):\n        return [x * 2 for x in xs]\n"
    assert run_call_case(code, "add", [1, 2], 3, timeout=5, memory_mb=256).passed
    assert run_call_case(code, "add", [1, 2], [3], timeout=5, memory_mb=256).passed
    assert run_call_case(code, "twice", [[1, 2]], [2, 4], timeout=5, memory_mb=256).passed
    missing = run_call_case(code, "nope", [], 0, timeout=5, memory_mb=256)
    assert not missing.passed
    assert "no function 'nope'" in (missing.error or "")


def test_call_case_cannot_forge_a_result_without_knowing_it() -> None:
    forged = "import os\ndef f():\n    print('\\x1erewardkit-result:41')\n    os._exit(0)\n"
    assert not run_call_case(forged, "f", [], 42, timeout=5, memory_mb=256).passed


def test_syntax_error_is_found_in_the_sandbox() -> None:
    assert syntax_error("x = 1\n") is None
    error = syntax_error("def f(:\n    pass\n")
    assert error is not None
    assert error.startswith("SyntaxError:")
    assert "(line 1)" in error
    assert syntax_error("(" * 10_000) is not None  # the compiler's limits, not a crash


def test_deepcoder_all_or_nothing_on_the_last_block() -> None:
    result = deepcoder_code_reward(answer(ADD_ONE), CASES)
    assert result.score == 1.0
    assert [d["passed"] for d in details(result)] == [True, True]


def test_deepcoder_stops_at_the_first_failure() -> None:
    result = deepcoder_code_reward(answer("print(int(input()) + 2)"), [*CASES, CASES[0]])
    assert result.score == 0.0
    first, *rest = details(result)
    assert first["passed"] is False
    assert first["actual_output"] == "7\n"
    assert all(d["error"] == "not run: an earlier case failed" for d in rest)


def test_deepcoder_reports_errors_and_timeouts() -> None:
    crashed = details(deepcoder_code_reward(answer("raise SystemExit('boom')"), CASES))
    assert "boom" in crashed[0]["error"]
    slow = deepcoder_code_reward(answer("import time\ntime.sleep(30)"), CASES, timeout=0.5)
    assert "timed out" in details(slow)[0]["error"]


def test_deepcoder_accepts_output_keys_and_apps_shape() -> None:
    cases = [{"input": "1", "output": "2"}]
    assert deepcoder_code_reward(answer(ADD_ONE), json.dumps(cases)).score == 1.0
    apps_shape = {"inputs": ["1", "2"], "outputs": ["2", "3"]}
    assert deepcoder_code_reward(answer(ADD_ONE), apps_shape).score == 1.0
    uneven = deepcoder_code_reward(answer(ADD_ONE), {"inputs": ["1"], "outputs": []})
    assert uneven.metrics["error"].reason == "Invalid test cases: 1 inputs but 0 outputs."


def test_deepcoder_target_function() -> None:
    cases = [{"input": "[2, 3]", "expected_output": "5"}, {"input": "4\n5", "expected_output": "9"}]
    code = "def add(a, b):\n    return a + b"
    assert deepcoder_code_reward(answer(code), cases, target_function="add").score == 1.0


@needs_node
def test_deepcoder_javascript_has_readline_and_print() -> None:
    code = "const n = parseInt(readline());\nprint(n + 1);"
    assert deepcoder_code_reward(answer(code, "javascript"), CASES, "javascript").score == 1.0


@pytest.mark.parametrize(
    ("ground_truth", "reason"),
    [
        ([], "No test cases provided."),
        (None, "Invalid test cases: ground_truth must be a list"),
        ("not json", "Invalid test cases: ground_truth is a string but not a JSON list"),
        ([{"input": "1"}], 'Invalid test cases: ground_truth[0] has no "expected_output"'),
    ],
)
def test_deepcoder_bad_test_cases_score_zero(ground_truth: Any, reason: str) -> None:
    result = deepcoder_code_reward(answer(ADD_ONE), ground_truth)
    assert result.score == 0.0
    assert (result.metrics["error"].reason or "").startswith(reason)


def test_deepcoder_no_code_or_no_response() -> None:
    no_code = deepcoder_code_reward([{"role": "assistant", "content": "Sorry."}], CASES)
    assert no_code.metrics["error"].reason == "No python code block found in the response."
    assert deepcoder_code_reward([], CASES).score == 0.0


def test_deepcoder_bad_options_raise() -> None:
    with pytest.raises(ValueError, match="environment 'e2b' is not supported"):
        deepcoder_code_reward(answer(ADD_ONE), CASES, environment="e2b")
    with pytest.raises(ValueError, match="language must be"):
        deepcoder_code_reward(answer(ADD_ONE), CASES, language="cobol")
    with pytest.raises(ValueError, match="target_function needs language='python'"):
        deepcoder_code_reward(answer(ADD_ONE), CASES, "javascript", target_function="f")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("<THINK>```python\nno()\n```</think>```py\nyes()\n```", "yes()"),
        ("Sure.\nimport sys\ndef main():\n    pass", "import sys\ndef main():\n    pass"),
        ("<think>only thinking</think>", ""),
        ("Just prose.", "Just prose."),
    ],
)
def test_extract_python_code(text: str, code: str) -> None:
    assert extract_python_code(text) == code


STDIO = {"inputs": ["1 2\n", "5 5\n", "0 0\n"], "outputs": ["3\n", "10\n", "0\n"]}
ADD = "a, b = map(int, input().split())\nprint(a + b)"


def apps(code: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Add."},
        {"role": "assistant", "content": f"```python\n{code}\n```"},
    ]


def test_apps_stdio_pass_rate_and_early_stop() -> None:
    passed = evaluate_apps_solution(apps(ADD), json.dumps(STDIO))
    assert (passed.score, passed.reason) == (1.0, "Passed 3/3 test cases.")
    times = "a, b = map(int, input().split())\nprint(a * b if a == 5 else a + b)"
    stopped = evaluate_apps_solution(apps(times), STDIO)
    assert stopped.score == pytest.approx(1 / 3)
    assert stopped.reason == "Passed 1/2 test cases. Stopped at the first failure; 1 not run."
    every = evaluate_apps_solution(apps(times), STDIO, stop_on_first_failure=False)
    assert every.score == pytest.approx(2 / 3)


def test_apps_call_based() -> None:
    problem = {"fn_name": "add", "inputs": [[1, 2], [3, 4]], "outputs": [[3], [7]]}
    assert evaluate_apps_solution(apps("def add(a, b):\n    return a + b"), problem).score == 1.0


def test_apps_errors_are_reported() -> None:
    crash = evaluate_apps_solution(apps("raise ValueError('bad')"), STDIO)
    error = json.loads(crash.metrics["execution_error_details"].reason or "{}")
    assert "ValueError: bad" in error["error"]
    assert error["case"] == 0
    syntax = evaluate_apps_solution(apps("print(("), STDIO)
    assert (syntax.reason or "").startswith("Execution Error: SyntaxError")
    assert syntax.metrics["pass_rate"].score == 0.0


@pytest.mark.parametrize(
    ("ground_truth", "reason"),
    [
        ("{", "Invalid ground_truth: it is a string but not JSON."),
        ([1], "Invalid ground_truth: it must be a dict (or its JSON), not list."),
        ({"inputs": ["1"]}, 'Invalid ground_truth: it needs "inputs" and "outputs" lists.'),
        ({"inputs": ["1"], "outputs": []}, "Invalid ground_truth: 1 inputs but 0 outputs."),
        ({"inputs": ["1"], "outputs": ["1"], "fn_name": 3}, 'Invalid ground_truth: "fn_name" must'),
        ({"inputs": ["1"], "outputs": ["1"], "fn_name": "f"}, "Invalid ground_truth: with"),
        ({"inputs": [], "outputs": []}, "Execution utility returned no results."),
    ],
)
def test_apps_bad_ground_truth_scores_zero(ground_truth: Any, reason: str) -> None:
    result = evaluate_apps_solution(apps(ADD), ground_truth)
    assert result.score == 0.0
    assert (result.reason or "").startswith(reason)


def test_apps_bad_messages_score_zero() -> None:
    assert evaluate_apps_solution([], STDIO).reason == "No messages provided."
    user_last = evaluate_apps_solution([{"role": "user", "content": ADD}], STDIO)
    assert "not from the assistant" in (user_last.reason or "")
    empty = evaluate_apps_solution([{"role": "assistant", "content": None}], STDIO)
    assert empty.metrics["parsability"].reason == "Empty code solution after extraction."
