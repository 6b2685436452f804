"""`Scorer`: one reward definition, many samples, concurrently and under deadlines.

A `Scorer` keeps its `Recipe` (the source and options it was loaded with): pickling a scorer,
or an adapter holding one, pickles the recipe, and unpickling loads the reward again, once
per process (`rebuild`). Sync methods work from any thread, and also inside a running event
loop (a notebook's, a trainer's): the batch then runs on a helper thread's loop.

Over 350 lines: one class with its sync, async and streaming faces and the adapters built on
it, all over one scheduling path (`_chunked`).
"""

from __future__ import annotations

import asyncio
import math
import os
import weakref
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from itertools import islice
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from rewardkit.batch._backends import (
    Backend,
    EvalBackend,
    FunctionsBackend,
    TestsDirBackend,
    load_backend,
    score_sample,
)
from rewardkit.batch._fast import fast_eval_scorer, fast_scorer
from rewardkit.batch._result import SampleResult
from rewardkit.batch._sample import Sample
from rewardkit.batch._sizes import ChunkSizes
from rewardkit.core._errors import ConfigError
from rewardkit.core._outcome import ErrorPolicy

if TYPE_CHECKING:
    from rewardkit.batch._adapters import (
        LogHook,
        TrlAsyncRewardFunc,
        TrlRewardFunc,
        VerlComputeScore,
    )
    from rewardkit.batch._forked import ForkedPool

__all__ = ["MEMORY_MIB", "ON_ERROR", "Recipe", "SampleLike", "Scorer"]

MEMORY_MIB = 4096
"""By default, how much a worker process may grow while scoring a sample (with a deadline)."""

ON_ERROR: tuple[ErrorPolicy, ...] = ("fail", "zero", "omit")
"""How a failed judge counts in `load(on_error=...)` (the first is the default)."""
SampleLike = Sample | Mapping[str, Any]
"""A `Sample`, or a mapping of its fields."""
_T = TypeVar("_T")


@dataclass(frozen=True)
class Recipe:
    """How a scorer was loaded: enough to load it again in another process (picklable).

    Reward functions travel by reference with `pickle` (define them at a module's top level)
    and by value with `cloudpickle`.
    """

    source: str | tuple[tuple[str, Callable[..., Any]], ...]
    """An absolute path, or the reward functions by judge name."""
    reward: Mapping[str, Any] | None
    deadline: float | None
    max_concurrent: int
    memory_mib: int
    on_error: ErrorPolicy
    token: str
    """Names the scorer, so that a process loads it once however often it is unpickled."""

    def build(self, backend: Backend | None = None) -> Scorer:
        """A new scorer (on `backend`, else loaded from the source)."""
        if backend is None:
            source = self.source if isinstance(self.source, str) else dict(self.source)
            backend = load_backend(source, self.reward)
        scorer = Scorer(
            backend,
            deadline=self.deadline,
            max_concurrent=self.max_concurrent,
            memory_mib=self.memory_mib,
            on_error=self.on_error,
            recipe=self,
        )
        _LOADED[self.token] = scorer
        return scorer

    def load(self) -> Scorer:
        """This process's scorer for the recipe: loaded on first use, then shared."""
        scorer = _LOADED.get(self.token)
        if scorer is None or scorer.owner != os.getpid() or scorer.closed:
            scorer = self.build()
            _KEPT[self.token] = scorer
        return scorer


_LOADED: weakref.WeakValueDictionary[str, Scorer] = weakref.WeakValueDictionary()
"""Every live scorer by recipe token, so that unpickling in its own process finds it."""
_KEPT: dict[str, Scorer] = {}
"""Scorers loaded by unpickling: kept for the process's life, as trainers unpickle a reward
function once per task and must not load the reward each time."""


def rebuild(recipe: Recipe) -> Scorer:
    """Unpickle a `Scorer`: this process's scorer for `recipe`."""
    return recipe.load()


class Scorer:
    """Scores samples with one loaded reward; build it with `rewardkit.load`.

    A sample that fails (a bad field, a judge error) or outlasts the deadline gets an invalid
    `SampleResult` (`reward=None`); it never raises and never scores a silent 0. Without a
    deadline, samples run on worker threads of this process (the fast path). With one, they
    run in forked worker processes (see `_forked`), started at load, in chunks: the deadline
    kills a sample's worker, and a sample that exits the process or exhausts its memory is
    invalid alone. An eval.yaml with code or `check` judges always runs in them, as those
    judges must be killable (without a deadline, each judge has the default judge timeout).
    `close()` (or `with`) stops those processes; so does exiting.
    """

    def __init__(
        self,
        backend: Backend,
        *,
        deadline: float | None,
        max_concurrent: int,
        memory_mib: int = MEMORY_MIB,
        on_error: ErrorPolicy = "fail",
        recipe: Recipe | None = None,
    ) -> None:
        self.backend = backend
        self.deadline = deadline
        self.max_concurrent = max_concurrent
        self.memory_mib = memory_mib
        self.on_error: ErrorPolicy = on_error
        self.recipe = recipe
        """How to load this scorer again (`None` when built without `load`)."""
        self.owner = os.getpid()
        self.closed = False
        self._pool = ThreadPoolExecutor(max_concurrent, thread_name_prefix="rewardkit-batch")
        self._inline: Callable[[SampleLike], SampleResult] = _fast_path(backend, on_error) or (
            partial(score_sample, backend, on_error=on_error)
        )
        """One sample scored in the calling process (what a worker process runs)."""
        self._score_one: Callable[[SampleLike], SampleResult] = self._inline
        self._score_chunk: ScoreChunk = partial(_each, self._score_one)
        self._processes: tuple[ForkedPool, ThreadPoolExecutor] | None = None
        """The pool of `score_batch(processes=N)` and its N threads."""
        self._forked: ForkedPool | None = None
        isolation = backend.isolation() if isinstance(backend, EvalBackend) else None
        if (deadline is not None or isolation is not None) and hasattr(os, "fork"):
            self._forked = self._new_pool(max_concurrent, deadline or isolation)
            self._score_one = self._forked.score
            self._score_chunk = self._forked.score_chunk
            weakref.finalize(self, self._forked.close)  # the pool does not refer to `self`

    def __repr__(self) -> str:
        kind = type(self.backend).__name__.removesuffix("Backend")
        return f"Scorer({kind}, deadline={self.deadline}, max_concurrent={self.max_concurrent})"

    def __reduce__(self) -> tuple[Callable[[Recipe], Scorer], tuple[Recipe]]:
        if self.recipe is None:
            raise TypeError("only a Scorer built by rewardkit.load can be pickled")
        return rebuild, (self.recipe,)

    @property
    def name(self) -> str:
        """The reward's name, the adapters' default: the eval.yaml's `name`, the tests
        directory's (its parent's when it is called `tests`), or the one function's."""
        backend = self.backend
        if isinstance(backend, EvalBackend):
            return backend.suite.name or backend.suite.path.parent.name
        if isinstance(backend, TestsDirBackend):
            folder = backend.plan.tests_dir.resolve()
            return folder.parent.name if folder.name == "tests" else folder.name
        names = [name for name, _, _ in backend.functions]
        return names[0] if len(names) == 1 else "rewardkit"

    def __enter__(self) -> Scorer:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker processes (with a deadline) and threads; scoring then raises."""
        self.closed = True
        if self._forked is not None:
            self._forked.close()
        if self._processes is not None:
            self._processes[0].close()
            self._processes[1].shutdown(wait=False, cancel_futures=True)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def score(self, sample: SampleLike) -> SampleResult:
        """Score one sample (see `ascore`); also inside a running event loop."""
        return _sync(self.ascore(sample))

    async def ascore(self, sample: SampleLike) -> SampleResult:
        """Score one sample on a worker, under the deadline (which counts the wait for one).

        A sample still waiting for a worker at its deadline is dropped, never scored late.
        """
        result = await self._within_deadline(self._pool.submit(self._score_one, sample))
        self._seen([result])
        return result

    def _seen(self, results: list[SampleResult]) -> None:
        """What the driver checks in results, wherever they were scored (warned once)."""
        if isinstance(self.backend, EvalBackend) and self.backend.watch.left:
            for result in results:
                if result.outcomes:  # none when the sample itself failed
                    self.backend.check_ranges(result.outcomes)

    def score_batch(
        self, samples: Iterable[SampleLike], *, processes: int | None = None
    ) -> list[SampleResult]:
        """Score `samples` concurrently (at most `max_concurrent` at once), in input order.

        With `processes=N`, in N forked worker processes that score chunks of samples (under
        the deadline, if any), for CPU-bound rewards that threads cannot speed up. The
        processes are kept for later calls with the same N until `close()`.

        Raises:
            ConfigError: `processes` is below 1.
        """
        if processes is None:
            if self._forked is None and self._in_turn():
                results = [self._inline(sample) for sample in samples]
                self._seen(results)
                return results
            return _sync(self.score_batch_async(samples))
        pool, threads = self._process_pool(processes)
        return _sync(self._in_order(samples, pool.score_chunk, threads, processes))

    def _in_turn(self) -> bool:
        """True when samples are scored fastest one after the other in this thread: no
        deadline to enforce, synchronous reward functions, and no event loop running here
        (which a function returning a coroutine would need)."""
        if not isinstance(self.backend, FunctionsBackend) or not self.backend.in_turn:
            return False
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return True
        return False

    def _new_pool(self, size: int, deadline: float | None) -> ForkedPool:
        """`size` worker process slots scoring with this reward (the caller closes them)."""
        from rewardkit.batch._forked import ForkedPool

        limit = math.inf if deadline is None else deadline
        return ForkedPool(self._inline, size=size, deadline=limit, memory_mib=self.memory_mib)

    def _process_pool(self, size: int) -> tuple[ForkedPool, ThreadPoolExecutor]:
        if size < 1:
            raise ConfigError(f"processes must be at least 1 (got {size})")
        if not hasattr(os, "fork"):
            raise ConfigError("score_batch(processes=...) needs os.fork (Linux or macOS)")
        if self._processes is None or self._processes[0].size != size:
            if self._processes is not None:
                self._processes[0].close()
                self._processes[1].shutdown(wait=False)
            pool = self._new_pool(size, self.deadline)
            self._processes = pool, ThreadPoolExecutor(size, thread_name_prefix="rewardkit-batch")
        return self._processes

    async def score_batch_async(self, samples: Iterable[SampleLike]) -> list[SampleResult]:
        """`score_batch` on the running event loop."""
        return await self._in_order(samples, self._score_chunk, self._pool, self.max_concurrent)

    async def stream(
        self, items: Iterable[tuple[Any, SampleLike]]
    ) -> AsyncIterator[tuple[Any, SampleResult]]:
        """Score `(key, sample)` pairs as they are read; yield each pair as it finishes.

        Samples go to the workers in chunks (a few at first, then about 0.1 s of work each),
        at most `max_concurrent` chunks at once, so a long input is never held in memory.
        """
        async for chunk in self.stream_chunks(items):
            for pair in chunk:
                yield pair

    async def stream_chunks(
        self, items: Iterable[tuple[Any, SampleLike]]
    ) -> AsyncIterator[list[tuple[Any, SampleResult]]]:
        """`stream`, a finished chunk of pairs at a time."""
        work = self._chunked(items, None, self._score_chunk, self._pool, self.max_concurrent)
        async for chunk in work:
            yield chunk

    async def _in_order(
        self,
        samples: Iterable[SampleLike],
        score: ScoreChunk,
        threads: ThreadPoolExecutor,
        width: int,
    ) -> list[SampleResult]:
        listed = list(samples)
        results: list[SampleResult | None] = [None] * len(listed)
        work = self._chunked(enumerate(listed), len(listed), score, threads, width)
        async for chunk in work:
            for index, result in chunk:
                results[index] = result
        return results  # type: ignore[return-value]  # every index is filled

    async def _chunked(
        self,
        items: Iterable[tuple[Any, SampleLike]],
        total: int | None,
        score: ScoreChunk,
        threads: ThreadPoolExecutor,
        width: int,
    ) -> AsyncIterator[list[tuple[Any, SampleResult]]]:
        """Chunks of `items` scored by `score`, `width` at once on threads, as they finish."""
        loop = asyncio.get_running_loop()
        source = iter(items)
        single = self.deadline is not None and self._forked is None and score == self._score_chunk
        sizes = ChunkSizes(total=total, workers=width, single=single)
        running: dict[asyncio.Future[list[SampleResult]], list[Any]] = {}
        stop: Exception | None = None  # reading `items` failed: finish what was read, then raise
        try:
            while True:
                while stop is None and len(running) < width:
                    chunk: list[tuple[Any, SampleLike]] = []
                    try:
                        chunk.extend(islice(source, sizes.next))  # keeps what came before
                    except Exception as exc:
                        stop = exc
                    if not chunk:
                        break
                    work = loop.run_in_executor(threads, score, [sample for _, sample in chunk])
                    if single:  # no process to kill: the deadline drops the sample
                        work = asyncio.ensure_future(self._chunk_deadline(work))
                    running[work] = [key for key, _ in chunk]
                if not running:
                    if stop is not None:
                        raise stop
                    return
                finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                for work in finished:
                    results = work.result()
                    sizes.learn([result.duration_s for result in results])
                    self._seen(results)
                    yield list(zip(running.pop(work), results, strict=True))
        finally:
            for work in running:
                work.cancel()

    async def _chunk_deadline(self, work: asyncio.Future[list[SampleResult]]) -> list[SampleResult]:
        try:
            return await asyncio.wait_for(work, self.deadline)
        except TimeoutError:
            return [_late(self.deadline or 0.0)]

    async def _within_deadline(self, future: Future[SampleResult]) -> SampleResult:
        if self.deadline is None:
            return await asyncio.wrap_future(future)
        try:  # on time-out, `future` is cancelled if it has not started (a running one cannot)
            return await asyncio.wait_for(asyncio.wrap_future(future), self.deadline)
        except TimeoutError:
            return _late(self.deadline)

    def trl_reward_func(
        self, *, name: str | None = None, log: LogHook | None = None
    ) -> TrlRewardFunc:
        """A TRL `GRPOTrainer` reward function (see `rewardkit.batch.trl_reward_func`)."""
        from rewardkit.batch._adapters import trl_reward_func

        return trl_reward_func(self, name=name, log=log)

    def trl_async_reward_func(
        self, *, name: str | None = None, log: LogHook | None = None
    ) -> TrlAsyncRewardFunc:
        """The `async` form of `trl_reward_func`."""
        from rewardkit.batch._adapters import trl_async_reward_func

        return trl_async_reward_func(self, name=name, log=log)

    def verl_compute_score(self, *, invalid: float = 0.0) -> VerlComputeScore:
        """A verl `compute_score` function (see `rewardkit.batch.verl_compute_score`)."""
        from rewardkit.batch._adapters import verl_compute_score

        return verl_compute_score(self, invalid=invalid)

    def verifiers_rubric(
        self, *, name: str | None = None, ground_truth: str = "answer", invalid: float | None = None
    ) -> type[Any]:
        """A verifiers `Task` mixin of rewards and metrics (see
        `rewardkit.batch._verifiers.verifiers_rubric`); needs `pip install verifiers`."""
        from rewardkit.batch._verifiers import verifiers_rubric

        return verifiers_rubric(self, name=name, ground_truth=ground_truth, invalid=invalid)

    def inspect_scorer(
        self, *, name: str | None = None, judges: bool = False, invalid: float | str | None = None
    ) -> Any:
        """An Inspect AI `Scorer` (see `rewardkit.batch._inspect.inspect_scorer`)."""
        from rewardkit.batch._inspect import inspect_scorer

        return inspect_scorer(self, name=name, judges=judges, invalid=invalid)


ScoreOne = Callable[[SampleLike], SampleResult]
ScoreChunk = Callable[[list[SampleLike]], list[SampleResult]]


def _fast_path(backend: Backend, on_error: ErrorPolicy) -> ScoreOne | None:
    """`score_sample` for the commonest rewards, faster (see `_fast`)."""
    if isinstance(backend, FunctionsBackend):
        return fast_scorer(backend, on_error)
    if isinstance(backend, EvalBackend):
        return fast_eval_scorer(backend, on_error)
    return None


def _each(
    score: Callable[[SampleLike], SampleResult], samples: list[SampleLike]
) -> list[SampleResult]:
    return [score(sample) for sample in samples]


def _late(deadline: float) -> SampleResult:
    return SampleResult(
        reward=None, error=f"deadline of {deadline:g}s exceeded", duration_s=deadline
    )


def _sync(work: Coroutine[Any, Any, _T]) -> _T:
    """Run `work` to its end: on a new loop here, or on a helper thread's when this thread
    already runs a loop (a notebook kernel's, a trainer's), which `asyncio.run` refuses."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work)
    with ThreadPoolExecutor(1, thread_name_prefix="rewardkit-loop") as helper:
        return helper.submit(asyncio.run, work).result()
