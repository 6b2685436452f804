"""Check a program against test cases, each in a fresh cell of the jail (`_run`).

Two kinds of test case: a *stdio* case feeds `stdin` to the program and compares what it
prints; a *call* case (Python only) runs the program beside the harness, which calls one
of its functions with JSON arguments and reports the plain value it returns (`_verdict`).
Output matches when the lines are equal with surrounding whitespace and blank lines at
either end ignored; returned values match when equal as JSON, numbers within a relative
1e-9. Both comparisons happen in the grader.

JavaScript runs under Node.js with `readline()` (the next line of standard input, or
`undefined`) and `print()` defined, as in the JS shells competitive judges use.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from rewardkit.functions.builtin.code._run import check_language, run_code, run_harness
from rewardkit.functions.builtin.code._verdict import judge_call

__all__ = [
    "CaseResult",
    "check_language",
    "run_call_case",
    "run_stdio_case",
    "syntax_error",
    "values_equal",
]

_JS_PRELUDE = (
    'const __rkIn = require("fs").readFileSync(0, "utf8").split(/\\r?\\n/); let __rkAt = 0; '
    "globalThis.readline = () => (__rkAt < __rkIn.length ? __rkIn[__rkAt++] : undefined); "
    "globalThis.print = (...a) => console.log(...a);\n"
)
_SYNTAX_CHECK = """
try:
    compile(open("solution.py", encoding="utf-8").read(), "main.py", "exec")
except (SyntaxError, ValueError) as e:
    where = f" (line {e.lineno})" if getattr(e, "lineno", None) else ""
    print(f"{type(e).__name__}: {getattr(e, 'msg', None) or e}{where}")
"""


@dataclass(frozen=True)
class CaseResult:
    """How one test case went.

    Attributes:
        passed: The program's output (or return value) matched the expected one.
        actual: What it printed (or returned, as JSON), truncated; `None` if it failed.
        error: Why it failed to run (timeout, exit status, error), else `None`.
    """

    passed: bool
    actual: str | None = None
    error: str | None = None


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.strip().splitlines()]


def values_equal(actual: Any, expected: Any) -> bool:
    """JSON values equal, numbers within a relative 1e-9 (bools are not numbers)."""
    numbers = (int, float)
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        return math.isclose(actual, expected, rel_tol=1e-9, abs_tol=0.0)
    if isinstance(actual, list) and isinstance(expected, list):
        return len(actual) == len(expected) and all(map(values_equal, actual, expected))
    if isinstance(actual, dict) and isinstance(expected, dict):
        return actual.keys() == expected.keys() and all(
            values_equal(actual[k], expected[k]) for k in actual
        )
    return bool(actual == expected)


def _jsonish(value: Any) -> Any:
    """A returned value as its JSON would read (tuples are lists; other values their repr)."""
    if isinstance(value, list | tuple):
        return [_jsonish(v) for v in value]
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: _jsonish(v) for k, v in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def run_stdio_case(
    code: str, language: str, stdin: str, expected: str, *, timeout: float, memory_mb: int
) -> CaseResult:
    """Run the program on `stdin` and compare its standard output with `expected`."""
    prelude = _JS_PRELUDE if language == "javascript" else ""
    run = run_code(prelude + code, language, stdin=stdin, timeout=timeout, memory_mb=memory_mb)
    if not run.ok:
        return CaseResult(passed=False, error=run.describe())
    return CaseResult(passed=_lines(run.stdout) == _lines(expected), actual=run.stdout[:1000])


def run_call_case(
    code: str, function: str, args: list[Any], expected: Any, *, timeout: float, memory_mb: int
) -> CaseResult:
    """Call `function(*args)` of the Python program and compare the result with `expected`.

    APPS wraps some expected return values in a one-item list; either form matches.
    """
    case = {"mode": "call", "function": function, "args": args, "module_name": "solution"}
    run = run_harness(code, case, timeout=timeout, memory_mb=memory_mb)
    if run.timed_out or run.output_truncated:
        return CaseResult(passed=False, error=run.describe())
    verdict = judge_call(run.report)
    if not verdict.passed:
        return CaseResult(passed=False, error=verdict.reason if run.ok else run.describe())
    result = _jsonish(verdict.value)
    passed = values_equal(result, expected) or values_equal([result], expected)
    return CaseResult(passed=passed, actual=json.dumps(result, default=str)[:1000])


def syntax_error(code: str, *, timeout: float = 10.0) -> str | None:
    """Why the Python code does not compile (e.g. `SyntaxError: ... (line 2)`), or `None`.

    Compiling runs in the jail too: a hostile source can exhaust the compiler.
    """
    from rewardkit.jail import run_python

    files = {"check.py": _SYNTAX_CHECK, "solution.py": code}
    run = run_python("check.py", files=files, timeout=timeout, memory_mb=512)
    if not run.ok:
        return f"could not compile the code: {run.describe()}"
    return run.stdout.strip() or None
