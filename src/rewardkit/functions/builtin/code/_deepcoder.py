"""`deepcoder_code_reward`: 1.0 if the response's code passes every test case, else 0.0.

The all-or-nothing reward of DeepCoder-style RL: the last fenced code block (the final
answer, after any drafts) runs once per test case in a fresh cell of the jail (see
`_testcases` and `docs/security.md` for what is limited), and checking stops at the first
failure, which already decides the score.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import (
    NoResponse,
    no_response,
    response_text,
    zero_result,
)
from rewardkit.functions.builtin.code._code import extract_code_blocks
from rewardkit.functions.builtin.code._testcases import (
    CaseResult,
    check_language,
    run_call_case,
    run_stdio_case,
)
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["deepcoder_code_reward"]


class _BadCases(ValueError):
    pass


def _cases(ground_truth: object) -> list[tuple[str, str]]:
    """`(input, expected output)` pairs from the test-case list (or its JSON)."""
    if isinstance(ground_truth, str):
        try:
            ground_truth = json.loads(ground_truth)
        except ValueError:
            raise _BadCases("ground_truth is a string but not a JSON list of test cases") from None
    if isinstance(ground_truth, Mapping) and {"inputs", "outputs"} <= set(ground_truth):
        inputs, outputs = ground_truth["inputs"], ground_truth["outputs"]
        if not isinstance(inputs, list) or not isinstance(outputs, list):
            raise _BadCases('"inputs" and "outputs" must be lists')
        if len(inputs) != len(outputs):
            raise _BadCases(f"{len(inputs)} inputs but {len(outputs)} outputs")
        ground_truth = [{"input": i, "output": o} for i, o in zip(inputs, outputs, strict=True)]
    if not isinstance(ground_truth, Sequence) or isinstance(ground_truth, str):
        raise _BadCases(
            'ground_truth must be a list of test cases {"input": ..., "expected_output": ...} '
            f"(got {type(ground_truth).__name__})"
        )
    cases = []
    for i, case in enumerate(ground_truth):
        expected = (
            case.get("expected_output", case.get("output")) if isinstance(case, Mapping) else None
        )
        if expected is None:
            raise _BadCases(f'ground_truth[{i}] has no "expected_output": {case!r:.80}')
        cases.append((_text(case.get("input", "")), _text(expected)))
    return cases


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _json_values(text: str) -> list[Any]:
    """Call arguments: a JSON array, else one JSON value per line."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    else:
        if isinstance(value, list):
            return value
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError:
        raise _BadCases(f"test input {text!r:.80} is not JSON arguments") from None


def _expected_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _run_case(
    code: str,
    language: str,
    target_function: str | None,
    case: tuple[str, str],
    timeout: float,
    memory_mb: int,
) -> CaseResult:
    stdin, expected = case
    if target_function is None:
        return run_stdio_case(code, language, stdin, expected, timeout=timeout, memory_mb=memory_mb)
    return run_call_case(
        code,
        target_function,
        _json_values(stdin),
        _expected_value(expected),
        timeout=timeout,
        memory_mb=memory_mb,
    )


@reward_function
def deepcoder_code_reward(
    messages: list[Message],
    ground_truth: Any = None,
    language: str = "python",
    timeout: float = 10,
    environment: str = "local",
    api_key: str | None = None,
    target_function: str | None = None,
    *,
    max_memory_mb: int = 256,
    **kwargs: Any,
) -> EvaluateResult:
    """1.0 if the response's last code block passes all test cases, else 0.0.

    A stdio test case feeds `input` to the program and expects `expected_output` on
    standard output. With `target_function` (Python only), `input` holds the call's
    arguments (a JSON array, or one JSON value per line) and `expected_output` the JSON
    of the return value. The `test_results` metric's reason is the JSON list of per-case
    results (`passed`, `error`, `actual_output`); cases after the first failure are
    marked not run.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The test cases `[{"input": ..., "expected_output": ...}]` (or
            `"output"`), APPS-style `{"inputs": [...], "outputs": [...]}`, or their JSON.
        language: `"python"` or `"javascript"`.
        timeout: Wall-clock seconds per test case.
        environment: Only `"local"` is supported (reward-kit also offered `"e2b"`).
        api_key: Unused (reward-kit's E2B key).
        target_function: Call this function instead of feeding standard input.
        max_memory_mb: Memory limit in MiB (address space for Python, heap for Node.js).
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ValueError: `environment` or `language` is not supported, or `target_function`
            is given for JavaScript.
        RuntimeError: JavaScript was asked for and `node` is not installed.

    Example:
        >>> deepcoder_code_reward(
        ...     [{"role": "assistant", "content": "```python\\nprint(int(input()) + 1)\\n```"}],
        ...     [{"input": "5", "expected_output": "6"}, {"input": "-2", "expected_output": "-1"}],
        ... ).score
        1.0
    """
    if environment != "local":
        raise ValueError(
            f"deepcoder_code_reward: environment {environment!r} is not supported; use "
            "'local' (code runs in a local subprocess under limits)"
        )
    check_language(language)
    if target_function is not None and language != "python":
        raise ValueError("deepcoder_code_reward: target_function needs language='python'")
    try:
        text = response_text(messages)
        cases = _cases(ground_truth)
    except NoResponse as problem:
        return no_response("error", problem)
    except _BadCases as problem:
        return zero_result("error", f"Invalid test cases: {problem}.")
    if not cases:
        return zero_result("error", "No test cases provided.")
    blocks = extract_code_blocks(text, language)
    if not blocks:
        return zero_result("error", f"No {language} code block found in the response.")
    details: list[dict[str, Any]] = []
    for stdin, expected in cases:
        entry: dict[str, Any] = {"input": stdin[:200], "expected_output": expected[:200]}
        if details and not details[-1]["passed"]:
            details.append({**entry, "passed": False, "error": "not run: an earlier case failed"})
            continue
        try:
            result = _run_case(
                blocks[-1], language, target_function, (stdin, expected), timeout, max_memory_mb
            )
        except _BadCases as problem:
            return zero_result("error", f"Invalid test cases: {problem}.")
        entry |= {"passed": result.passed, "actual_output": result.actual}
        details.append(entry | ({"error": result.error} if result.error else {}))
    passed = sum(d["passed"] for d in details)
    score = 1.0 if passed == len(cases) else 0.0
    reason = f"{passed}/{len(cases)} test cases passed" + (
        "" if score else "; all must pass (checking stops at the first failure)"
    )
    metric = MetricResult(
        score=passed / len(cases), reason=json.dumps(details), success=score == 1.0
    )
    return EvaluateResult(score=score, reason=reason, metrics={"test_results": metric})
