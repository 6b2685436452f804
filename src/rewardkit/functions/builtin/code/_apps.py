"""`evaluate_apps_solution`: the share of an APPS problem's test cases the code passes.

APPS test cases are `{"inputs": [...], "outputs": [...]}` (often as a JSON string). A
problem with `fn_name` is call-based: each input is the argument list of that function
(or of that method of `class Solution`) and each output its return value. Otherwise each
input is a program's whole standard input and each output what it must print. The code
is compiled, then run once per case in a fresh sandboxed process (see `_testcases`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import content_text, field
from rewardkit.functions.builtin.code._code import extract_code_blocks
from rewardkit.functions.builtin.code._testcases import (
    CaseResult,
    run_call_case,
    run_stdio_case,
    syntax_error,
)
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["evaluate_apps_solution", "extract_python_code"]

_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_CODE_START = re.compile(r"^(?:def|class|import|from|async def|@)\b", re.MULTILINE)


def _without_think(text: str) -> str:
    """`text` less its `<think>...</think>` blocks, in one sweep (linear time).

    What removing each lazy `<think>.*?</think>` (any case) leaves: an unclosed `<think>`
    stays, and ends the sweep, since no later one can close either.
    """
    kept: list[str] = []
    position = 0
    while (opening := _THINK_OPEN.search(text, position)) is not None:
        closing = _THINK_CLOSE.search(text, opening.end())
        if closing is None:
            break
        kept.append(text[position : opening.start()])
        position = closing.end()
    kept.append(text[position:])
    return "".join(kept)


def extract_python_code(text: str) -> str:
    """The Python code of a response ("" when there is none).

    `<think>` blocks are dropped; then the last fenced block (tagged Python or untagged)
    wins; else, the text from its first line that starts code (`def`, `class`, `import`,
    `from`, a decorator); else the whole text, which then fails to compile if it is prose.

    Example:
        >>> extract_python_code("<think>easy</think>Here:\\n```python\\nprint(1)\\n```")
        'print(1)'
    """
    text = _without_think(text)
    blocks = extract_code_blocks(text, "python")
    if blocks:
        return blocks[-1].strip()
    start = _CODE_START.search(text)
    return text[start.start() if start else 0 :].strip()


class _BadGroundTruth(ValueError):
    pass


def _joined(value: object) -> str:
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "\n".join(value)
    return value if isinstance(value, str) else json.dumps(value)


def _problem(ground_truth: object) -> tuple[list[Any], list[Any], str | None]:
    """The inputs, outputs and `fn_name` of the APPS ground truth."""
    if isinstance(ground_truth, str):
        try:
            ground_truth = json.loads(ground_truth)
        except ValueError:
            raise _BadGroundTruth("it is a string but not JSON") from None
    if not isinstance(ground_truth, Mapping):
        raise _BadGroundTruth(f"it must be a dict (or its JSON), not {type(ground_truth).__name__}")
    inputs, outputs = ground_truth.get("inputs"), ground_truth.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise _BadGroundTruth('it needs "inputs" and "outputs" lists')
    if len(inputs) != len(outputs):
        raise _BadGroundTruth(f"{len(inputs)} inputs but {len(outputs)} outputs")
    fn_name = ground_truth.get("fn_name")
    if fn_name is not None and not isinstance(fn_name, str):
        raise _BadGroundTruth(f'"fn_name" must be a string (got {fn_name!r:.40})')
    if fn_name and not all(isinstance(args, list) for args in inputs):
        raise _BadGroundTruth('with "fn_name", each input must be a list of arguments')
    return inputs, outputs, fn_name or None


def _zero(reason: str, metrics: dict[str, MetricResult]) -> EvaluateResult:
    return EvaluateResult(score=0.0, reason=reason, metrics=metrics)


def _metric(score: float, reason: str) -> MetricResult:
    return MetricResult(score=score, reason=reason, success=score == 1.0)


def _run(
    code: str, fn_name: str | None, case: tuple[Any, Any], timeout: float, memory_mb: int
) -> CaseResult:
    given, expected = case
    if fn_name is None:
        return run_stdio_case(
            code, "python", _joined(given), _joined(expected), timeout=timeout, memory_mb=memory_mb
        )
    return run_call_case(code, fn_name, given, expected, timeout=timeout, memory_mb=memory_mb)


@reward_function
def evaluate_apps_solution(
    messages: list[Message],
    ground_truth: Any = None,
    timeout: float = 10,
    stop_on_first_failure: bool = True,
    *,
    max_memory_mb: int = 256,
    **kwargs: Any,
) -> EvaluateResult:
    """Score an APPS solution: passed test cases / all test cases.

    Code that does not compile scores 0.0 ("Execution Error: SyntaxError ..."). By
    default checking stops at the first failing case, as APPS's harness does: the reason
    then counts the cases run ("Passed 2/3 test cases.") and the cases not run count as
    failed in the score.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: `{"inputs": [...], "outputs": [...], "fn_name": ...}` or its JSON.
        timeout: Wall-clock seconds per test case.
        stop_on_first_failure: Stop at the first failing case (`False`: run them all).
        max_memory_mb: Address-space limit per run, in MiB.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> code = "```python\\nprint(sum(map(int, input().split())))\\n```"
        >>> evaluate_apps_solution(
        ...     [{"role": "assistant", "content": code}],
        ...     '{"inputs": ["1 2\\\\n", "5 5\\\\n"], "outputs": ["3\\\\n", "10\\\\n"]}',
        ... ).reason
        'Passed 2/2 test cases.'
    """
    if not messages:
        error = MetricResult(score=0.0, reason="No messages provided for evaluation.")
        return _zero("No messages provided.", {"error": error})
    last = messages[-1]
    if field(last, "role") != "assistant":
        reason = f"The last message comes from {field(last, 'role')!r}, not from the assistant."
        return _zero(reason, {"error": _metric(0.0, reason)})
    code = extract_python_code(content_text(field(last, "content")))
    if not code:
        parsability = _metric(0.0, "Empty code solution after extraction.")
        return _zero(
            "The provided code solution was empty after extraction.", {"parsability": parsability}
        )
    try:
        inputs, outputs, fn_name = _problem(ground_truth)
    except _BadGroundTruth as problem:
        reason = f"Invalid ground_truth: {problem}."
        return _zero(reason, {"error": _metric(0.0, reason)})
    compile_error = syntax_error(code, timeout=timeout)
    if compile_error is not None:
        return _zero(
            f"Execution Error: {compile_error}",
            {
                "execution_error_details": _metric(0.0, json.dumps({"error": compile_error})),
                "pass_rate": _metric(0.0, "The code does not compile."),
            },
        )
    if not inputs:
        reason = "Execution utility returned no results."
        return _zero(reason, {"error": _metric(0.0, "ground_truth has no test cases.")})
    results: list[CaseResult] = []
    for case in zip(inputs, outputs, strict=True):
        results.append(_run(code, fn_name, case, timeout, max_memory_mb))
        if stop_on_first_failure and not results[-1].passed:
            break
    passed, total = sum(r.passed for r in results), len(inputs)
    reason = f"Passed {passed}/{len(results)} test cases."
    if len(results) < total:
        reason += f" Stopped at the first failure; {total - len(results)} not run."
    metrics = {"pass_rate": _metric(passed / total, f"{passed}/{total} test cases passed")}
    failed = next((i for i, r in enumerate(results) if r.error), None)
    if failed is not None:
        details = json.dumps({"error": results[failed].error, "case": failed})
        metrics["execution_error_details"] = _metric(0.0, details)
    return EvaluateResult(score=passed / total, reason=reason, metrics=metrics)
