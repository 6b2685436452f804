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
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, replace
from functools import partial
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rewardkit.compose import (
    CompositionWarning,
    JudgeInfo,
    JudgeValue,
    compose_reward,
)
from rewardkit.core._errors import RewardKitError
from rewardkit.core._outcome import Outcome
from rewardkit.engine._workers import (
    Finished,
    WorkerFailed,
    WorkerLimits,
    in_worker_sequence,
    in_worker_sequence_blocking,
)
from rewardkit.evalyaml._cases import MERGED, Layout, case_record, step_record
from rewardkit.evalyaml._judge import EvalJudge
from rewardkit.evalyaml._suite import EvalSuite

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "Case",
    "CaseResult",
    "judge_value",
    "read_cases",
    "score_cases",
    "score_records",
    "score_stream",
]

CHUNK = 32
"""The most cases one worker process judges (it forks once for all of them)."""
T = TypeVar("T")


@dataclass(frozen=True)
class CaseResult:
    """One case: every judge's outcome (in judge order) and the composed reward."""

    case_id: str
    outcomes: tuple[Outcome, ...]
    reward: float
    note: str | None = None
    """Why the reward could not be composed and is 0.0 (e.g. the formula failed), if so."""

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.failed]


def judge_value(outcome: Outcome) -> JudgeValue:
    """An outcome as composition sees it: bools stay bools; skips and errors have no value."""
    value = outcome.raw if isinstance(outcome.raw, bool) else outcome.value
    return JudgeValue(value=value if outcome.status == "scored" else None, errored=outcome.failed)


Case = tuple[str, dict[str, Any] | Exception]
"""A case id and its record, or the error that kept it from being read."""
Emit = Callable[[int, list[CaseResult]], None]
"""Takes a finished chunk: its number (chunks are numbered as they are made), its results."""
_At = tuple[int, int]
"""A case's place in its chunk, and a judge's in the suite."""
_Asked = tuple[int, int, dict[str, Any]]
"""A judging still to do: its place (`_At`) and the record the judge sees."""


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
    run = _Run(suite, suite.judge_info, None, None, *limits)
    finished: queue.SimpleQueue[tuple[int, list[CaseResult]] | BaseException] = queue.SimpleQueue()

    def score(number: int, read: Callable[[], list[Case]]) -> None:
        try:
            finished.put(run.chunk_blocking(number, read))
        except BaseException as exc:
            finished.put(exc)

    def emit_one() -> None:
        ended = finished.get()
        if isinstance(ended, BaseException):
            raise ended
        emit(*ended)

    running = 0
    for number, read in enumerate(chunks):
        if 0 < limit <= running:
            emit_one()
            running -= 1
        threading.Thread(target=score, args=(number, read), daemon=True).start()
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
        run = _Run(suite, suite.judge_info, client, agents, *limits)
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


@dataclass(frozen=True)
class _Run:
    """What every chunk of a run shares."""

    suite: EvalSuite
    info: Mapping[str, JudgeInfo]
    client: Any
    """The model client, when the suite has LLM judges."""
    agents: asyncio.Semaphore | None
    worker: WorkerLimits
    progress: Callable[[int], None] | None

    async def chunk(
        self, number: int, read: Callable[[], list[Case]]
    ) -> tuple[int, list[CaseResult]]:
        """Read and score one chunk of cases; `number` is passed through."""
        import asyncio

        cases = read()
        found, coded, asks = self._sorted(cases)
        judges = self.suite.judges
        done, answered = await asyncio.gather(
            in_worker_sequence(self._calls(coded), self.worker),
            asyncio.gather(*(self._ask(judges[j], r) for _, j, r in asks)),
        )
        found |= self._coded(coded, done)
        found |= {(i, j): o for (i, j, _), o in zip(asks, answered, strict=True)}
        return number, self._results(cases, found)

    def chunk_blocking(
        self, number: int, read: Callable[[], list[Case]]
    ) -> tuple[int, list[CaseResult]]:
        """`chunk` for a suite without LLM or agent judges, waiting in this thread."""
        cases = read()
        found, coded, _ = self._sorted(cases)
        found |= self._coded(coded, in_worker_sequence_blocking(self._calls(coded), self.worker))
        return number, self._results(cases, found)

    def _sorted(self, cases: list[Case]) -> tuple[dict[_At, Outcome], list[_Asked], list[_Asked]]:
        """The outcomes known without judging (an unreadable case, a missing step); the
        judgings left for a worker process; those for a model or an agent."""
        found: dict[_At, Outcome] = {}
        coded: list[_Asked] = []
        asks: list[_Asked] = []
        for i, (_, record) in enumerate(cases):
            for j, judge in enumerate(self.suite.judges):
                seen = _judged(judge, record)
                if isinstance(seen, Outcome):
                    found[i, j] = seen
                else:
                    (asks if judge.kind in ("llm", "agent") else coded).append((i, j, seen))
        return found, coded, asks

    def _results(self, cases: list[Case], found: dict[_At, Outcome]) -> list[CaseResult]:
        judges = self.suite.judges
        return [
            self._result(
                case_id, tuple(_stepped(judges[j], found[i, j]) for j in range(len(judges)))
            )
            for i, (case_id, _) in enumerate(cases)
        ]

    def _result(self, case_id: str, outcomes: tuple[Outcome, ...]) -> CaseResult:
        values = {o.name: judge_value(o) for o in outcomes}
        notes: list[str] = []
        reward = compose_reward(values, self.suite.reward, self.info, on_failure=notes.append)
        if notes:  # shown to API callers; `rewardkit eval` shows the case's note instead
            warnings.warn(notes[0], CompositionWarning, stacklevel=2)
        return CaseResult(case_id, outcomes, reward, notes[0] if notes else None)

    def _calls(self, coded: list[_Asked]) -> list[Callable[[], Outcome]]:
        """The chunk's code judges, to run in turn in a worker process (a fresh one after a
        judge hangs or ends it), each under its own deadline."""
        return [partial(self.suite.judges[j].evaluate, r) for _, j, r in coded]

    def _coded(self, coded: list[_Asked], ended: list[Finished[Outcome]]) -> dict[_At, Outcome]:
        """The code judges' outcomes: a worker's failure is its judge's own outcome."""
        found = {}
        for (i, j, _), done in zip(coded, ended, strict=True):
            try:
                found[i, j] = done.get()
            except WorkerFailed as exc:
                name = self.suite.judges[j].name
                found[i, j] = Outcome(name=name, status=exc.status, error=f"{name}: {exc}")
        if self.progress is not None and coded:
            self.progress(len(coded))
        return found

    async def _ask(self, judge: EvalJudge, record: dict[str, Any]) -> Outcome:
        """An LLM or agent judge's outcome, on the event loop."""
        base_dir = self.suite.path.parent
        if judge.kind == "agent":
            from rewardkit.evalyaml._agent_judge import evaluate_agent

            outcome = await evaluate_agent(judge, record, base_dir, self.agents)
        else:
            from rewardkit.evalyaml._llm_judge import evaluate_llm

            outcome = await evaluate_llm(judge, record, self.client, base_dir)
        if self.progress is not None:
            self.progress(1)
        return outcome


def _judged(judge: EvalJudge, record: dict[str, Any] | Exception) -> dict[str, Any] | Outcome:
    """The record `judge` sees (with `step:`, the step's: `step_record`), or its outcome when
    there is none: the case could not be read, or it has no record of that step. The harness
    scores the whole case then; a step never reached is an error here, never judged on the
    final step's transcript."""
    if isinstance(record, Exception):
        return _unreadable(judge.name, record)
    if judge.step is None:
        return record
    scoped = step_record(record, judge.step)
    if scoped is not None:
        return scoped
    where = Path(str(record.get("case_path") or record.get("case_id"))) / "steps" / judge.step
    return Outcome(
        name=judge.name,
        status="error",
        description=judge.description,
        error=(
            f"step {judge.step!r} has no record in this case: {where}/ does not exist (the run "
            f"stopped before that step, or is not a multi-step run)"
        ),
    )


def _stepped(judge: EvalJudge, outcome: Outcome) -> Outcome:
    """A step judge's outcome names its step (`extra["step"]`), as the harness's does."""
    if judge.step is None:
        return outcome
    return replace(outcome, extra={**outcome.extra, "step": judge.step})


def _unreadable(name: str, error: Exception) -> Outcome:
    why = str(error) if isinstance(error, RewardKitError) else f"{type(error).__name__}: {error}"
    return Outcome(name=name, status="error", error=f"case could not be read: {why}")


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
