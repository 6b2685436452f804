"""The cost of math-verify's deadline: `verify_latex` (worker processes) vs in-process calls.

Reports the median seconds per call on distinct simple pairs (`\\frac{k}{2}` vs `k/2` as
a decimal) for math-verify in this process (on the main thread with its own `SIGALRM`
timeouts; on a worker thread without, as it must run there) and for `verify_latex` from
the main and a worker thread, a cached `verify_latex` call, and the throughput of 8
threads with a pool of one worker behind a lock vs the default pool.

    python benchmarks/symbolic_overhead.py [--pairs 200]

`verify_latex` is internal (the math reward functions call it), hence the private import.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

from rewardkit.functions.builtin.math import _symbolic


def pairs(start: int, count: int) -> Iterator[tuple[str, str]]:
    for k in range(start, start + count):
        yield f"\\frac{{{k}}}{{2}}", str(k / 2)


def timed(call: Callable[[str, str], object], todo: list[tuple[str, str]]) -> float:
    seconds = []
    for gold, answer in todo:
        start = time.perf_counter()
        assert call(gold, answer) is True, (gold, answer)
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def in_process(timeout: int | None) -> Callable[[str, str], object]:
    from math_verify import LatexExtractionConfig, parse, verify

    config = [LatexExtractionConfig()]

    def call(gold: str, answer: str) -> bool:
        left = parse(f"${gold}$", extraction_config=config, parsing_timeout=timeout)
        right = parse(f"${answer}$", extraction_config=config, parsing_timeout=timeout)
        return bool(verify(left, right, timeout_seconds=timeout))

    return call


def on_thread(job: Callable[[], float]) -> float:
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(job).result()


def throughput(size: int, todo: list[tuple[str, str]], threads: int = 8) -> float:
    _symbolic._close()
    _symbolic._POOL_SIZE = size
    _symbolic._the_pool = None
    # Start the workers first: start-up is not what is measured.
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(lambda i: _symbolic.verify_latex("1", f"{i}/{i}"), range(threads)))
        start = time.perf_counter()
        verdicts = list(pool.map(lambda pair: _symbolic.verify_latex(*pair), todo))
    assert all(verdicts)
    return len(todo) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=200)
    n = parser.parse_args().pairs
    verify = _symbolic.verify_latex
    verify("1", "1")  # start a worker; import math-verify here too
    in_process(5)("1", "1")
    rows = {
        "math-verify in-process, main thread (SIGALRM timeouts)": timed(
            in_process(5), list(pairs(1, n))
        ),
        "math-verify in-process, worker thread (no timeout)": on_thread(
            lambda: timed(in_process(None), list(pairs(n + 1, n)))
        ),
        "verify_latex, main thread": timed(verify, list(pairs(2 * n + 1, n))),
        "verify_latex, worker thread": on_thread(lambda: timed(verify, list(pairs(3 * n + 1, n)))),
        "verify_latex, cached pair": timed(verify, list(pairs(1 + 2 * n, n))),
    }
    for name, seconds in rows.items():
        print(f"{name:58} {seconds * 1000:8.3f} ms/call")
    size = min(4, os.cpu_count() or 1)
    one = throughput(1, list(pairs(4 * n + 1, 2 * n)))
    many = throughput(size, list(pairs(6 * n + 1, 2 * n)))
    print(f"8 threads, one worker behind a lock: {one:7.1f} calls/s")
    print(f"8 threads, a pool of {size}:             {many:7.1f} calls/s ({many / one:.2f}x)")


if __name__ == "__main__":
    main()
