"""Code rewards: run the response's code in the jail and score what it does.

The first fenced code block in the response (in the requested language, or untagged)
runs in a fresh cell of the jail (`rewardkit.jail`; `docs/security.md` says what
it holds). Python runs as `python -I` would; JavaScript needs `node` on `PATH`. Python
`test_code` runs under the harness, and the grader decides each assertion (`_verdict`).

Over 350 lines: reward-kit's code rewards and the execution helpers it exports with them
(`execute_python_code`, `extract_code_blocks`), whose import paths users rely on.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import (
    NoResponse,
    no_response,
    response_text,
    zero_result,
)
from rewardkit.functions.builtin.code._program_io import call_arguments, compare_outputs
from rewardkit.functions.builtin.code._run import check_language, run_code, run_harness
from rewardkit.functions.builtin.code._verdict import judge_call, judge_checks, rewrite_tests
from rewardkit.types import EvaluateResult, Message, MetricResult

if TYPE_CHECKING:
    from rewardkit.jail import ExecutionResult

__all__ = [
    "code_blocks",
    "execute_javascript_code",
    "execute_python_code",
    "extract_code_blocks",
    "fractional_code_reward",
    "local_code_execution_reward",
]

_FENCE_TAG = re.compile(r"[ \t]*([\w+#.-]*)")
"""A fence's language tag, read after its opening backticks."""
_ALIASES = {"python": {"python", "py", "python3"}, "javascript": {"javascript", "js", "node"}}


def _fenced(text: str) -> list[tuple[str, str]]:
    """Every fenced block as (tag, code), in one left-to-right sweep (linear time).

    What the lazy `` ```tag...\\n(.*?)``` `` finds: a fence opens at the next ```, its
    header runs to the end of that line, and the code to the next ```. A fence with no
    header line or no closing ends the search, since no later fence can have one either.
    """
    blocks: list[tuple[str, str]] = []
    position = 0
    while (start := text.find("```", position)) >= 0:
        newline = text.find("\n", start + 3)
        end = text.find("```", newline + 1) if newline >= 0 else -1
        if end < 0:
            break
        tag = _FENCE_TAG.match(text, start + 3)
        blocks.append((tag.group(1) if tag else "", text[newline + 1 : end]))
        position = end + 3
    return blocks


def extract_code_blocks(text: str, language: str | None = None) -> list[str]:
    """The fenced code blocks of a text, optionally only those tagged as `language`.

    Untagged blocks count as any language.

    Example:
        >>> extract_code_blocks("Try:\\n```python\\nprint(1)\\n```\\n```sh\\nls\\n```", "python")
        ['print(1)\\n']
    """
    names = _ALIASES.get(language, {language}) if language else None
    return [code for tag, code in _fenced(text) if names is None or not tag or tag.lower() in names]


def code_blocks(text: str, language: str | None = None) -> list[dict[str, str]]:
    """The fenced code blocks of a text as `{"language", "code"}` (reward-kit's shape).

    An untagged block's language is `"unknown"`; with `language`, only blocks tagged as
    it (or untagged) are kept.

    Example:
        >>> code_blocks("```py\\nprint(1)\\n```")
        [{'language': 'python', 'code': 'print(1)'}]
    """
    names = _ALIASES.get(language, {language}) if language else None
    found = []
    for tag, code in _fenced(text):
        tag = tag.lower()
        if names is not None and tag and tag not in names:
            continue
        canonical = next((name for name, tags in _ALIASES.items() if tag in tags), tag)
        found.append({"language": canonical or "unknown", "code": code.strip()})
    return found


def _execute(code: str, language: str, timeout: float) -> dict[str, Any]:
    run = run_code(code, language, timeout=timeout, memory_mb=100)
    if run.ok:
        return {"success": True, "output": run.stdout.strip(), "error": None}
    if run.timed_out:
        error = f"Timeout: execution timed out after {timeout}s"
    else:
        error = run.stderr.strip()[-2000:] or run.describe()
    return {"success": False, "output": None, "error": error}


def execute_python_code(code: str, timeout: int | float = 5) -> dict[str, Any]:
    """Run Python code under the sandbox limits: `{"success", "output", "error"}`.

    `output` is the stripped standard output (None on failure); `error` the end of
    standard error, or says it timed out.

    Example:
        >>> execute_python_code("print(6 * 7)")
        {'success': True, 'output': '42', 'error': None}
    """
    return _execute(code, "python", timeout)


def execute_javascript_code(code: str, timeout: int | float = 5) -> dict[str, Any]:
    """Run JavaScript code with `node`, as `execute_python_code` runs Python.

    Raises:
        RuntimeError: `node` is not installed.
    """
    return _execute(code, "javascript", timeout)


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]


def _execution_metric(run: ExecutionResult) -> MetricResult:
    if run.ok:
        detail = f"Code executed successfully ({run.describe()})"
    else:
        error = run.stderr.strip().splitlines()[-1:] if not run.timed_out else []
        detail = f"Code execution failed with error: {error[0] if error else run.describe()}"
    if run.isolation != "namespaces":
        detail += f" (jail: {run.isolation}; see docs/security.md)"
    return MetricResult(score=1.0 if run.ok else 0.0, reason=detail, success=run.ok)


def _first_code_block(messages: list[Message], language: str) -> str | EvaluateResult:
    try:
        text = response_text(messages)
    except NoResponse as problem:
        return no_response("execution_result", problem)
    blocks = extract_code_blocks(text, language)
    if blocks:
        return blocks[0]
    reason = f"No {language} code blocks found in the response (```{language} ... ```)"
    return zero_result("error", reason)


@reward_function
def local_code_execution_reward(
    messages: list[Message],
    ground_truth: str | None = None,
    language: str = "python",
    timeout: float = 5,
    max_memory_mb: int = 100,
    *,
    test_code: str | None = None,
    max_output_bytes: int = 1_000_000,
    **kwargs: Any,
) -> EvaluateResult:
    """Run the response's first code block; score its output, or its tests.

    With `ground_truth` (the expected standard output) the score is
    `compare_outputs(stdout, ground_truth)` when the program exits 0, else 0. Without
    it, the score is 1.0 if the program exits 0. `test_code` is appended to the program
    (e.g. `assert add(2, 3) == 5`), so the tests decide its exit status.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The expected standard output, if any.
        language: `"python"` or `"javascript"`.
        timeout: Wall-clock seconds before the program is killed.
        max_memory_mb: Memory limit in MiB (address space for Python, heap for Node.js).
        test_code: Code appended to the program, e.g. assertions.
        max_output_bytes: Output allowed before the program is killed.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ValueError: `language` is not supported.
        RuntimeError: the language's runtime (`node`) is not installed.

    Example:
        >>> local_code_execution_reward(
        ...     [{"role": "assistant", "content": "```python\\nprint(sum([1, 2, 3]))\\n```"}],
        ...     ground_truth="6",
        ... ).score
        1.0
    """
    check_language(language)  # before any early return
    if isinstance(ground_truth, int | float) and not isinstance(ground_truth, bool):
        ground_truth = str(ground_truth)
    elif ground_truth is not None and not isinstance(ground_truth, str):
        return zero_result(
            "error",
            "local_code_execution_reward: ground_truth must be the expected output, a string "
            f"(got {type(ground_truth).__name__}); for test cases use fractional_code_reward",
        )
    code = _first_code_block(messages, language)
    if isinstance(code, EvaluateResult):
        return code
    limits: dict[str, Any] = {"timeout": timeout, "memory_mb": max_memory_mb,
                              "max_output_bytes": max_output_bytes}  # fmt: skip
    if test_code and language == "python":
        return _tested(code, test_code, ground_truth, limits)
    if test_code:  # JavaScript: appended, and the exit status decides (docs/security.md)
        code = f"{code.rstrip()}\n\n{test_code}\n"
    run = run_code(code, language, **limits)
    return _scored(run, ground_truth, {"execution_result": _execution_metric(run)})


def _scored(
    run: ExecutionResult, ground_truth: str | None, metrics: dict[str, MetricResult]
) -> EvaluateResult:
    if not run.ok:
        return EvaluateResult(score=0.0, reason=f"Program {run.describe()}", metrics=metrics)
    if ground_truth is None:
        return EvaluateResult(score=1.0, reason=f"Program {run.describe()}", metrics=metrics)
    score = compare_outputs(run.stdout, ground_truth)
    reason = (
        f"Output similarity: {score:.2f} (expected {ground_truth.strip()!r:.100}, "
        f"got {run.stdout.strip()!r:.100})"
    )
    metrics["output_match"] = MetricResult(score=score, reason=reason, success=score == 1.0)
    return EvaluateResult(score=score, reason=reason, metrics=metrics)


def _tested(
    code: str, test_code: str, ground_truth: str | None, limits: dict[str, Any]
) -> EvaluateResult:
    """Python with `test_code`: the harness runs the tests, the grader decides them."""
    try:
        tests, checks = rewrite_tests(test_code)
    except SyntaxError as exc:
        return zero_result("error", f"local_code_execution_reward: test_code does not parse: {exc}")
    case = {"mode": "asserts", "tests": tests, "module_name": "__main__"}
    run = run_harness(code, case, **limits)
    verdict = judge_checks(run.report, checks)
    tests_metric = MetricResult(score=float(verdict.passed), reason=verdict.reason,
                                success=verdict.passed)  # fmt: skip
    metrics = {"execution_result": _execution_metric(run), "tests": tests_metric}
    if run.timed_out or run.output_truncated or not verdict.passed:
        why = run.describe() if run.timed_out or run.output_truncated else verdict.reason
        return EvaluateResult(score=0.0, reason=f"Tests failed: {why}", metrics=metrics)
    return _scored(run, ground_truth, metrics)


def _test_cases(ground_truth: object) -> list[tuple[str, str]]:
    if not isinstance(ground_truth, Sequence) or isinstance(ground_truth, str) or not ground_truth:
        raise TypeError(
            "fractional_code_reward: ground_truth must be the expected output (a string) or "
            'a non-empty list of test cases {"input": ..., "expected_output": ...} '
            f"(got {type(ground_truth).__name__})"
        )
    cases = []
    for i, case in enumerate(ground_truth):
        if not isinstance(case, Mapping) or "expected_output" not in case:
            raise TypeError(
                f"fractional_code_reward: ground_truth[{i}] must be a dict with "
                f'"expected_output" (and optionally "input"); got {case!r:.80}'
            )
        cases.append((str(case.get("input") or ""), str(case["expected_output"])))
    return cases


@reward_function
def fractional_code_reward(
    messages: list[Message],
    ground_truth: Any = None,
    language: str = "python",
    timeout: float = 30,
    environment: str = "local",
    api_key: str | None = None,
    *,
    function_to_call: str | None = None,
    max_memory_mb: int = 100,
    max_output_bytes: int = 1_000_000,
    **kwargs: Any,
) -> EvaluateResult:
    """The share of test cases the response's code passes.

    Each test case runs the program afresh with `input` on standard input and passes if
    it exits 0 and prints `expected_output` (trailing whitespace aside). With
    `function_to_call`, `input` is instead the call's arguments (see `call_arguments`)
    and the `repr` of the function's return value must equal `expected_output`. A string
    `ground_truth` is one expected output, scored as in `local_code_execution_reward`.
    The `test_results` metric's reason is a JSON list of the runs.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The expected output, or test cases
            `[{"input": "...", "expected_output": "..."}]`.
        language: `"python"` or `"javascript"`.
        timeout: Wall-clock seconds per test case.
        environment: Only `"local"` is supported (reward-kit also offered `"e2b"`).
        api_key: Unused (reward-kit's E2B key).
        function_to_call: A Python function of the response to call with each input.
        max_memory_mb: Memory limit in MiB (address space for Python, heap for Node.js).
        max_output_bytes: Output allowed per run before the program is killed.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ValueError: `environment` or `language` is not supported, or `function_to_call`
            is used with another language than Python.

    Example:
        >>> fractional_code_reward(
        ...     [{"role": "assistant", "content": "```python\\nprint(int(input()) * 2)\\n```"}],
        ...     ground_truth=[{"input": "2", "expected_output": "4"},
        ...                   {"input": "5", "expected_output": "11"}],
        ... ).score
        0.5
    """
    if environment != "local":
        raise ValueError(
            f"fractional_code_reward: environment {environment!r} is not supported; use "
            "'local' (code runs in a local subprocess under limits)"
        )
    if function_to_call is not None and language != "python":
        raise ValueError("fractional_code_reward: function_to_call needs language='python'")
    if isinstance(ground_truth, str) and function_to_call is None:
        return local_code_execution_reward(
            messages, ground_truth, language, timeout, max_memory_mb,
            max_output_bytes=max_output_bytes,
        )  # fmt: skip
    try:
        cases = _test_cases(ground_truth)
    except TypeError as exc:
        return zero_result("error", str(exc))
    check_language(language)
    code = _first_code_block(messages, language)
    if isinstance(code, EvaluateResult):
        return code
    limits = {"timeout": timeout, "memory_mb": max_memory_mb, "max_output_bytes": max_output_bytes}
    runs = [
        _run_case(code, language, given, expected, function_to_call, limits)
        for given, expected in cases
    ]
    metrics = {
        f"test_{i}": MetricResult(score=float(ok), reason=details, success=ok)
        for i, (ok, details, _) in enumerate(runs)
    }
    results = [
        {"input": given, "expected_output": expected, "actual_output": output,
         "passed": ok, "details": details}
        for (given, expected), (ok, details, output) in zip(cases, runs, strict=True)
    ]  # fmt: skip
    passed = sum(ok for ok, _, _ in runs)
    score = passed / len(cases)
    reason = f"{passed}/{len(cases)} tests passed"
    everything = passed == len(cases)
    metrics["pass_rate"] = MetricResult(score=score, reason=reason, success=everything)
    metrics["test_results"] = MetricResult(
        score=score, reason=json.dumps(results), success=everything
    )
    return EvaluateResult(score=score, reason=reason, metrics=metrics)


def _run_case(
    code: str,
    language: str,
    given: str,
    expected: str,
    function: str | None,
    limits: dict[str, Any],
) -> tuple[bool, str, str]:
    """Run one test case: (passed, what happened, the output compared)."""
    if function is not None:  # the input is the call's arguments; the result's repr is compared
        return _call_case(code, function, call_arguments(given), expected, limits)
    run = run_code(code, language, stdin=given, **limits)
    ok = run.ok and _lines(run.stdout) == _lines(expected)
    if ok:
        return True, "passed", run.stdout.strip()
    if not run.ok:
        return False, run.describe(), run.stdout.strip()
    return False, f"printed {run.stdout.strip()!r:.100}, expected {expected.strip()!r:.100}", ""


def _call_case(
    code: str, function: str, args: list[Any], expected: str, limits: dict[str, Any]
) -> tuple[bool, str, str]:
    if not function.isidentifier():
        raise ValueError(f"function_to_call must be a Python identifier (got {function!r})")
    case = {"mode": "call", "function": function, "args": args, "module_name": "__main__"}
    run = run_harness(code, case, **limits)
    if run.timed_out or run.output_truncated:
        return False, run.describe(), ""
    verdict = judge_call(run.report)
    if not verdict.passed:
        return False, verdict.reason, ""
    output = repr(verdict.value)
    if _lines(output) == _lines(expected):
        return True, "passed", output
    return False, f"returned {output!r:.100}, expected {expected.strip()!r:.100}", output
