"""The math answer engine reads untrusted text in near-linear time.

Each hostile shape grows 10 KB → 100 KB → 1 MB and is read three ways: as a response
(`math_reward` against the reference "4"), as a reference (`math_reward` of a boxed "4"
against it) and by `final_answer` alone. A megabyte must be read within 3 s, on the main
thread and on a worker thread, and the 1 MB time must stay within 20 times the 100 KB time
(plus a small constant): linear code takes about 10 times as long (a million-step Python loop
measured 10.7 times alone, and 15 once in a busy CI run, from caches and neighbours), quadratic
code about 100.
Each size is timed twice and the faster run kept, so one pause of the host does not fail a
case; every text read ends in a different number of spaces, so no cache (`math_reward`
keeps the references it has read) answers for it.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from rewardkit.functions.builtin import math_reward
from rewardkit.functions.builtin.math._final import final_answer

SIZES = (10_000, 100_000, 1_000_000)
LIMIT_S = 3.0
GROWTH = 20
SLACK_S = 0.25


def _grow(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


def _nested(opening: str, closing: str, inner: str, size: int) -> str:
    depth = size // (len(opening) + len(closing))
    return opening * depth + inner + closing * depth


def _boxed(body: str) -> str:
    return "\\boxed{" + body + "}"


SHAPES: dict[str, Callable[[int], str]] = {
    "unclosed_boxed": lambda n: _grow("\\boxed{", n),
    "boxed_one_repeated": lambda n: _grow("\\boxed{1}", n),
    "nested_boxed": lambda n: _nested("\\boxed{", "}", "1", n),
    "dollars": lambda n: "$" * n,
    "dollar_one_or": lambda n: _grow("$1$ or ", n),
    "answer_is": lambda n: _grow("answer is ", n),
    "hashes": lambda n: "#" * n,
    "unclosed_answer_tag": lambda n: _grow("<answer>", n),
    "digits": lambda n: "7" * n,
    "braces_in_box": lambda n: _boxed(_nested("{", "}", "1", n)),
    "fracs_in_box": lambda n: _boxed(_nested("\\frac{", "}{2}", "1", n)),
    "sqrts_in_box": lambda n: _boxed(_nested("\\sqrt{", "}", "2", n)),
    "open_parens": lambda n: "(" * n,
    "open_parens_in_box": lambda n: _boxed("(" * n),
    "pmatrix_in_box": lambda n: _boxed(
        "\\begin{pmatrix}" + _grow("1 & 2 \\\\ ", n) + "\\end{pmatrix}"
    ),
    "power_tower_in_box": lambda n: _boxed(_nested("9^{", "}", "9", n)),
}


def _said(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


READERS: dict[str, Callable[[str], object]] = {
    "response": lambda t: math_reward(_said(t), "4"),
    "reference": lambda t: math_reward(_said("So it is \\boxed{4}."), t),
    "final_answer": final_answer,
}
CASES = [(reader, shape) for reader in READERS for shape in SHAPES]


def _case(reader: str, shape: str) -> object:
    return pytest.param(reader, shape, id=f"{reader}-{shape}")


_FRESH = itertools.count()


def _seconds(read: Callable[[str], object], text: str) -> float:
    best = float("inf")
    for variant in (text + " " * next(_FRESH), text + " " * next(_FRESH)):
        start = time.perf_counter()
        read(variant)
        best = min(best, time.perf_counter() - start)
    return best


def _check_growth(reader: str, shape: str) -> None:
    read, make = READERS[reader], SHAPES[shape]
    read("warm up: \\boxed{1}")
    small, medium, large = (_seconds(read, make(n)) for n in SIZES)
    figures = f"10 KB {small:.3f}s, 100 KB {medium:.3f}s, 1 MB {large:.3f}s"
    assert large <= LIMIT_S, f"{reader} on 1 MB of {shape}: {large:.2f}s (limit 3s): {figures}"
    assert large <= GROWTH * medium + SLACK_S, (
        f"{reader} on {shape} grows faster than linearly: {figures}"
    )


@pytest.mark.parametrize(("reader", "shape"), [_case(r, s) for r, s in CASES])
def test_main_thread(reader: str, shape: str) -> None:
    _check_growth(reader, shape)


@pytest.mark.parametrize(("reader", "shape"), [_case(r, s) for r, s in CASES])
def test_worker_thread(reader: str, shape: str) -> None:
    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(_check_growth, reader, shape).result(timeout=120)
