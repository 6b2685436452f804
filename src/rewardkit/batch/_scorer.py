"""`load` and `Scorer`: one reward definition, many samples, concurrently and under deadlines."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from rewardkit._errors import ConfigError
from rewardkit.batch._backends import Backend, load_backend
from rewardkit.batch._result import SampleResult
from rewardkit.batch._sample import Sample, SampleError, as_sample

if TYPE_CHECKING:
    from rewardkit.batch._adapters import TrlAsyncRewardFunc, TrlRewardFunc, VerlComputeScore
    from rewardkit.batch._forked import ForkedPool

__all__ = ["MEMORY_MIB", "SampleLike", "Scorer", "load", "score_sample"]

MEMORY_MIB = 4096
"""By default, how much a worker process may grow while scoring a sample (with a deadline)."""

SampleLike = Sample | Mapping[str, Any]
"""A `Sample`, or a mapping of its fields."""
Source = str | Path | Sequence[Callable[..., Any]] | Mapping[str, Callable[..., Any]]


def load(
    source: Source,
    *,
    reward: Mapping[str, Any] | None = None,
    deadline: float | None = None,
    max_concurrent: int = 8,
    memory_mib: int = MEMORY_MIB,
) -> Scorer:
    """Load a reward once; return a `Scorer` for many samples.

    Args:
        source: a tests directory, an eval.yaml (or its directory), or `@reward_function`s as a
            list or a `{judge name: function}` dict.
        reward: for functions only, an eval.yaml-style `reward:` mapping composing them (the
            default composition otherwise: the mean of their scores).
        deadline: seconds one sample may take; past it the sample is invalid. With a
            deadline, samples run in forked worker processes that the deadline kills.
        max_concurrent: samples scored at once in `score_batch`.
        memory_mib: with a deadline, how many MiB a worker process may grow by (its
            `RLIMIT_AS`, on Linux); a sample that needs more is invalid.

    Raises:
        ConfigError: the source or `reward` is wrong (before anything is scored).

    Example:
        >>> from rewardkit import reward_function
        >>> @reward_function
        ... def exact(messages, ground_truth=None, **kwargs):
        ...     return messages[-1]["content"] == ground_truth
        >>> load([exact]).score({"prompt": "2+2?", "completion": "4", "ground_truth": "4"}).reward
        1.0
    """
    if max_concurrent < 1:
        raise ConfigError(f"max_concurrent must be at least 1 (got {max_concurrent})")
    if deadline is not None and not deadline > 0:
        raise ConfigError(f"deadline must be a positive number of seconds (got {deadline})")
    if memory_mib < 1:
        raise ConfigError(f"memory_mib must be at least 1 (got {memory_mib})")
    backend = load_backend(source, reward)
    return Scorer(backend, deadline=deadline, max_concurrent=max_concurrent, memory_mib=memory_mib)


class Scorer:
    """Scores samples with one loaded reward; build it with `rewardkit.load`.

    A sample that fails (a bad field, a judge error) or outlasts the deadline gets an invalid
    `SampleResult` (`reward=None`); it never raises and never scores a silent 0. Without a
    deadline, samples run on worker threads of this process (the fast path). With one, each
    runs in a forked worker process (see `_forked`), started at load: the deadline kills a
    sample's worker and frees its slot, and a sample that exits the process or exhausts its
    memory is invalid alone. `close()` (or `with`) stops those processes; so does exiting.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        deadline: float | None,
        max_concurrent: int,
        memory_mib: int = MEMORY_MIB,
    ) -> None:
        self.backend = backend
        self.deadline = deadline
        self.max_concurrent = max_concurrent
        self._pool = ThreadPoolExecutor(max_concurrent, thread_name_prefix="rewardkit-batch")
        self._score_one: Callable[[SampleLike], SampleResult] = partial(score_sample, backend)
        self._forked: ForkedPool | None = None
        if deadline is not None and hasattr(os, "fork"):
            from rewardkit.batch._forked import ForkedPool

            self._forked = ForkedPool(
                self._score_one, size=max_concurrent, deadline=deadline, memory_mib=memory_mib
            )
            self._score_one = self._forked.score
            weakref.finalize(self, self._forked.close)  # the pool does not refer to `self`

    def __repr__(self) -> str:
        kind = type(self.backend).__name__.removesuffix("Backend")
        return f"Scorer({kind}, deadline={self.deadline}, max_concurrent={self.max_concurrent})"

    def __enter__(self) -> Scorer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker processes (with a deadline) and threads; scoring then raises."""
        if self._forked is not None:
            self._forked.close()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def score(self, sample: SampleLike) -> SampleResult:
        """Score one sample (see `ascore`)."""
        return asyncio.run(self.ascore(sample))

    async def ascore(self, sample: SampleLike) -> SampleResult:
        """Score one sample on a worker, under the deadline (which counts the wait for one).

        A sample still waiting for a worker at its deadline is dropped, never scored late.
        """
        return await self._within_deadline(self._pool.submit(self._score_one, sample))

    def score_batch(self, samples: Iterable[SampleLike]) -> list[SampleResult]:
        """Score `samples` concurrently (at most `max_concurrent` at once), in input order."""
        return asyncio.run(self.score_batch_async(samples))

    async def score_batch_async(self, samples: Iterable[SampleLike]) -> list[SampleResult]:
        """`score_batch` on the running event loop."""
        results: dict[int, SampleResult] = {}
        async for index, result in self.stream(enumerate(samples)):
            results[index] = result
        return [results[i] for i in range(len(results))]

    async def stream(
        self, items: Iterable[tuple[Any, SampleLike]]
    ) -> AsyncIterator[tuple[Any, SampleResult]]:
        """Score `(key, sample)` pairs as they are read; yield each pair as it finishes.

        At most `max_concurrent` samples are in flight, so a long input is never held in memory.
        """
        slots = asyncio.Semaphore(self.max_concurrent)
        done: asyncio.Queue[tuple[Any, SampleResult] | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()
        pending: set[asyncio.Task[None]] = set()

        def release(_: object) -> None:
            with contextlib.suppress(RuntimeError):  # a thread that returned after the run
                loop.call_soon_threadsafe(slots.release)

        async def one(key: Any, future: Future[SampleResult]) -> None:
            result = await self._within_deadline(future)
            # The slot frees when the worker returns: at the deadline in a process, whenever
            # the sample ends on a thread past it (a thread cannot be killed).
            if future.done():
                slots.release()
            else:
                future.add_done_callback(release)
            await done.put((key, result))

        async def feed() -> None:
            try:
                for key, sample in items:
                    await slots.acquire()
                    future = self._pool.submit(self._score_one, sample)
                    task = asyncio.create_task(one(key, future))
                    pending.add(task)
                    task.add_done_callback(pending.discard)
                while pending:
                    await asyncio.wait(set(pending))
            finally:  # also when reading `items` raised: the loop below must end
                done.put_nowait(None)

        feeder = asyncio.create_task(feed())
        try:
            while (item := await done.get()) is not None:
                yield item
        finally:
            feeder.cancel()
        await feeder

    async def _within_deadline(self, future: Future[SampleResult]) -> SampleResult:
        if self.deadline is None:
            return await asyncio.wrap_future(future)
        try:  # on time-out, `future` is cancelled if it has not started (a running one cannot)
            return await asyncio.wait_for(asyncio.wrap_future(future), self.deadline)
        except TimeoutError:
            return SampleResult(
                reward=None,
                error=f"deadline of {self.deadline:g}s exceeded",
                duration_s=self.deadline,
            )

    def trl_reward_func(
        self,
        *,
        name: str = "rewardkit",
        log: Callable[[dict[str, list[float | None]]], None] | None = None,
    ) -> TrlRewardFunc:
        """A TRL `GRPOTrainer` reward function (see `rewardkit.batch.trl_reward_func`)."""
        from rewardkit.batch._adapters import trl_reward_func

        return trl_reward_func(self, name=name, log=log)

    def trl_async_reward_func(
        self,
        *,
        name: str = "rewardkit",
        log: Callable[[dict[str, list[float | None]]], None] | None = None,
    ) -> TrlAsyncRewardFunc:
        """The `async` form of `trl_reward_func`."""
        from rewardkit.batch._adapters import trl_async_reward_func

        return trl_async_reward_func(self, name=name, log=log)

    def verl_compute_score(self) -> VerlComputeScore:
        """A verl `compute_score` function (see `rewardkit.batch.verl_compute_score`)."""
        from rewardkit.batch._adapters import verl_compute_score

        return verl_compute_score(self)


def score_sample(backend: Backend, data: SampleLike) -> SampleResult:
    """Score one sample with `backend`; a failure is an invalid result, never an exception."""
    start = time.perf_counter()
    try:
        reward, outcomes, rewards = backend.score(as_sample(data))
    except (Exception, SystemExit) as exc:  # a failing sample is a result, not a crash
        kind = "" if isinstance(exc, SampleError | ConfigError) else f"{type(exc).__name__}: "
        return SampleResult(
            reward=None, error=f"{kind}{exc}", duration_s=time.perf_counter() - start
        )
    failed = [o for o in outcomes if o.failed]
    error = "; ".join(o.error or f"{o.name}: {o.status}" for o in failed) or None
    return SampleResult(
        reward=None if failed else reward,
        outcomes=outcomes,
        rewards=rewards,
        error=error,
        duration_s=time.perf_counter() - start,
    )
