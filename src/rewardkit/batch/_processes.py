"""Samples scored in spawned processes: `rewardkit score --backend process`, and
`Scorer.score_batch(processes=N)` (`SamplePool`).

For CPU-bound programmatic rewards, which threads cannot speed up (they share the GIL). As
with Ray, the driver keeps resume, line checks, reports and the progress bar through
`run_jsonl`; `workers` processes (spawned, so safe next to threads) each `load()` the config
once and score chunks of samples, returning the result rows as plain dicts. At most two
chunks per process are in flight, so a long input is never held in memory. The processes die
with the driver, even on SIGKILL, and end what they started first (see `_lifeline`).
`SamplePool` starts its processes the same way, from the scorer's `Recipe`, and returns
whole `SampleResult`s in input order.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any, NoReturn, Protocol

from rewardkit._errors import ConfigError
from rewardkit.batch._chunks import CHUNK_SIZE, Chunk, Loader, chunks, score_chunk
from rewardkit.batch._result import SampleResult
from rewardkit.batch._runner import (
    MAX_LINE_BYTES,
    BadLine,
    Emit,
    Items,
    Row,
    RunCounts,
    run_jsonl,
)
from rewardkit.batch._scorer import MEMORY_MIB, Recipe, Scorer
from rewardkit.engine._lifeline import adopt_orphans, die_with_parent, end_children, watch_parent

__all__ = ["SamplePool", "score_jsonl_processes"]

_scorer: Scorer | None = None
"""This worker process's scorer, set once by `_load_once`."""
_SPAWN = multiprocessing.get_context("spawn")
_MAX_CHUNK = 256
_LOST = (
    "a scoring process could not load the reward, or died while scoring (the reward ended "
    "its process, or ran out of memory); load with a deadline= to keep such samples apart"
)


class _Loads(Protocol):
    def load(self) -> Scorer: ...


class SamplePool:
    """`size` spawned processes scoring samples with the scorer of `recipe`.

    Raises:
        ConfigError: the recipe cannot be pickled (a reward function that is not at a module's
            top level, without `cloudpickle` installed).
    """

    def __init__(self, recipe: Recipe, size: int) -> None:
        self.size = size
        self.broken = False
        loader = _Pickled(_dumps(recipe))
        self._pool = ProcessPoolExecutor(
            size, mp_context=_SPAWN, initializer=_load_once, initargs=(loader, os.getpid())
        )

    def score(self, samples: Sequence[Any]) -> list[SampleResult]:
        """Every sample's result, in input order; samples are sent in chunks, a few per process.

        A process that dies (a reward ending its process, without a deadline) or cannot load
        the reward makes its chunk's samples invalid, saying so; the pool then starts anew.
        """
        step = max(1, min(_MAX_CHUNK, -(-len(samples) // (4 * self.size))))
        parts = [list(samples[i : i + step]) for i in range(0, len(samples), step)]
        futures = [self._submit(part) for part in parts]
        results: list[SampleResult] = []
        for part, future in zip(parts, futures, strict=True):
            results.extend(self._collect(len(part), future))
        return results

    def _submit(self, part: list[Any]) -> Future[list[SampleResult]] | None:
        try:
            return self._pool.submit(_score_samples, part)
        except BrokenProcessPool:
            return None

    def _collect(self, n: int, future: Future[list[SampleResult]] | None) -> list[SampleResult]:
        try:
            if future is not None:
                return future.result()
            error = _LOST
        except BrokenProcessPool:
            error = _LOST
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            return _invalid(n, f"a sample cannot be sent to a scoring process ({exc})")
        self.broken = True
        return _invalid(n, error)

    def close(self) -> None:
        """Stop the processes."""
        self._pool.shutdown(cancel_futures=True)


@dataclass(frozen=True)
class _Pickled:
    """A recipe as bytes (pickled, else cloudpickled), loaded in the process that gets it."""

    frame: bytes

    def load(self) -> Scorer:
        recipe: Recipe = pickle.loads(self.frame)
        return recipe.build()


def _dumps(recipe: Recipe) -> bytes:
    try:
        return pickle.dumps(recipe)
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        problem = exc
    try:
        import cloudpickle  # type: ignore[import-untyped]
    except ImportError:
        raise ConfigError(
            f"the reward cannot be sent to a scoring process ({problem}); define each reward "
            "function at the top level of an importable module, or `pip install cloudpickle`"
        ) from None
    frame: bytes = cloudpickle.dumps(recipe)
    return frame


def _invalid(n: int, error: str) -> list[SampleResult]:
    return [SampleResult(reward=None, error=error) for _ in range(n)]


def _score_samples(samples: list[Any]) -> list[SampleResult]:
    assert _scorer is not None, "the pool's initializer loads the scorer"
    return _scorer.score_batch(samples)


def score_jsonl_processes(
    config: Path,
    rollouts: Path,
    out: Path,
    *,
    workers: int,
    deadline: float | None = None,
    max_concurrent: int = 8,
    memory_mib: int = MEMORY_MIB,
    chunk_size: int = CHUNK_SIZE,
    on_bad_line: BadLine,
    on_result: Emit | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    retry_invalid: bool = False,
) -> RunCounts:
    """`score_jsonl` on `workers` local processes, each scoring `max_concurrent` at once.

    The processes start once there is something to score and stop at the end.

    Raises:
        ConfigError: `workers` is below 1, two rollouts share an id, or a process could not
            load `config` (or died).
    """
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1 (got {workers})")
    loader = Loader(str(config.resolve()), deadline, max_concurrent, memory_mib)

    def write(items: Items, emit: Emit) -> None:
        pending = chunks(items, chunk_size)
        if (first := next(pending, None)) is None:
            return  # nothing left to score (e.g. a finished run resumed): no process starts
        pool = ProcessPoolExecutor(
            workers, mp_context=_SPAWN, initializer=_load_once, initargs=(loader, os.getpid())
        )
        try:
            for row in _scored(pool, 2 * workers, chain([first], pending)):
                emit(row)
        finally:
            pool.shutdown(cancel_futures=True)

    try:
        return run_jsonl(
            write,
            rollouts,
            out,
            on_bad_line=on_bad_line,
            on_result=on_result,
            max_line_bytes=max_line_bytes,
            retry_invalid=retry_invalid,
        )
    except BrokenProcessPool as exc:
        raise ConfigError(
            "a worker process could not load the config, or died (e.g. out of memory). "
            "Check it with `rewardkit check`; rerun to resume.",
            path=config,
        ) from exc


def _load_once(loader: _Loads, driver: int) -> None:
    """A worker's initializer: load the scorer once; die with the driver, and end what the
    worker started (a judge's own worker process, a command) with it."""
    global _scorer
    adopt_orphans()
    signal.signal(signal.SIGTERM, _orphaned)
    die_with_parent(driver, signal.SIGTERM)
    _scorer = loader.load()  # with a deadline, this forks: before any thread of ours starts
    watch_parent(driver)  # where PR_SET_PDEATHSIG is missing


def _orphaned(*_: object) -> NoReturn:
    end_children()
    os._exit(1)


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
