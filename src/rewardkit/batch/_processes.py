"""`rewardkit score --backend process`: the JSONL runner with samples scored in processes.

For CPU-bound programmatic rewards, which threads cannot speed up (they share the GIL). As
with Ray, the driver keeps resume, malformed-line reports and the progress bar through
`run_jsonl`; `workers` processes (spawned, so safe next to threads) each `load()` the config
once and score chunks of samples, returning the result lines as plain dicts. At most two
chunks per process are in flight, so a long input is never held in memory.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from itertools import chain
from pathlib import Path
from typing import IO

from rewardkit._errors import ConfigError
from rewardkit.batch._chunks import CHUNK_SIZE, Chunk, Row, chunks, score_chunk, write_rows
from rewardkit.batch._runner import BadLine, Items, RunCounts, run_jsonl
from rewardkit.batch._scorer import Scorer, load

__all__ = ["score_jsonl_processes"]

_scorer: Scorer | None = None
"""This worker process's scorer, set once by `_load_once`."""


def score_jsonl_processes(
    config: Path,
    rollouts: Path,
    out: Path,
    *,
    workers: int,
    deadline: float | None = None,
    max_concurrent: int = 8,
    chunk_size: int = CHUNK_SIZE,
    on_bad_line: BadLine,
    on_result: Callable[[Row], None] | None = None,
) -> RunCounts:
    """`score_jsonl` on `workers` local processes, each scoring `max_concurrent` at once.

    The processes start once there is something to score and stop at the end.

    Raises:
        ConfigError: `workers` is below 1, or a process could not load `config` (or died).
    """
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1 (got {workers})")

    def write(items: Items, sink: IO[str], counts: dict[str, int]) -> None:
        pending = chunks(items, chunk_size)
        if (first := next(pending, None)) is None:
            return  # nothing left to score (e.g. a finished run resumed): no process starts
        pool = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_load_once,
            initargs=(str(config.resolve()), deadline, max_concurrent),
        )
        try:
            rows = _scored(pool, 2 * workers, chain([first], pending))
            write_rows(rows, sink, counts, on_result)
        finally:
            pool.shutdown(cancel_futures=True)

    try:
        return run_jsonl(write, rollouts, out, on_bad_line=on_bad_line)
    except BrokenProcessPool as exc:
        raise ConfigError(
            "a worker process could not load the config, or died (e.g. out of memory). "
            "Check it with `rewardkit check`; rerun to resume.",
            path=config,
        ) from exc


def _load_once(config: str, deadline: float | None, max_concurrent: int) -> None:
    global _scorer
    _scorer = load(config, deadline=deadline, max_concurrent=max_concurrent)


def _score(chunk: Chunk) -> list[Row]:
    assert _scorer is not None, "the pool's initializer loads the scorer"
    return score_chunk(_scorer, chunk)


def _scored(pool: ProcessPoolExecutor, in_flight: int, todo: Iterator[Chunk]) -> Iterator[Row]:
    """Rows as chunks finish, with at most `in_flight` chunks submitted at once."""
    running: set[Future[list[Row]]] = set()

    def submit() -> None:
        if (chunk := next(todo, None)) is not None:
            running.add(pool.submit(_score, chunk))

    for _ in range(in_flight):
        submit()
    while running:
        done, _ = wait(running, return_when=FIRST_COMPLETED)
        for future in done:
            running.discard(future)
            submit()
            yield from future.result()
