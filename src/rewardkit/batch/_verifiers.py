"""verifiers (prime-rl's environments): a reward as a `Task`'s `@vf.reward`s and `@vf.metric`s.

verifiers 0.4 (`verifiers.v1`) has no `Rubric` class any more: a task scores a rollout with
its `@vf.reward(weight=w)` methods, summed into `trace.reward` as Σ score · weight, and its
`@vf.metric` methods, recorded unweighted in `trace.metrics`; `Task.score(trace, runtime)`
awaits them all when a rollout closes. `verifiers_rubric` builds a mixin class of such
methods for one `Scorer` (docs/verifiers.md):

- a weighted mean of judges (`formula: weighted` with `gate: false`, `judge: NAME`, or one
  reward function) becomes one reward per judge, named by it, weighted by its share of the
  weights, scoring its normalized value: verifiers' sum is then our reward;
- any other composition (a formula, the default mean, a gate, `on_error="omit"`, a judge
  with `if:`, a tests dir) is one reward named like the scorer, weight 1, scoring our reward,
  and each judge's value is a metric.

Each rollout is scored once, whatever the number of methods: `score` scores it before the
methods run and they all read that result.
"""

from __future__ import annotations

import contextvars
import importlib
import math
import warnings
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from rewardkit.batch._backends import EvalBackend, FunctionsBackend
from rewardkit.batch._result import SampleResult

if TYPE_CHECKING:
    from rewardkit.batch._scorer import Scorer
    from rewardkit.compose import JudgeInfo, RewardBlock

__all__ = ["RubricSpec", "VerifiersRubric", "sample_of", "verifiers_rubric"]

_SCORED: contextvars.ContextVar[tuple[str, SampleResult] | None] = contextvars.ContextVar(
    "rewardkit_verifiers_scored", default=None
)
"""The rollout `Task.score` is scoring (its trace id) and its result, read by every method."""
_KEPT_FIELDS = ("idx", "id", "name")
"""`vf.TaskData`'s own fields that go into a sample's `metadata` (the rest are runtime's)."""
_TOLERANCE = 1e-9
"""How far verifiers' weighted sum may be from the reward (float rounding is ~1e-16)."""

_Hook = Callable[[Any, Any, Any], Coroutine[Any, Any, Any]]


class VerifiersRubric:
    """A verifiers `Task` mixin scoring rollouts with a rewardkit reward.

    Build it with `Scorer.verifiers_rubric()` and put it before `vf.Task` in your task's
    bases: `class MathTask(Rubric, vf.Task[MathData])`. It scores each rollout once, in
    `score`, then verifiers runs its reward and metric methods on that result.
    """

    rewardkit_rubric: ClassVar[RubricSpec]
    data: Any
    """The task's row, a `vf.TaskData` (set by `vf.Task`)."""

    async def score(self, trace: Any, runtime: Any = None) -> None:
        """Score the rollout once, then let `vf.Task.score` record every reward and metric."""
        parent: Any = super()
        if getattr(self, "scoring_deferred", False):  # verifiers then runs no task reward
            await parent.score(trace, runtime)
            return
        result = await self.rewardkit_rubric.result(self.data, trace)
        token = _SCORED.set((trace.id, result))
        try:
            await parent.score(trace, runtime)
        finally:
            _SCORED.reset(token)


class RubricSpec:
    """What one `verifiers_rubric` class scores with, and how results become floats."""

    def __init__(
        self,
        scorer: Scorer,
        *,
        name: str,
        ground_truth: str,
        invalid: float | None,
        weights: Mapping[str, float] | None,
    ) -> None:
        self.scorer = scorer
        self.name = name
        """The composed reward's name, and the prefix of the `invalid` metric."""
        self.ground_truth = ground_truth
        """The task-data field holding the reference answer."""
        self.invalid = invalid
        """What an invalid sample scores; `None`: the rollout fails (a `vf.TaskError`)."""
        self.weights = weights
        """Judge → verifiers weight when the reward is split by judge, else `None`."""
        self.warned = False

    def __repr__(self) -> str:
        return f"RubricSpec({self.name!r}, {self.scorer!r}, weights={self.weights})"

    async def result(self, data: Any, trace: Any) -> SampleResult:
        """Score one rollout; a valid result that verifiers' sum cannot reproduce is invalid."""
        result = await self.scorer.ascore(sample_of(data, trace, self.ground_truth))
        if result.reward is None or self.weights is None:
            return result
        parts = _parts(self.scorer, self.weights, result)
        total = sum(parts[j] * w for j, w in self.weights.items()) if parts else math.nan
        if abs(total - result.reward) <= _TOLERANCE:
            return result
        error = (
            f"the judges' weighted sum ({total:.6g}) is not the reward ({result.reward:.6g}) "
            "on this rollout (a weighted judge has no value), so verifiers cannot sum it"
        )
        return replace(result, reward=None, error=error)

    def reward(self, result: SampleResult, judge: str | None) -> float:
        """The composed reward (`judge=None`) or one judge's part of it; for an invalid
        sample, `invalid` (or the rollout fails)."""
        if result.reward is None:
            return self._on_invalid(result)
        if judge is None or self.weights is None:
            return result.reward
        return _parts(self.scorer, self.weights, result)[judge]

    def metrics(self, result: SampleResult) -> dict[str, float]:
        """Every judge's value that is not a reward (absent without one), and whether the
        sample is invalid (1.0) or not (0.0) as `<name>/invalid`."""
        shown = {
            judge: float(value)
            for judge, value in result.judges.items()
            if value is not None
            and math.isfinite(value)
            and (self.weights is None or judge not in self.weights)
        }
        return {**shown, f"{self.name}/invalid": 0.0 if result.valid else 1.0}

    def _on_invalid(self, result: SampleResult) -> float:
        if self.invalid is None:
            raise ValueError(
                f"rewardkit: invalid sample ({result.error}); verifiers records the rollout as "
                "failed. Pass verifiers_rubric(invalid=0.0) to score such rollouts instead."
            )
        if not self.warned:
            self.warned = True
            warnings.warn(
                f"rewardkit: an invalid sample scored {self.invalid} for verifiers "
                f"({result.error}); later ones are not reported, see the "
                f"'{self.name}/invalid' metric.",
                RuntimeWarning,
                stacklevel=2,
            )
        return self.invalid


def verifiers_rubric(
    scorer: Scorer,
    *,
    name: str | None = None,
    ground_truth: str = "answer",
    invalid: float | None = None,
) -> type[VerifiersRubric]:
    """A verifiers `Task` mixin whose `@vf.reward`s and `@vf.metric`s are `scorer`'s reward.

    verifiers 0.4 scores a rollout with its task's reward methods (`trace.reward` = Σ score ·
    weight) and metric methods. When the reward is a weighted mean that verifiers' sum can
    reproduce (`formula: weighted` with `gate: false`, `judge: NAME`, or one reward
    function), each judge is a reward of its own, named by it, with its share of the
    weights; otherwise one reward named `name` (weight 1) is the composed reward, and every
    judge's value is a metric. Either way `trace.reward` is `scorer.score(sample).reward`.

    A rollout becomes a sample: `messages` = the trace's messages, `completion` = its last
    reply, `prompt` = the task's, `ground_truth` = the task-data field `ground_truth`, and
    `metadata` = the task data's other fields (a `workspace` field fills `workspace`).

    Args:
        name: the composed reward's name (default `scorer.name`).
        ground_truth: the task-data field holding the reference answer.
        invalid: what an invalid sample (e.g. a failed judge under `on_error="fail"`)
            scores, with a `RuntimeWarning` the first time. `None` (the default): the
            rollout fails instead, recorded by verifiers as a `TaskError` with our error.

    Raises:
        ImportError: verifiers is not installed (`pip install verifiers`).
    """
    vf = _verifiers()
    spec = RubricSpec(
        scorer,
        name=name or scorer.name,
        ground_truth=ground_truth,
        invalid=invalid,
        weights=_weights(scorer),
    )
    namespace: dict[str, Any] = {
        "rewardkit_rubric": spec,
        "__module__": __name__,
        "__doc__": f"The rewardkit reward {spec.name!r} as verifiers rewards and metrics.",
    }
    if spec.weights is None:
        namespace["_rewardkit_reward"] = vf.reward(_reward(spec.name, None), weight=1.0)
    else:
        for i, (judge, weight) in enumerate(spec.weights.items()):
            namespace[f"_rewardkit_reward_{i}"] = vf.reward(_reward(judge, judge), weight=weight)
    namespace["_rewardkit_metrics"] = vf.metric(_metrics(f"{spec.name}/judges"))
    rubric: type[VerifiersRubric] = type("RewardkitRubric", (VerifiersRubric, vf.Task), namespace)
    return rubric


def sample_of(data: Any, trace: Any, ground_truth: str) -> dict[str, Any]:
    """The sample a rollout is: its messages and last reply, and the task's data."""
    fields: dict[str, Any] = data.model_dump(mode="json", exclude_none=True)
    base = _base_fields()
    truth = fields.pop(ground_truth, None)
    prompt = fields.get("prompt")
    metadata = {k: v for k, v in fields.items() if k not in base or k in _KEPT_FIELDS}
    sample: dict[str, Any] = {
        "prompt": prompt,
        "completion": trace.last_reply,
        "ground_truth": truth,
        "metadata": metadata,
    }
    messages = [m.model_dump(mode="json", exclude_none=True) for m in trace.messages]
    if messages:
        sample["messages"] = messages
    if isinstance(metadata.get("workspace"), str):
        sample["workspace"] = metadata.pop("workspace")
    return sample


async def _scored(self: VerifiersRubric, task: Any, trace: Any) -> SampleResult:
    """The result `score` made for this rollout, else (a method called alone) a new one."""
    scored = _SCORED.get()
    if scored is not None and scored[0] == trace.id:
        return scored[1]
    return await self.rewardkit_rubric.result(task, trace)


def _reward(name: str, judge: str | None) -> _Hook:
    async def reward(self: VerifiersRubric, task: Any, trace: Any) -> float:
        return self.rewardkit_rubric.reward(await _scored(self, task, trace), judge)

    reward.__name__ = reward.__qualname__ = name  # verifiers' key for it in trace.rewards
    return reward


def _metrics(name: str) -> _Hook:
    async def metrics(self: VerifiersRubric, task: Any, trace: Any) -> dict[str, float]:
        return self.rewardkit_rubric.metrics(await _scored(self, task, trace))

    metrics.__name__ = metrics.__qualname__ = name  # a mapping: recorded under its keys
    return metrics


def _weights(scorer: Scorer) -> dict[str, float] | None:
    """Judge → verifiers weight when verifiers' weighted sum is always our reward, else None.

    That needs a weighted mean over judges that always have a value: no gate (a `False`
    zeroes the whole reward), no `if:`, and no `on_error="omit"` (a judge left out is
    renormalized away, which a fixed weight cannot do).
    """
    found = _composition(scorer)
    if found is None or scorer.on_error == "omit":
        return None
    block, judges, conditioned = found
    if block is None:
        picked = {judges[0]: 1.0} if len(judges) == 1 else {}
    elif block.gate and len(judges) > 1:
        return None
    elif block.judge is not None:
        picked = {block.judge: 1.0}
    elif block.expression is None:
        weights = {j: w for j, w in block.weights.items() if j in judges and w > 0}
        total = sum(weights.values())
        picked = {j: w / total for j, w in weights.items()}
    else:
        return None
    if not picked or conditioned & picked.keys():
        return None
    return picked


def _composition(scorer: Scorer) -> tuple[RewardBlock | None, tuple[str, ...], set[str]] | None:
    """The reward block, the judge names and those with `if:`; None for a tests dir."""
    backend = scorer.backend
    if isinstance(backend, FunctionsBackend):
        return backend.block, tuple(name for name, _, _ in backend.functions), set()
    if isinstance(backend, EvalBackend):
        suite = backend.suite
        conditioned = {j.name for j in suite.judges if j.condition is not None}
        return suite.reward, tuple(j.name for j in suite.judges), conditioned
    return None


def _info(scorer: Scorer) -> tuple[RewardBlock | None, Mapping[str, JudgeInfo]]:
    backend = scorer.backend
    if isinstance(backend, FunctionsBackend):
        return backend.block, backend.info
    if isinstance(backend, EvalBackend):
        return backend.suite.reward, backend.suite.judge_info
    raise TypeError(f"a tests dir's reward is never split by judge ({scorer!r})")


def _parts(scorer: Scorer, weights: Mapping[str, float], result: SampleResult) -> dict[str, float]:
    """Each weighted judge's normalized value as the composition counted it (a failed one
    under `on_error="zero"` as the bottom of its scale); a judge without one is left out."""
    from rewardkit.batch._compose import _value
    from rewardkit.compose import normalize_value
    from rewardkit.evalyaml._chunk import judge_value

    block, info = _info(scorer)
    parts: dict[str, float] = {}
    for outcome in result.outcomes:
        if outcome.name in weights:
            if outcome.failed:
                value = _value(outcome, scorer.on_error, block, info).value
            else:
                value = judge_value(outcome).value
            part = normalize_value(outcome.name, value, block=block, judges=info)
            if part is not None:
                parts[outcome.name] = part
    return parts if parts.keys() == weights.keys() else {}


def _base_fields() -> frozenset[str]:
    return frozenset(_verifiers().TaskData.model_fields)


def _verifiers() -> Any:
    try:
        return importlib.import_module("verifiers.v1")
    except ImportError as exc:
        raise ImportError(
            "Scorer.verifiers_rubric needs verifiers 0.4 or later (verifiers.v1): "
            "pip install verifiers"
        ) from exc
