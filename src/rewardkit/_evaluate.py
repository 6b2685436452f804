"""Score eval.yaml cases: each case's judges, then one reward per case, a chunk of cases at
a time; compare a run with a baseline run (the `pairwise` judge).

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

from rewardkit._errors import ConfigError, RewardKitError, UntrustedInputError
from rewardkit._outcome import Outcome
from rewardkit.compose import (
    CompositionWarning,
    JudgeInfo,
    JudgeValue,
    compose_reward,
    normalize_value,
)
from rewardkit.engine._workers import (
    Finished,
    WorkerFailed,
    WorkerLimits,
    in_worker_sequence,
    in_worker_sequence_blocking,
)
from rewardkit.judges import EvalJudge
from rewardkit.sources._cases import MERGED, Layout, case_record, given, produced, step_record
from rewardkit.sources.eval_yaml import EvalSuite, load_suite

if TYPE_CHECKING:
    import asyncio

__all__ = [
    "Bridge",
    "CaseResult",
    "bridge",
    "compare_runs",
    "judge_value",
    "load_bridge",
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
        partial(_read_cases, dirs, layout)
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
        _read_cases(case_dirs, _with_steps(suite, layout)),
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


def _read_cases(case_dirs: Iterable[Path], layout: Layout) -> list[Case]:
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
            from rewardkit.judges._eval_agent import evaluate_agent

            outcome = await evaluate_agent(judge, record, base_dir, self.agents)
        else:
            from rewardkit.judges._eval_llm import evaluate_llm

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
    from rewardkit.judges._eval_llm import judge_model
    from rewardkit.models import ModelClient
    from rewardkit.models._litellm import preload

    preload([judge_model(judge) for judge in models])
    client: AbstractAsyncContextManager[Any] = ModelClient(max_concurrent=limit)
    return client


def compare_runs(
    judge: EvalJudge,
    model: str,
    prompt: str,
    run: tuple[Sequence[Path], Layout],
    baseline: Path,
    max_concurrent: int = 8,
) -> dict[str, Any]:
    """The `pairwise` block: the run's cases against the same cases of the `baseline` run
    (`baseline/cases/<case>/`), each judged twice with positions swapped, the whole
    comparison `judge.samples` times (see `rewardkit.judges._pairwise`). A case the baseline
    lacks is an error verdict."""
    import asyncio

    from rewardkit.judges._pairwise import compare, stability, tally
    from rewardkit.models import ModelClient
    from rewardkit.models._litellm import preload

    dirs, layout = run
    base_layout = replace(layout, run=baseline)
    ours = _read_cases(dirs, layout)
    theirs = _read_cases([baseline / "cases" / d.name for d in dirs], base_layout)
    cases = [
        (case_id, record, _present(other, baseline / "cases" / case_id))
        for (case_id, record), (_, other) in zip(ours, theirs, strict=True)
    ]

    async def main() -> list[Any]:
        async with ModelClient(max_concurrent=max_concurrent) as client:
            samples = range(judge.samples)
            return await asyncio.gather(
                *(compare(client, model, prompt, cases, i) for i in samples)
            )

    preload([model])
    run_dir = layout.run or (dirs[0].parent if dirs else Path("."))
    runs = [tally(verdicts, run_dir.name, baseline.name) for verdicts in asyncio.run(main())]
    if len(runs) > 1:
        runs[0]["stability"] = stability(runs)
    return runs[0]


def _present(record: dict[str, Any] | Exception, case_dir: Path) -> dict[str, Any] | Exception:
    """A baseline case's record, or an error naming the case directory it lacks."""
    if case_dir.is_dir():
        return record
    return FileNotFoundError(f"{case_dir} does not exist: the baseline run lacks this case")


@dataclass(frozen=True)
class Bridge:
    """An eval.yaml tests directory, ready to score a Harbor workspace as its one case."""

    suite: EvalSuite
    given: Mapping[str, Any]
    """`inputs`, `annotations` and run metadata, read from the tests directory (trusted)."""


def load_bridge(tests_dir: Path, workspace: Path) -> Bridge:
    """Load `tests_dir/eval.yaml` and what the case is given, from `tests_dir` only.

    Ground truth and run metadata never come from the workspace: the agent writes it; judge
    files and modules resolve from the tests dir, never from the working directory.

    Raises:
        ConfigError: eval.yaml, or a file the case is given, is invalid.
    """
    suite = load_suite(tests_dir / "eval.yaml", root=tests_dir, untrusted=(workspace,))
    try:
        truth = given(tests_dir)
    except (UntrustedInputError, OSError) as exc:
        raise ConfigError(
            f"{exc}. Keep the files the bridge reads from the tests directory regular files "
            f"inside it, within the caps of docs/eval-yaml.md."
        ) from None
    return Bridge(suite, truth)


def bridge(
    task: Bridge,
    workspace: Path,
    max_concurrent: int,
    emit_judges: bool,
    worker: WorkerLimits = WorkerLimits(),
) -> tuple[dict[str, float], dict[str, Any], list[Outcome]]:
    """Score `workspace` as the one case of `task` (Harbor's verifier for eval.yaml tasks).

    The workspace gives only the outputs (`files`, `stdout`, `stderr`); a file there named
    like `annotations.yaml` or `run_result.json` is one more output. Returns the
    `reward.json` keys, the details and every judge's outcome.
    """
    from rewardkit.outputs.harbor import criterion_detail

    case: Case
    try:
        outputs = produced(workspace)
        record = {"case_id": workspace.name, "case_path": str(workspace), **outputs}
        case = (workspace.name, record | dict(task.given))
    except (RewardKitError, OSError) as exc:
        case = (workspace.name, exc)
    suite = task.suite
    (result,) = score_records(suite, [case], max_concurrent=max_concurrent, worker=worker)
    rewards = {"reward": round(result.reward, 4)}
    if emit_judges:
        info = suite.judge_info
        for outcome in result.outcomes:
            value = judge_value(outcome).value
            normalized = normalize_value(outcome.name, value, block=suite.reward, judges=info)
            if normalized is not None:
                rewards[outcome.name] = round(normalized, 4)
    detail = {
        "reward": {
            "score": rewards["reward"],
            "criteria": [criterion_detail(o, "omit") for o in result.outcomes],
            "kind": "eval",
        }
    }
    return rewards, detail, list(result.outcomes)
