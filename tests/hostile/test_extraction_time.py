"""Extraction over untrusted text is linear-time or capped.

Each hostile shape grows 10 KB → 100 KB → 1 MB; the public function reading it must grow
near-linearly (1 MB within 30 times the 100 KB time, plus a small constant) and finish a
megabyte within 3 s, on the main thread and on a worker thread.
"""

from __future__ import annotations

import importlib.util
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from rewardkit.functions.builtin import (
    accuracy_reward,
    evaluate_apps_solution,
    format_reward,
    math_reward,
    reasoning_steps_reward,
)
from rewardkit.functions.builtin._answers import extract_answer
from rewardkit.functions.builtin.code._code import code_blocks, extract_code_blocks

_PROSE = (
    "The train leaves at 9 and travels 120 km in 2 hours, so its speed is 60 km/h. "
    "We then check the other case, where it stops twice for 15 minutes each.\n"
)
_STEP = "Step {i}: add 3 and 4 to get 7, double it so y = 14; the sum is 1,234 and 3/4.\n"


def _grow(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _nested(size: int) -> str:
    depth = size // 8
    return "\\boxed{" * depth + "1" + "}" * depth


def _chain_of_thought(size: int) -> str:
    return "".join(_STEP.format(i=i) for i in range(size // 60 + 1))[:size]


SHAPES: dict[str, Callable[[int], str]] = {
    "backticks": lambda n: "`" * n,
    "unclosed_fence": lambda n: "```python\n" + _grow("x = 1  # code\n", n),
    "unclosed_think": lambda n: _grow("<think>", n),
    "unclosed_answer": lambda n: _grow("<answer>", n),
    "unclosed_boxed": lambda n: _grow("\\boxed{", n),
    "nested_boxed": _nested,
    "one_comma": lambda n: _grow("1,", n),
    "prose": lambda n: _grow(_PROSE, n),
    "chain_of_thought": _chain_of_thought,
    # `x = <digits>` then a term: a lookahead after the number re-read the digits per digit.
    "assigned_digits": lambda n: "x = " + "9" * n + " y",
    "assigned_digits_bracket": lambda n: "x=" + "1" * n + "(",
    # The default format's `.*?` read to the end after each separator.
    "think_answer_separators": lambda n: "<think>\n" + _grow("</think>\n<answer>\n", n),
}


def _said(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


READERS: dict[str, Callable[[str], object]] = {
    "code_blocks": lambda t: (extract_code_blocks(t), code_blocks(t, "python")),
    # An unusable ground truth: the APPS reward stops right after extracting the code.
    "apps": lambda t: evaluate_apps_solution(_said(t), "not json"),
    "accuracy": lambda t: accuracy_reward(_said(t), "4"),
    "extract_answer": extract_answer,
    "format": lambda t: format_reward(_said(t)),
    "format_anywhere": lambda t: format_reward(_said(t), require_exact_match=False),
    "steps": lambda t: reasoning_steps_reward(_said(t)),
}
CASES = [
    ("code_blocks", "backticks"),
    ("code_blocks", "unclosed_fence"),
    ("apps", "unclosed_think"),
    ("apps", "backticks"),
    ("apps", "unclosed_fence"),
    *[("accuracy", shape) for shape in SHAPES],
    ("extract_answer", "assigned_digits"),
    ("extract_answer", "assigned_digits_bracket"),
    ("format", "unclosed_think"),
    ("format", "unclosed_answer"),
    ("format", "think_answer_separators"),
    ("format_anywhere", "think_answer_separators"),
    ("steps", "prose"),
    ("steps", "chain_of_thought"),
]
_HAS_MATH_VERIFY = importlib.util.find_spec("math_verify") is not None
if _HAS_MATH_VERIFY:
    READERS["math"] = lambda t: math_reward(_said(t), "4")
    READERS["math_symbolic"] = lambda t: math_reward(_said(t), "\\sqrt{2}")
    CASES += [("math", shape) for shape in SHAPES]
    CASES += [("math_symbolic", s) for s in ("chain_of_thought", "unclosed_boxed", "prose")]


def _seconds(read: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    read(text)
    return time.perf_counter() - start


def _check_growth(reader: str, shape: str) -> None:
    read, make = READERS[reader], SHAPES[shape]
    read("warm up: 1")
    small, medium, large = (_seconds(read, make(n)) for n in (10_000, 100_000, 1_000_000))
    assert large <= 3.0, f"{reader} on 1 MB of {shape}: {large:.2f}s (limit 3s)"
    assert large <= 30 * medium + 0.5, (
        f"{reader} on {shape} grows faster than linearly: 10 KB {small:.3f}s, "
        f"100 KB {medium:.3f}s, 1 MB {large:.3f}s"
    )


@pytest.mark.parametrize(("reader", "shape"), CASES)
def test_main_thread(reader: str, shape: str) -> None:
    _check_growth(reader, shape)


@pytest.mark.parametrize(("reader", "shape"), CASES)
def test_worker_thread(reader: str, shape: str) -> None:
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_check_growth, reader, shape).result(timeout=60)
