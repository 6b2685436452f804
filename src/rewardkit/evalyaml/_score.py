"""Score eval.yaml cases: each case's judges, then one reward per case, a chunk of cases at
a time.

Cases are read lazily and scored in chunks of up to `CHUNK`: a chunk's code, `check` and
`builtin` judges run in turn in one worker process (one fork per chunk, not per case),
each under its own deadline, while its LLM and agent judges run on an event loop (a suite
without them runs no event loop: a thread per chunk in flight waits on its worker). Each
chunk's results are handed on as soon as it ends, so a run of any size holds only the
chunks in flight. A case that cannot be read (a cap hit, a file leading out of it, invalid
YAML) errors each of its judges with the reason; the other cases are scored as usual.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import replace
from functools import partial
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rewardkit.core._errors import RewardKitError
from rewardkit.engine._workers import (
    WorkerLimits,
    in_worker_sequence_blocking,
)
from rewardkit.evalyaml._cases import MERGED, Layout, case_record
from rewardkit.evalyaml._chunk import Case, CaseResult, ChunkRun
from rewardkit.evalyaml._suite import EvalSuite

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "read_cases",
    "score_cases",
    "score_records",
    "score_stream",
]

CHUNK = 32
"""The most cases one worker process judges (it forks once for all of them)."""
T = TypeVar("T")


Emit = Callable[[int, list[CaseResult]], None]
"""Takes a finished chunk: its number (chunks are numbered as they are made), its results."""


def score_stream(
    suite: EvalSuite,
    case_dirs: Iterable[Path],
    count: int,
    emit: Emit,
    *,
    layout: Layout = MERGED,
    max_concurrent: int = 8,
    progress: Callable[[int], None] | None = None,
    worker: WorkerLimits = WorkerLimits(),
) -> None:
    """Read and score the `count` cases of `case_dirs` (see `Layout`), a chunk at a time, as
    they are iterated: a run holds only the chunks in flight.

    Chunks of up to `CHUNK` cases (fewer when there are few cases, so that `max_concurrent`
    chunks share them) are read and scored at most `max_concurrent` at a time (`0`: all at
    once), and `emit` takes each as it ends, in the order they end. A chunk is read by
    the thread that scores it (the event loop's, when there is one; reads are capped). A
    chunk's code, `check` and `builtin` judges run in turn in a forked worker process, each
    under `worker`'s deadline and memory cap (see `in_worker_sequence`); LLM judges share
    one model client (at most `max_concurrent` calls per model); agent judges run their
    CLIs (at most `max_concurrent` processes at once).
    """
    layout = _with_steps(suite, layout)
    chunks = (
        partial(read_cases, dirs, layout)
        for dirs in _chunks(case_dirs, _chunk_size(count, max_concurrent))
    )
    _stream(suite, chunks, max_concurrent, emit, (worker, progress))


def score_records(
    suite: EvalSuite,
    cases: Sequence[Case],
    *,
    max_concurrent: int = 8,
    progress: Callable[[int], None] | None = None,
    worker: WorkerLimits = WorkerLimits(),
) -> list[CaseResult]:
    """Run every judge on every case record (see `score_stream`); results in order."""
    found: list[tuple[int, list[CaseResult]]] = []
    size = _chunk_size(len(cases), max_concurrent)
    chunks = (part.copy for part in _chunks(cases, size))  # read already

    def keep(number: int, results: list[CaseResult]) -> None:
        found.append((number, results))

    _stream(suite, chunks, max_concurrent, keep, (worker, progress))
    return [result for _, part in sorted(found, key=lambda item: item[0]) for result in part]


def score_cases(
    suite: EvalSuite,
    case_dirs: Sequence[Path],
    *,
    layout: Layout = MERGED,
    max_concurrent: int = 8,
    progress: Callable[[int], None] | None = None,
    worker: WorkerLimits = WorkerLimits(),
) -> list[CaseResult]:
    """Build each case's record (see `Layout`), then score it (see `score_records`)."""
    return score_records(
        suite,
        read_cases(case_dirs, _with_steps(suite, layout)),
        max_concurrent=max_concurrent,
        progress=progress,
        worker=worker,
    )


def _with_steps(suite: EvalSuite, layout: Layout) -> Layout:
    """`layout`, reading the suite's `execution.steps` when it names none."""
    return layout if layout.steps else replace(layout, steps=suite.steps)


def _read_case(case_dir: Path, layout: Layout) -> Case:
    """The case's id and record, or the error that kept it from being read."""
    try:
        return case_dir.name, case_record(case_dir, layout=layout)
    except (RewardKitError, OSError) as exc:
        return case_dir.name, exc


def read_cases(case_dirs: Iterable[Path], layout: Layout) -> list[Case]:
    return [_read_case(case_dir, layout) for case_dir in case_dirs]


def _chunk_size(count: int, limit: int) -> int:
    """`CHUNK`, or fewer so that `limit` chunks at once share `count` cases."""
    return CHUNK if limit <= 0 else max(1, min(CHUNK, -(-count // limit)))


def _chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    source = iter(items)
    while chunk := list(islice(source, size)):
        yield chunk


def _stream(
    suite: EvalSuite,
    chunks: Iterator[Callable[[], list[Case]]],
    limit: int,
    emit: Emit,
    limits: tuple[WorkerLimits, Callable[[int], None] | None],
) -> None:
    """Read and score `chunks`, at most `limit` at a time, handing each to `emit` as it ends:
    on an event loop when some judge calls a model or an agent, else on threads that each
    wait on a chunk's worker process (a run then never loads `asyncio`)."""
    if any(judge.kind in ("llm", "agent") for judge in suite.judges):
        import asyncio

        asyncio.run(_stream_async(suite, chunks, limit, emit, limits))
        return
    run = ChunkRun(suite, suite.judge_info, None, None, *limits)
    finished: queue.SimpleQueue[tuple[int, Callable[[], list[CaseResult]]] | BaseException]
    finished = queue.SimpleQueue()

    def judge(number: int, cases: list[Case], found: Any, coded: Any) -> None:
        """A thread's whole work: wait on the chunk's worker process, the interpreter lock
        free meanwhile (reading cases and composing rewards stay on the calling thread:
        threads taking turns at the lock for them cost more than the work)."""
        try:
            ended = in_worker_sequence_blocking(run.calls(coded), run.worker)
            finished.put((number, partial(run.finish, cases, found, coded, ended)))
        except BaseException as exc:
            finished.put(exc)

    def emit_one() -> None:
        ended = finished.get()
        if isinstance(ended, BaseException):
            raise ended
        number, results = ended
        emit(number, results())

    running = 0
    for number, read in enumerate(chunks):
        if 0 < limit <= running:
            emit_one()
            running -= 1
        cases = read()
        found, coded, _ = run.sort(cases)
        threading.Thread(target=judge, args=(number, cases, found, coded), daemon=True).start()
        running += 1
    for _ in range(running):
        emit_one()


async def _stream_async(
    suite: EvalSuite,
    chunks: Iterator[Callable[[], list[Case]]],
    limit: int,
    emit: Emit,
    limits: tuple[WorkerLimits, Callable[[int], None] | None],
) -> None:
    """`_stream` on an event loop, for suites with LLM or agent judges."""
    import asyncio

    async with _clients(suite, limit) as client:
        agents = asyncio.Semaphore(limit) if limit > 0 else None
        run = ChunkRun(suite, suite.judge_info, client, agents, *limits)
        running: set[asyncio.Task[tuple[int, list[CaseResult]]]] = set()
        for number, read in enumerate(chunks):
            if 0 < limit <= len(running):
                running = await _emit_done(running, emit)
            running.add(asyncio.create_task(run.chunk(number, read)))
        while running:
            running = await _emit_done(running, emit)


async def _emit_done(
    running: set[asyncio.Task[tuple[int, list[CaseResult]]]], emit: Emit
) -> set[asyncio.Task[tuple[int, list[CaseResult]]]]:
    import asyncio

    done, pending = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
    for task in done:
        emit(*task.result())
    return pending


def _clients(suite: EvalSuite, limit: int) -> AbstractAsyncContextManager[Any]:
    """The run's model client when it has LLM judges (LiteLLM loads only for its models)."""
    models = [judge for judge in suite.judges if judge.kind == "llm"]
    if not models:
        return nullcontext()
    from rewardkit.evalyaml._llm_judge import judge_model
    from rewardkit.models import ModelClient
    from rewardkit.models._litellm import preload

    preload([judge_model(judge) for judge in models])
    client: AbstractAsyncContextManager[Any] = ModelClient(max_concurrent=limit)
    return client
