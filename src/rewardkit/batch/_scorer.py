"""`load` and `Scorer`: one reward definition, many samples, concurrently and under deadlines."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit._errors import ConfigError
from rewardkit.batch._backends import Backend, load_backend
from rewardkit.batch._result import SampleResult
from rewardkit.batch._sample import Sample, SampleError, as_sample

if TYPE_CHECKING:
    from rewardkit.batch._adapters import TrlAsyncRewardFunc, TrlRewardFunc, VerlComputeScore

__all__ = ["SampleLike", "Scorer", "load"]

SampleLike = Sample | Mapping[str, Any]
"""A `Sample`, or a mapping of its fields."""
Source = str | Path | Sequence[Callable[..., Any]] | Mapping[str, Callable[..., Any]]


def load(
    source: Source,
    *,
    reward: Mapping[str, Any] | None = None,
    deadline: float | None = None,
    max_concurrent: int = 8,
) -> Scorer:
    """Load a reward once; return a `Scorer` for many samples.

    Args:
        source: a tests directory, an eval.yaml (or its directory), or `@reward_function`s as a
            list or a `{judge name: function}` dict.
        reward: for functions only, an eval.yaml-style `reward:` mapping composing them (the
            default composition otherwise: the mean of their scores).
        deadline: seconds one sample may take; past it the sample is invalid.
        max_concurrent: samples scored at once in `score_batch`.

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
    return Scorer(load_backend(source, reward), deadline=deadline, max_concurrent=max_concurrent)


class Scorer:
    """Scores samples with one loaded reward; build it with `rewardkit.load`.

    A sample that fails (a bad field, a judge error) or outlasts the deadline gets an invalid
    `SampleResult` (`reward=None`); it never raises and never scores a silent 0. Samples run on
    worker threads; a timed-out sample's thread cannot be killed, so it keeps its slot until
    it returns (the concurrency limit always holds).
    """

    def __init__(self, backend: Backend, *, deadline: float | None, max_concurrent: int) -> None:
        self.backend = backend
        self.deadline = deadline
        self.max_concurrent = max_concurrent
        self._pool = ThreadPoolExecutor(max_concurrent, thread_name_prefix="rewardkit-batch")

    def __repr__(self) -> str:
        kind = type(self.backend).__name__.removesuffix("Backend")
        return f"Scorer({kind}, deadline={self.deadline}, max_concurrent={self.max_concurrent})"

    def score(self, sample: SampleLike) -> SampleResult:
        """Score one sample (see `ascore`)."""
        return asyncio.run(self.ascore(sample))

    async def ascore(self, sample: SampleLike) -> SampleResult:
        """Score one sample on a worker thread, under the deadline."""
        started = asyncio.get_running_loop().run_in_executor(self._pool, self._run, sample)
        return await self._within_deadline(started)

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

        async def one(key: Any, sample: SampleLike, future: asyncio.Future[SampleResult]) -> None:
            await done.put((key, await self._within_deadline(future)))

        async def feed() -> None:
            for key, sample in items:
                await slots.acquire()
                future = loop.run_in_executor(self._pool, self._run, sample)
                # The slot frees when the thread returns, not at the deadline: the limit holds.
                future.add_done_callback(lambda _: slots.release())
                task = asyncio.create_task(one(key, sample, future))
                pending.add(task)
                task.add_done_callback(pending.discard)
            while pending:
                await asyncio.wait(set(pending))
            await done.put(None)

        feeder = asyncio.create_task(feed())
        try:
            while (item := await done.get()) is not None:
                yield item
        finally:
            feeder.cancel()
        await feeder

    async def _within_deadline(self, future: asyncio.Future[SampleResult]) -> SampleResult:
        if self.deadline is None:
            return await future
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.deadline)
        except TimeoutError:
            return SampleResult(
                reward=None,
                error=f"deadline of {self.deadline:g}s exceeded",
                duration_s=self.deadline,
            )

    def _run(self, data: SampleLike) -> SampleResult:
        start = time.perf_counter()
        try:
            reward, outcomes, rewards = self.backend.score(as_sample(data))
        except Exception as exc:  # a failing sample is a result, never a crash of the batch
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
