"""The math-verify worker: one single-threaded process that answers `verify_latex`.

Started by `_symbolic.py` as `python -I _symbolic_worker.py` (by path, so it imports no
part of rewardkit, and `-I` keeps the working directory and `PYTHON*` variables out).
It imports math-verify once, writes `{"ready": true}` (or `{"missing": ...}`), then
reads one JSON request a line, `{"gold", "answer", "budget"}`, and writes one JSON
answer a line, `{"verdict": true | false | null, "why": ...}`.

Its own limits are backstops; the grader's deadline is the one that holds (it kills this
process): a `SIGALRM` timer over the whole request (`budget` seconds), which ends what
runs in Python; a CPU limit raised before each request to the seconds used so far plus
the budget and a margin, which ends runaway C code (a huge integer power) even once the
grader is gone; and an address-space limit.
"""

from __future__ import annotations

import functools
import importlib
import json
import math
import resource
import signal
import sys
from types import FrameType
from typing import Any

_MEMORY_BYTES = 1 << 30
"""The address-space limit (the process needs about 60 MiB)."""
_CPU_MARGIN = 2
"""CPU seconds allowed beyond a request's budget before the kernel ends the process."""


class _Deadline(BaseException):
    """The budget of a request ran out (a `BaseException`, so that math-verify's and
    sympy's `except Exception` clauses do not swallow it)."""


_armed = False


def _on_alarm(signum: int, frame: FrameType | None) -> None:
    if _armed:
        raise _Deadline


def _send(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _limit_cpu(budget: float) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    used = usage.ru_utime + usage.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = math.ceil(used + budget) + _CPU_MARGIN
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


class _Verifier:
    def __init__(self, mv: Any) -> None:
        self._mv = mv
        self._config = [mv.LatexExtractionConfig()]
        # RL scores many answers per reference: parse each reference once.
        self.parse = functools.lru_cache(maxsize=1024)(self._parse)

    def _parse(self, text: str) -> tuple[Any, ...]:
        # LaTeX only: math-verify's `ExprExtractionConfig` would hand the text to sympy's
        # `parse_expr`, an `eval`. Timeouts off: `_answer` times the whole request.
        parsed = self._mv.parse(f"${text}$", extraction_config=self._config, parsing_timeout=None)
        return tuple(parsed)

    def verdict(self, gold: str, answer: str) -> dict[str, Any]:
        left, right = self.parse(gold), self.parse(answer)
        # A side read only as its string (no expression) is LaTeX math-verify could not parse.
        if not any(not isinstance(x, str) for x in left):
            return {"verdict": None, "why": "unparsed gold"}
        if not any(not isinstance(x, str) for x in right):
            return {"verdict": None, "why": "unparsed answer"}
        same = self._mv.verify(list(left), list(right), timeout_seconds=None)
        return {"verdict": bool(same), "why": "verified"}


def _answer(verifier: _Verifier, request: dict[str, Any]) -> dict[str, Any]:
    global _armed
    _limit_cpu(float(request["budget"]))
    signal.setitimer(signal.ITIMER_REAL, float(request["budget"]))
    _armed = True
    try:
        reply = verifier.verdict(str(request["gold"]), str(request["answer"]))
        _armed = False
    except _Deadline:
        reply = {"verdict": None, "why": "deadline"}
    except Exception as exc:  # RecursionError, MemoryError, a parser's own
        _armed = False
        reply = {"verdict": None, "why": f"error: {type(exc).__name__}"}
    finally:
        _armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
    return reply


def main() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_AS, (_MEMORY_BYTES, _MEMORY_BYTES))
    try:
        mv = importlib.import_module("math_verify")
    except ImportError as exc:
        _send({"missing": str(exc)})
        return
    verifier = _Verifier(mv)
    signal.signal(signal.SIGALRM, _on_alarm)
    _send({"ready": True})
    for line in sys.stdin:
        _send(_answer(verifier, json.loads(line)))


if __name__ == "__main__":
    main()
