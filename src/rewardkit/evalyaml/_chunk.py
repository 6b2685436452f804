"""One chunk of eval.yaml cases, scored: each case's judges (its code, `check` and `builtin`
judges in turn in one worker process, its LLM and agent judges on the event loop), then its
reward."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit.compose import CompositionWarning, JudgeInfo, JudgeValue, compose_reward
from rewardkit.core._errors import RewardKitError
from rewardkit.core._outcome import Outcome
from rewardkit.engine._workers import (
    Finished,
    WorkerFailed,
    WorkerLimits,
    in_worker_sequence,
)
from rewardkit.evalyaml._cases import step_record
from rewardkit.evalyaml._judge import EvalJudge
from rewardkit.evalyaml._suite import EvalSuite

if TYPE_CHECKING:
    import asyncio

__all__ = ["Case", "CaseResult", "ChunkRun", "judge_value"]


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


_At = tuple[int, int]
"""A case's place in its chunk, and a judge's in the suite."""


_Asked = tuple[int, int, dict[str, Any]]
"""A judging still to do: its place (`_At`) and the record the judge sees."""


@dataclass(frozen=True)
class ChunkRun:
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
        found, coded, asks = self.sort(cases)
        judges = self.suite.judges
        done, answered = await asyncio.gather(
            in_worker_sequence(self.calls(coded), self.worker),
            asyncio.gather(*(self._ask(judges[j], r) for _, j, r in asks)),
        )
        found |= self._coded(coded, done)
        found |= {(i, j): o for (i, j, _), o in zip(asks, answered, strict=True)}
        return number, self._results(cases, found)

    def finish(
        self,
        cases: list[Case],
        found: dict[_At, Outcome],
        coded: list[_Asked],
        ended: list[Finished[Outcome]],
    ) -> list[CaseResult]:
        """The chunk's results once its worker process has run `calls(coded)` (`ended`), for
        a suite without LLM or agent judges (`found`, `coded`: from `sort`)."""
        return self._results(cases, found | self._coded(coded, ended))

    def sort(self, cases: list[Case]) -> tuple[dict[_At, Outcome], list[_Asked], list[_Asked]]:
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

    def calls(self, coded: list[_Asked]) -> list[Callable[[], Outcome]]:
        """The chunk's code judges, to run in turn in a worker process (a fresh one after a
        judge hangs or ends it), each under its own deadline."""
        return [partial(self.suite.judges[j].evaluate, r) for _, j, r in coded]

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
