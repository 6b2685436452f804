"""local_code_execution_reward, fractional_code_reward and the jail under them."""

from __future__ import annotations

import json
import shutil
import socket
import time
from typing import Any

import pytest
from tests.hostile._measure import running

from rewardkit.functions.builtin import fractional_code_reward, local_code_execution_reward
from rewardkit.functions.builtin.code._code import (
    _execution_metric,
    code_blocks,
    extract_code_blocks,
)
from rewardkit.functions.helpers import call_arguments, compare_outputs, execute_python_code
from rewardkit.jail import ExecutionResult, run_python


def code(source: str, language: str = "python") -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Write a program."},
        {"role": "assistant", "content": f"Here:\n```{language}\n{source}\n```\nDone."},
    ]


def python(source: str, **kwargs: Any) -> Any:
    return run_python("main.py", files={"main.py": source}, **kwargs)


def test_expected_output() -> None:
    result = local_code_execution_reward(code("print(sum(range(4)))"), "6\n")
    assert result.score == 1.0
    assert result.metrics["execution_result"].success is True
    assert result.metrics["output_match"].success is True


def test_compare_outputs_gives_partial_credit_for_near_misses() -> None:
    assert compare_outputs("a  \nb\n\n", "a\nb") == 1.0
    assert compare_outputs("  Hello,   world! ", "Hello, world!") == 1.0
    assert compare_outputs("3.14159265", "3.141592651") == 1.0
    assert compare_outputs("1\n2\n3\n4", "1\n2\n0\n4") == 0.75
    assert compare_outputs("7", "8") == pytest.approx(0.875)  # 1 - |7 - 8| / 8
    assert compare_outputs("-5", "5") == 0.0
    assert compare_outputs("[1, 2, 3, 4]", "[1, 2, 3]") == 0.75
    assert compare_outputs("1. Item", "1 Item") == pytest.approx(2 * 6 / 13)
    assert local_code_execution_reward(code("print(1); print(3)"), "1\n2").score == 0.5


def test_success_without_expected_output_and_failures() -> None:
    assert local_code_execution_reward(code("x = 1")).score == 1.0
    failed = local_code_execution_reward(code("raise SystemExit('boom')"), "anything")
    assert failed.score == 0.0
    assert "exited 1: boom" in (failed.reason or "")
    crashed = local_code_execution_reward(code("1/0"))
    assert "ZeroDivisionError" in (crashed.reason or "")


def test_test_code_is_appended() -> None:
    solution = code("def add(a, b):\n    return a + b")
    assert local_code_execution_reward(solution, test_code="assert add(2, 3) == 5").score == 1.0
    assert local_code_execution_reward(solution, test_code="assert add(2, 3) == 6").score == 0.0


def test_no_code_block_or_no_response() -> None:
    result = local_code_execution_reward([{"role": "assistant", "content": "print(1)"}])
    assert result.score == 0.0
    assert "No python code block" in (result.reason or "")
    assert local_code_execution_reward([{"role": "user", "content": "x"}]).score == 0.0


def test_extract_code_blocks() -> None:
    text = "```sh\nls\n```\n```\nprint(1)\n```\n```py\nprint(2)\n```"
    assert extract_code_blocks(text, "python") == ["print(1)\n", "print(2)\n"]
    assert extract_code_blocks(text) == ["ls\n", "print(1)\n", "print(2)\n"]
    assert extract_code_blocks(text, "rust") == ["print(1)\n"]


def test_timeout_kills_the_whole_process_group() -> None:
    source = (
        "import subprocess\n"
        "child = subprocess.Popen(['sleep', '60.4242'])\n"
        "print(child.pid, flush=True)\n"
        "while True:\n    pass\n"
    )
    start = time.monotonic()
    result = python(source, timeout=2)
    assert result.timed_out
    assert result.returncode is None
    assert time.monotonic() - start < 12  # ≈2.2 s; a generous bound for a loaded machine
    assert result.stdout, f"the program printed nothing before its timeout: {result}"
    deadline = time.monotonic() + 5
    while running("60.4242"):
        if time.monotonic() > deadline:
            pytest.fail(f"grandchild {running('60.4242')} survived the timeout")
        time.sleep(0.05)
    reward = local_code_execution_reward(code("while True: pass"), timeout=0.5)
    assert reward.score == 0.0
    assert "timed out" in (reward.reason or "")


def test_background_children_do_not_hold_the_run_open() -> None:
    start = time.monotonic()
    result = python(
        "import subprocess\nsubprocess.Popen(['sleep', '30'])\nprint('done')", timeout=10
    )
    assert result.ok
    assert result.stdout == "done\n"
    assert time.monotonic() - start < 5


def test_memory_limit() -> None:
    result = local_code_execution_reward(code("x = bytearray(400 * 2**20)"), max_memory_mb=100)
    assert result.score == 0.0
    assert "MemoryError" in (result.reason or "")
    assert (
        local_code_execution_reward(code("x = bytearray(10 * 2**20)"), max_memory_mb=200).score
        == 1.0
    )


def test_output_limit() -> None:
    result = python("while True:\n    print('x' * 1000)", max_output_bytes=10_000, timeout=10)
    assert result.output_truncated
    assert not result.ok
    assert len(result.stdout) <= 10_000
    assert result.describe() == "killed: too much output"
    reward = local_code_execution_reward(
        code("while True: print('x' * 1000)"), max_output_bytes=5000
    )
    assert reward.score == 0.0


def test_no_network() -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        source = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('connected')"
        result = python(source)
    assert result.network_isolated
    assert result.returncode != 0
    assert "connected" not in result.stdout


def test_environment_is_rebuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("SECRET_TOKEN", "hunter2")
    result = python(
        "import os\nprint(os.environ.get('HTTPS_PROXY'), os.environ.get('SECRET_TOKEN'))"
    )
    assert result.stdout == "None None\n"


def test_a_run_below_the_full_jail_says_so() -> None:
    run = ExecutionResult(returncode=0, stdout="", stderr="", duration=0.1, isolation="landlock")
    assert "jail: landlock" in _execution_metric(run).reason


def test_stdin_and_describe() -> None:
    result = python("print(input()[::-1])", stdin="abc\n")
    assert result.stdout == "cba\n"
    assert result.describe().startswith("exited 0")


def test_fractional_test_cases() -> None:
    solution = code("n = int(input())\nprint(n * n if n < 3 else n)")
    cases = [
        {"input": "1", "expected_output": "1"},
        {"input": "2\n", "expected_output": "4\n"},
        {"input": "3", "expected_output": "9"},
    ]
    result = fractional_code_reward(solution, cases)
    assert result.score == pytest.approx(2 / 3)
    assert result.metrics["test_2"].success is False
    assert "printed '3', expected '9'" in result.metrics["test_2"].reason
    assert result.metrics["pass_rate"].success is False


def test_fractional_crash_and_timeout_per_case() -> None:
    solution = code("n = int(input())\nwhile n == 0:\n    pass\nprint(10 // n)")
    cases = [{"input": "0", "expected_output": "?"}, {"input": "5", "expected_output": "2"}]
    result = fractional_code_reward(solution, cases, timeout=0.5)
    assert result.score == 0.5
    assert "timed out" in result.metrics["test_0"].reason


def test_fractional_string_ground_truth_and_options() -> None:
    assert fractional_code_reward(code("print(5)"), "5").score == 1.0
    with pytest.raises(ValueError, match="environment 'e2b' is not supported"):
        fractional_code_reward(code("print(5)"), "5", environment="e2b")
    missing = fractional_code_reward(code("print(5)"), None)  # scored 0, never raised
    assert missing.score == 0.0
    assert "ground_truth must be the expected output" in missing.metrics["error"].reason
    no_output = fractional_code_reward(code("print(5)"), [{"input": "1"}])
    assert no_output.score == 0.0
    assert "ground_truth[0] must be a dict" in (no_output.reason or "")
    assert (
        fractional_code_reward(
            [{"role": "assistant", "content": "no code"}], [{"expected_output": "1"}]
        ).score
        == 0.0
    )


def test_unknown_language() -> None:
    with pytest.raises(ValueError, match="language must be one of"):
        local_code_execution_reward(code("puts 1", "ruby"), language="ruby")


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_javascript() -> None:
    result = local_code_execution_reward(
        code("console.log([1, 2].map(x => x * 2).join(' '))", "js"), "2 4", language="javascript"
    )
    assert result.score == 1.0


def test_javascript_without_node(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(RuntimeError, match=r"needs Node\.js"):
        local_code_execution_reward(code("console.log(1)", "js"), language="javascript")


# --- reward-kit 0.4.1's helpers and `function_to_call` ---------------------------------------


@pytest.mark.parametrize(
    ("text", "arguments"),
    [
        ("", []),
        ("5", [5]),
        ('"5"', [5]),
        ('"[1,2,3]"', [[1, 2, 3]]),
        ("['a', 'b']", [["a", "b"]]),
        ("1 'foo'", [1, "foo"]),
        ("True None", [True, None]),
        ('1.0 "[1, \\"a\\"]"', [1.0, [1, "a"]]),
        ("arg1 arg2", ["arg1", "arg2"]),
        ("unbalanced 'quote", ["unbalanced", "'quote"]),
    ],
)
def test_call_arguments(text: str, arguments: list[Any]) -> None:
    assert call_arguments(text) == arguments


def test_fractional_function_to_call() -> None:
    solution = code("def pair(*args):\n    print('noise')\n    return list(args)")
    cases = [
        {"input": "1 'x'", "expected_output": "[1, 'x']"},
        {"input": "[2]", "expected_output": "[2, 3]"},
    ]
    result = fractional_code_reward(solution, cases, function_to_call="pair")
    assert result.score == 0.5
    runs = json.loads(result.metrics["test_results"].reason)
    assert [r["actual_output"] for r in runs] == ["[1, 'x']", "[[2]]"]
    with pytest.raises(ValueError, match="function_to_call needs language='python'"):
        fractional_code_reward(solution, cases, language="javascript", function_to_call="pair")
    with pytest.raises(ValueError, match="must be a Python identifier"):
        fractional_code_reward(solution, cases, function_to_call="pair; import os")


def test_execute_python_code_and_code_blocks() -> None:
    assert execute_python_code("print(6 * 7)") == {"success": True, "output": "42", "error": None}
    failed = execute_python_code("print(undefined_name)")
    assert failed["success"] is False
    assert failed["output"] is None
    assert "NameError" in failed["error"]
    slow = execute_python_code("import time; time.sleep(5)", timeout=0.5)
    assert "timed out" in slow["error"]
    assert extract_code_blocks("```\nx\n```\n```js\ny\n```") == ["x\n", "y\n"]
    assert code_blocks("```\nx\n```\n```js\ny\n```") == [
        {"language": "unknown", "code": "x"},
        {"language": "javascript", "code": "y"},
    ]
    assert code_blocks("```js\ny\n```", "python") == []


def test_no_code_block_is_an_error_metric() -> None:
    result = local_code_execution_reward([{"role": "assistant", "content": "no code"}], "1")
    assert result.score == 0.0
    assert "No python code blocks found" in result.metrics["error"].reason


def test_expected_output_that_is_no_string_scores_zero_with_a_reason() -> None:
    assert local_code_execution_reward(code("print(5)"), 5).score == 1.0
    result = local_code_execution_reward(code("print(5)"), [{"input": "1"}])
    assert result.score == 0.0
    assert "use fractional_code_reward" in result.metrics["error"].reason


@pytest.mark.parametrize(
    "printed",
    ["[" * 100_000, "1," * 300_000, "x" * 2_000_000, "[[[" * 10_000 + "]" * 5],
    ids=["nested brackets", "300,000 numbers", "2 MB line", "unbalanced"],
)
def test_a_pathological_output_is_a_wrong_answer_in_bounded_time(printed: str) -> None:
    start = time.monotonic()
    assert compare_outputs(printed, "[1, 2, 3]") < 0.001  # never raises; at most a crumb
    assert time.monotonic() - start < 1
    program = f"import sys\nsys.stdout.write({printed[:50]!r} * {len(printed) // 50 or 1})"
    result = local_code_execution_reward(code(program), "[1, 2, 3]", max_output_bytes=4_000_000)
    assert result.score < 0.001
