"""The three kinds of reward a `Scorer` runs: reward functions, an eval.yaml, a tests dir.

Each backend is built once (all config validation happens then) and scores one `Sample`
synchronously on a worker thread under an error policy (see `_compose`); it raises
`SampleError` when the sample lacks what it needs.

Over 350 lines: the three backends share the `Backend` protocol and the error policy; each is
under 150 lines.
"""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import sys
import time
import warnings
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rewardkit.batch._compose import Scored, compose_one, compose_sample
from rewardkit.batch._result import SampleResult
from rewardkit.batch._sample import Sample, SampleError, as_sample
from rewardkit.core._errors import ConfigError, did_you_mean
from rewardkit.core._outcome import ErrorPolicy, Outcome
from rewardkit.engine._workers import DEFAULT_TIMEOUT, runs_inline

if TYPE_CHECKING:
    from rewardkit.compose import JudgeInfo, RewardBlock
    from rewardkit.compose._traps import ScaleWatch
    from rewardkit.engine._plan import Plan
    from rewardkit.evalyaml._suite import EvalSuite

__all__ = [
    "REFERENCE",
    "Backend",
    "EvalBackend",
    "FunctionsBackend",
    "TestsDirBackend",
    "failed",
    "finished",
    "function_at",
    "load_backend",
    "outcome_of",
    "raised",
    "score_sample",
]

_PASSED = ("ground_truth", "metadata", "trajectory", "workspace")
T = TypeVar("T")


@dataclass(frozen=True, kw_only=True)
class FunctionsBackend:
    """`@reward_function`s by judge name, composed like an eval.yaml's judges."""

    functions: tuple[tuple[str, Callable[..., Any], frozenset[str]], ...]
    """(name, function, the sample fields it accepts as keyword arguments)."""
    block: RewardBlock | None
    info: Mapping[str, JudgeInfo]

    @property
    def in_turn(self) -> bool:
        """True when every function is synchronous: samples are best scored one after the
        other in the caller's thread (threads would only take turns holding the GIL)."""
        return not any(inspect.iscoroutinefunction(fn) for _, fn, _ in self.functions)

    @classmethod
    def build(
        cls, functions: Mapping[str, Callable[..., Any]], reward: object | None
    ) -> FunctionsBackend:
        from rewardkit.compose import JudgeInfo, parse_reward_block

        if not functions:
            raise ConfigError("no reward functions given; pass a list or a dict of them")
        for name, fn in functions.items():
            if not callable(fn):
                raise ConfigError(f"reward function {name!r} is not callable (got {fn!r})")
        # A reward function's score is already in [0, 1]: map it from there, not from [1, 5].
        info = {name: JudgeInfo(name=name, score_range=(0.0, 1.0)) for name in functions}
        block = None if reward is None else parse_reward_block(reward, info, where="reward=")
        entries = tuple((name, fn, _accepted(fn)) for name, fn in functions.items())
        return cls(functions=entries, block=block, info=info)

    def score(self, sample: Sample, on_error: ErrorPolicy) -> Scored:
        messages = sample.chat()
        if len(self.functions) == 1 and self.block is None:
            ((name, fn, ok),) = self.functions
            return compose_one(self._call(name, fn, ok, messages, sample), self.info, on_error)
        outcomes = tuple(
            self._call(name, fn, ok, messages, sample) for name, fn, ok in self.functions
        )
        return compose_sample(outcomes, self.block, self.info, on_error)

    @staticmethod
    def _call(
        name: str, fn: Callable[..., Any], ok: frozenset[str], messages: Any, sample: Sample
    ) -> Outcome:
        start = time.perf_counter()
        kwargs = {k: getattr(sample, k) for k in ok}
        try:
            result = fn(messages=messages, **kwargs)
            if inspect.iscoroutine(result):
                result = asyncio.run(result)  # this worker thread's own loop
        except Exception as exc:
            return raised(name, exc, start)
        return outcome_of(name, result, start)


def outcome_of(name: str, result: Any, start: float) -> Outcome:
    """A reward function's outcome from what it returned (called at `start`)."""
    score = getattr(result, "score", result)
    problem: str | None = getattr(result, "error", None)
    if (
        problem
        or not isinstance(score, int | float)
        or getattr(result, "is_score_valid", True) is False
    ):
        why = problem or f"returned an invalid score {score!r}"
        return Outcome(name=name, status="error", error=f"{name}: {why}", duration_ms=_ms(start))
    return Outcome(
        name=name,
        status="scored",
        value=float(score),
        raw=score,
        reasoning=getattr(result, "reason", None),
        duration_ms=_ms(start),
    )


def raised(name: str, exc: Exception, start: float) -> Outcome:
    """The outcome of a reward function that raised `exc` (called at `start`)."""
    error = f"{name} raised {type(exc).__name__}: {exc}"
    return Outcome(name=name, status="error", error=error, duration_ms=_ms(start))


@dataclass(frozen=True, kw_only=True)
class EvalBackend:
    """An eval.yaml suite: each sample becomes one case record."""

    suite: EvalSuite
    watch: ScaleWatch = field(init=False, compare=False, repr=False)
    """Its code judges read on the [1, 5] default, until one returns a number below 1."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "watch", self.suite.scale_watch())

    def score(self, sample: Sample, on_error: ErrorPolicy) -> Scored:
        # The judges run as in `rewardkit eval`; the reward is composed here, under the policy.
        record = self.record(sample)
        if runs_inline() and self.programmatic:  # in a worker already: call them in turn
            outcomes = tuple(judge.evaluate(record) for judge in self.suite.judges)
        else:
            from rewardkit.evalyaml._score import score_records

            judging = replace(self.suite, reward=None)
            (result,) = score_records(judging, [("sample", record)], max_concurrent=1)
            outcomes = result.outcomes
        if len(outcomes) == 1 and self.suite.reward is None:
            return compose_one(outcomes[0], self.suite.judge_info, on_error)
        return compose_sample(outcomes, self.suite.reward, self.suite.judge_info, on_error)

    @property
    def programmatic(self) -> bool:
        """True when no judge calls a model or an agent."""
        return all(judge.kind not in ("llm", "agent") for judge in self.suite.judges)

    def isolation(self) -> float | None:
        """The deadline its samples need without one of the caller's: their code judges
        must be killable, so they run in worker processes (each judge's default timeout)."""
        coded = sum(judge.kind not in ("llm", "agent") for judge in self.suite.judges)
        return DEFAULT_TIMEOUT * coded if coded else None

    def check_ranges(self, outcomes: tuple[Outcome, ...]) -> None:
        """Warn, once per judge, when a code judge's number falls below the [1, 5] default
        (called where the results arrive, the driver, so that it shows once)."""
        for message in self.watch.see(outcomes):
            warnings.warn(message, RuntimeWarning, stacklevel=2)

    @staticmethod
    def record(sample: Sample) -> dict[str, Any]:
        """The case record judges see: the workspace's outputs plus the sample's fields.

        A rollout's workspace is the agent's: only its outputs (`files`, `stdout`,
        `stderr`) are read from it; annotations and inputs come from the sample
        (`ground_truth`, whose keys become annotations when it is a mapping, and `prompt`),
        never from files the agent could have written.
        """
        from rewardkit.evalyaml._cases import produced

        record: dict[str, Any] = {"case_id": "sample", "inputs": {}, "annotations": {}}
        if sample.workspace is not None:
            record |= {"case_path": str(sample.workspace), **produced(sample.workspace)}
        else:
            record |= {"files": {}, "stdout": None, "stderr": None}
        if sample.messages is not None or sample.completion is not None:
            record["conversation"] = sample.chat()
        text = sample.text()
        if text is not None:
            record["stdout"] = text
        if sample.prompt is not None:
            record["inputs"] = {**record["inputs"], "prompt": sample.prompt}
        if sample.ground_truth is not None:  # a mapping's keys are annotations too
            truth = sample.ground_truth
            spread = dict(truth) if isinstance(truth, Mapping) else {}
            record["annotations"] = {**spread, "ground_truth": truth}
        if sample.trajectory is not None:
            record["trajectory"] = sample.trajectory
        record["metadata"] = sample.metadata
        return record


@dataclass(frozen=True, kw_only=True)
class TestsDirBackend:
    """A Harbor tests directory: its plan is discovered once, then run on each workspace.

    The scalar reward is the `reward` key of `reward.json` when the plan has one, else the
    mean of its keys.
    """

    plan: Plan

    def score(self, sample: Sample, on_error: ErrorPolicy) -> Scored:
        from rewardkit.engine import execute_async
        from rewardkit.engine._fold import _outcomes

        if sample.workspace is None:
            raise SampleError(
                "sample has no 'workspace'; a tests directory scores a workspace directory "
                "(e.g. {'workspace': 'runs/0001'})"
            )
        if not sample.workspace.is_dir():
            raise SampleError(f"sample field 'workspace' is not a directory: {sample.workspace}")
        policy: ErrorPolicy = "zero" if on_error == "fail" else on_error
        (result,) = _on_own_loop(execute_async([self.plan], sample.workspace, on_error=policy))
        rewards = dict(result.rewards)
        reward = rewards.get("reward", sum(rewards.values()) / max(len(rewards), 1))
        outcomes = tuple(o for _, node in result.dimensions for o in _outcomes(node))
        failed = [o for o in outcomes if o.failed]
        if failed and on_error == "fail":
            error = "; ".join(o.error or f"{o.name}: {o.status}" for o in failed)
            return Scored(None, outcomes, rewards, error)
        return Scored(reward, outcomes, rewards)


Backend = FunctionsBackend | EvalBackend | TestsDirBackend


def score_sample(
    backend: Backend, data: Sample | Mapping[str, Any], *, on_error: ErrorPolicy
) -> SampleResult:
    """Score one sample with `backend`; a failure is an invalid result, never an exception."""
    start = time.perf_counter()
    try:
        scored = backend.score(as_sample(data), on_error)
    except (Exception, SystemExit) as exc:  # a failing sample is a result, not a crash
        return failed(exc, start)
    return finished(scored, start)


def finished(scored: Scored, start: float) -> SampleResult:
    """The result of a sample scored since `start` (a `perf_counter` reading)."""
    return SampleResult(
        reward=scored.reward,
        outcomes=scored.outcomes,
        rewards=scored.rewards,
        error=scored.error,
        duration_s=time.perf_counter() - start,
    )


def failed(exc: BaseException, start: float) -> SampleResult:
    """The invalid result of a sample whose scoring (begun at `start`) raised `exc`."""
    kind = "" if isinstance(exc, SampleError | ConfigError) else f"{type(exc).__name__}: "
    return SampleResult(reward=None, error=f"{kind}{exc}", duration_s=time.perf_counter() - start)


def load_backend(source: object, reward: object | None) -> Backend:
    """The backend for a tests dir, an eval.yaml (or its directory), an OpenAI grader JSON,
    or reward functions (also one `module:function` reference).

    Raises:
        ConfigError: the source is not one of these, or its configuration is wrong.
    """
    if isinstance(source, str) and REFERENCE.fullmatch(source) and not Path(source).exists():
        fn = function_at(source)
        return FunctionsBackend.build({getattr(fn, "__name__", "judge"): fn}, reward)
    if isinstance(source, str | Path):
        path = Path(source)
        if reward is not None:
            raise ConfigError("reward= composes reward functions; a file source has its own")
        if path.is_file() and path.suffix in (".yaml", ".yml"):
            return _eval(path)
        if path.is_dir() and (path / "eval.yaml").is_file():
            return _eval(path / "eval.yaml")
        if path.is_file() and path.suffix == ".json":  # an OpenAI grader (rewardkit.graders)
            from rewardkit.graders import load_reward

            grader = load_reward(path)
            return FunctionsBackend.build({grader.name: grader.function()}, None)
        if path.is_dir():
            from rewardkit.harbor._tests_dir import discover

            return TestsDirBackend(plan=discover(path))
        raise ConfigError(
            "not a tests directory or an eval.yaml. Pass a directory of criteria, an eval.yaml, "
            "or a list of @reward_function functions.",
            path=path,
        )
    if isinstance(source, Mapping):
        return FunctionsBackend.build({str(k): v for k, v in source.items()}, reward)
    if isinstance(source, list | tuple):
        named = {getattr(fn, "__name__", f"judge_{i}"): fn for i, fn in enumerate(source)}
        if len(named) < len(source):
            raise ConfigError(
                "two reward functions share a name; pass a dict {name: function} instead"
            )
        return FunctionsBackend.build(named, reward)
    if callable(source):
        return FunctionsBackend.build({getattr(source, "__name__", "judge"): source}, reward)
    raise ConfigError(
        f"cannot load a reward from {type(source).__name__}; pass a tests directory, an "
        "eval.yaml, or a list/dict of @reward_function functions"
    )


REFERENCE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
"""`module:function`, as `rewardkit score --config` and `load` take a reward function."""


def function_at(reference: str) -> Callable[..., Any]:
    """The function a `module:function` reference names, imported with the working directory
    on `sys.path` (the user's project, like an eval.yaml's code judges).

    Raises:
        ConfigError: the module cannot be imported, or has no such function.
    """
    import importlib

    module, _, name = reference.partition(":")
    here = os.getcwd()
    sys.path.insert(0, here)
    try:
        loaded = importlib.import_module(module)
    except Exception as exc:
        raise ConfigError(
            f"cannot import module {module!r} of {reference!r} (with {here} on sys.path): "
            f"{type(exc).__name__}: {exc}"
        ) from None
    finally:
        sys.path.remove(here)
    fn: Callable[..., Any] | None = getattr(loaded, name, None)
    if not callable(fn):
        names = [n for n, v in vars(loaded).items() if callable(v) and not n.startswith("_")]
        raise ConfigError(f"module {module!r} has no function {name!r}.{did_you_mean(name, names)}")
    return fn


def _eval(path: Path) -> EvalBackend:
    from rewardkit.evalyaml._suite import load_suite

    suite = load_suite(path)
    for trap in suite.traps():
        warnings.warn(trap, stacklevel=4)
    return EvalBackend(suite=suite)


def _accepted(fn: Callable[..., Any]) -> frozenset[str]:
    """The sample fields `fn` takes by keyword (all of them with `**kwargs`)."""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return frozenset(_PASSED)
    return frozenset(name for name in _PASSED if name in params)


_LOOP: list[asyncio.Runner] = []
"""A pool worker's event loop, kept from one sample to the next."""


def _on_own_loop(work: Coroutine[Any, Any, T]) -> T:
    """Run the engine's `work`: in a pool's worker process (one thread, ended by `os._exit`)
    on one loop kept for every sample, as a new loop per sample costs more than many rewards;
    elsewhere on a loop of its own."""
    if not runs_inline():
        return asyncio.run(work)
    if not _LOOP:
        _LOOP.append(asyncio.Runner())
    return _LOOP[0].run(work)


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)
