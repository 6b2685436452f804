"""Score eval.yaml cases: every (case, judge) pair concurrently, then one reward per case;
compare a run with a baseline run (the `pairwise` judge).

A case that cannot be read (a cap hit, a file leading out of it, invalid YAML) errors each of
its judges with the reason; the other cases are scored as usual.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError, RewardKitError, UntrustedInputError
from rewardkit._outcome import Outcome
from rewardkit.compose import JudgeValue, compose_reward, normalize_value
from rewardkit.engine._leaves import limited
from rewardkit.engine._threads import in_threads
from rewardkit.engine._workers import WorkerFailed, WorkerLimits, in_worker_sequence
from rewardkit.judges import EvalJudge
from rewardkit.outputs.harbor import criterion_detail
from rewardkit.sources._cases import MERGED, Layout, case_record, given, produced
from rewardkit.sources.eval_yaml import EvalSuite, load_suite

__all__ = [
    "Bridge",
    "CaseResult",
    "bridge",
    "compare_runs",
    "judge_value",
    "load_bridge",
    "read_cases",
    "score_cases",
    "score_records",
]


@dataclass(frozen=True)
class CaseResult:
    """One case: every judge's outcome (in judge order) and the composed reward."""

    case_id: str
    outcomes: tuple[Outcome, ...]
    reward: float

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.failed]


def judge_value(outcome: Outcome) -> JudgeValue:
    """An outcome as composition sees it: bools stay bools; skips and errors have no value."""
    value = outcome.raw if isinstance(outcome.raw, bool) else outcome.value
    return JudgeValue(value=value if outcome.status == "scored" else None, errored=outcome.failed)


Case = tuple[str, dict[str, Any] | Exception]
"""A case id and its record, or the error that kept it from being read."""


def score_records(
    suite: EvalSuite,
    cases: Sequence[Case],
    *,
    max_concurrent: int = 8,
    progress: Callable[[int], None] | None = None,
    worker: WorkerLimits = WorkerLimits(),
) -> list[CaseResult]:
    """Run every judge on every case record; an unreadable case errors every judge.

    A case's code, `check` and `builtin` judges run in turn in a forked worker process, each
    under `worker`'s deadline and memory cap (at most `max_concurrent` cases at once; see
    `in_worker_sequence`); LLM judges share one model
    client (at most `max_concurrent` calls per model); agent judges run their CLIs (at most
    `max_concurrent` processes at once).
    """
    calls: list[tuple[list[int], Callable[[], Awaitable[list[Outcome]]]]] = []
    asks: list[tuple[int, EvalJudge, dict[str, Any]]] = []
    slots = 0
    for _, record in cases:
        coded: list[tuple[int, EvalJudge]] = []
        for judge in suite.judges:
            if isinstance(record, Exception):
                calls.append(([slots], partial(_unreadable, judge.name, record)))
            elif judge.kind in ("llm", "agent"):
                asks.append((slots, judge, record))
            else:
                coded.append((slots, judge))
            slots += 1
        if coded and not isinstance(record, Exception):
            judges = [judge for _, judge in coded]
            run = partial(_in_worker, judges, record, worker, progress)
            calls.append(([slot for slot, _ in coded], run))
    by_slot = asyncio.run(_run(calls, asks, suite.path.parent, max_concurrent, progress))
    outcomes = [by_slot[slot] for slot in range(slots)]
    width = len(suite.judges)
    results = []
    for i, (case_id, _) in enumerate(cases):
        mine = tuple(outcomes[i * width : (i + 1) * width])
        values = {o.name: judge_value(o) for o in mine}
        results.append(
            CaseResult(case_id, mine, compose_reward(values, suite.reward, suite.judge_info))
        )
    return results


async def _run(
    calls: list[tuple[list[int], Callable[[], Awaitable[list[Outcome]]]]],
    asks: list[tuple[int, EvalJudge, dict[str, Any]]],
    base_dir: Path,
    limit: int,
    progress: Callable[[int], None] | None,
) -> dict[int, Outcome]:
    """Outcomes by slot: `calls` in worker processes, `asks` (LLM, agent) on the event loop."""
    async with _clients(asks, limit) as client:
        agents = asyncio.Semaphore(limit) if limit > 0 else None

        async def ask(judge: EvalJudge, record: dict[str, Any]) -> Outcome:
            if judge.kind == "agent":
                from rewardkit.judges._eval_agent import evaluate_agent

                outcome = await evaluate_agent(judge, record, base_dir, agents)
            else:
                from rewardkit.judges._eval_llm import evaluate_llm

                outcome = await evaluate_llm(judge, record, client, base_dir)
            if progress is not None:
                progress(1)
            return outcome

        done, answered = await asyncio.gather(
            limited([call for _, call in calls], limit),
            asyncio.gather(*(ask(judge, record) for _, judge, record in asks)),
        )
    by_slot = {
        slot: outcome
        for (slots, _), outcomes in zip(calls, done, strict=True)
        for slot, outcome in zip(slots, outcomes, strict=True)
    }
    by_slot.update({slot: outcome for (slot, _, _), outcome in zip(asks, answered, strict=True)})
    return by_slot


def _clients(
    asks: list[tuple[int, EvalJudge, dict[str, Any]]], limit: int
) -> AbstractAsyncContextManager[Any]:
    """The run's model client when it has LLM judges (LiteLLM loads only for its models)."""
    if not any(judge.kind == "llm" for _, judge, _ in asks):
        return nullcontext()
    from rewardkit.judges._eval_llm import judge_model
    from rewardkit.models import ModelClient
    from rewardkit.models._litellm import preload

    preload([judge_model(judge) for _, judge, _ in asks if judge.kind == "llm"])
    client: AbstractAsyncContextManager[Any] = ModelClient(max_concurrent=limit)
    return client


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
    cases = read_cases(case_dirs, layout, max_concurrent)
    return score_records(
        suite, cases, max_concurrent=max_concurrent, progress=progress, worker=worker
    )


def read_cases(case_dirs: Sequence[Path], layout: Layout, max_concurrent: int = 8) -> list[Case]:
    """Each case's id and record (or the error that kept it from being read), in threads."""
    reads = [partial(_read_case, d, layout) for d in case_dirs]
    return asyncio.run(in_threads(reads, max_concurrent))


def _read_case(case_dir: Path, layout: Layout) -> Case:
    try:
        return case_dir.name, case_record(case_dir, layout=layout)
    except (RewardKitError, OSError) as exc:
        return case_dir.name, exc


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
    from rewardkit.judges._pairwise import compare, stability, tally
    from rewardkit.models import ModelClient
    from rewardkit.models._litellm import preload

    dirs, layout = run
    base_layout = replace(layout, run=baseline)
    ours = read_cases(dirs, layout, max_concurrent)
    theirs = read_cases([baseline / "cases" / d.name for d in dirs], base_layout, max_concurrent)
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


async def _in_worker(
    judges: list[EvalJudge],
    record: dict[str, Any],
    worker: WorkerLimits,
    progress: Callable[[int], None] | None,
) -> list[Outcome]:
    """A case's code judges, in turn, in a worker process (a fresh one after a judge hangs
    or ends it): each judge under its own deadline, a failure its own outcome."""
    calls = [partial(judge.evaluate, record) for judge in judges]
    outcomes = []
    for judge, done in zip(judges, await in_worker_sequence(calls, worker), strict=True):
        try:
            outcome = done.get()
        except WorkerFailed as exc:
            outcome = Outcome(name=judge.name, status=exc.status, error=f"{judge.name}: {exc}")
        outcomes.append(outcome)
    if progress is not None:
        progress(len(judges))
    return outcomes


async def _unreadable(name: str, error: Exception) -> list[Outcome]:
    why = str(error) if isinstance(error, RewardKitError) else f"{type(error).__name__}: {error}"
    return [Outcome(name=name, status="error", error=f"case could not be read: {why}")]


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
    `reward.json` keys, the details and the failed outcomes.
    """
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
    return rewards, detail, result.failures
