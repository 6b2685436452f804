"""Check a program against test cases, each in a fresh sandboxed process (`run_program`).

Two kinds of test case: a *stdio* case feeds `stdin` to the program and compares what it
prints; a *call* case (Python only) runs the program as a module, calls one of its
functions with JSON arguments and compares the JSON of what it returns. Output matches
when the lines are equal with surrounding whitespace and blank lines at either end
ignored; returned values match when equal as JSON, numbers within a relative 1e-9.

JavaScript runs under Node.js with `readline()` (the next line of standard input, or
`undefined`) and `print()` defined, as in the JS shells competitive judges use.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import dataclass
from typing import Any

from rewardkit.functions.builtin._code import _FILE, _argv

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
_CALL_HARNESS = """
import json, sys
case = json.load(open("case.json", encoding="utf-8"))
sys.argv = ["solution.py"]
namespace = {"__name__": "solution"}
exec(compile(open("solution.py", encoding="utf-8").read(), "solution.py", "exec"), namespace)
function = namespace.get(case["function"])
if function is None and "Solution" in namespace:
    function = getattr(namespace["Solution"](), case["function"], None)
if not callable(function):
    sys.exit(f"NameError: the code defines no function {case['function']!r}")
result = function(*case["args"])
sys.stdout.write("\\n" + case["marker"] + json.dumps(result, default=repr) + "\\n")
"""
_SYNTAX_CHECK = """
import sys
try:
    compile(open("main.py", encoding="utf-8").read(), "main.py", "exec")
except (SyntaxError, ValueError) as e:
    where = f" (line {e.lineno})" if getattr(e, "lineno", None) else ""
    print(f"{type(e).__name__}: {getattr(e, 'msg', None) or e}{where}")
"""
_MARKER = "\x1erewardkit-result:"


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


def _program(
    code: str, language: str, memory_mb: int
) -> tuple[list[str], dict[str, str], int | None]:
    """The command, files and address-space limit that run `code` in `language`."""
    argv, memory = _argv(language, memory_mb)
    prelude = _JS_PRELUDE if language == "javascript" else ""
    return argv, {_FILE[language]: prelude + code}, memory


def check_language(language: str) -> None:
    """Raise the error `run_stdio_case` would for `language`, before anything runs."""
    _program("", language, 1)


def _failure(run: Any) -> CaseResult:
    return CaseResult(passed=False, error=run.describe())


def run_stdio_case(
    code: str, language: str, stdin: str, expected: str, *, timeout: float, memory_mb: int
) -> CaseResult:
    """Run the program on `stdin` and compare its standard output with `expected`."""
    from rewardkit.functions.builtin._sandbox import run_program

    argv, files, memory = _program(code, language, memory_mb)
    run = run_program(argv, files=files, stdin=stdin, timeout=timeout, memory_mb=memory)
    if not run.ok:
        return _failure(run)
    return CaseResult(passed=_lines(run.stdout) == _lines(expected), actual=run.stdout[:1000])


def run_call_case(
    code: str, function: str, args: list[Any], expected: Any, *, timeout: float, memory_mb: int
) -> CaseResult:
    """Call `function(*args)` of the Python program and compare the result with `expected`.

    APPS wraps some expected return values in a one-item list; either form matches.
    """
    from rewardkit.functions.builtin._sandbox import run_program

    case = {"function": function, "args": args, "marker": _MARKER}
    files = {"solution.py": code, "case.json": json.dumps(case), "main.py": _CALL_HARNESS}
    argv = [sys.executable, "-I", "main.py"]
    run = run_program(argv, files=files, timeout=timeout, memory_mb=memory_mb)
    if not run.ok:
        return _failure(run)
    _, found, returned = run.stdout.rpartition(_MARKER)
    if not found:
        return CaseResult(passed=False, error="the call returned no result")
    try:
        result = json.loads(returned)
    except ValueError:
        return CaseResult(passed=False, error="the call's result is not JSON-serialisable")
    passed = values_equal(result, expected) or values_equal([result], expected)
    return CaseResult(passed=passed, actual=returned.strip()[:1000])


def syntax_error(code: str, *, timeout: float = 10.0) -> str | None:
    """Why the Python code does not compile (e.g. `SyntaxError: ... (line 2)`), or `None`.

    Compiling runs in the sandbox too: a hostile source can exhaust the compiler.
    """
    from rewardkit.functions.builtin._sandbox import run_program

    argv = [sys.executable, "-I", "-c", _SYNTAX_CHECK]
    run = run_program(argv, files={"main.py": code}, timeout=timeout, memory_mb=512)
    if not run.ok:
        return f"could not compile the code: {run.describe()}"
    return run.stdout.strip() or None
