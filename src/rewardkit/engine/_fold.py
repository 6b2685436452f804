"""Fold the outcomes of a plan's leaves into scores, level by level.

Group scores are rounded to 4 dp before they are passed up, and every key of `reward.json`
is rounded to 4 dp, so RewardKit's results are reproduced digit for digit while no key is
left unrounded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rewardkit.compose import Component, aggregate
from rewardkit.core._outcome import ErrorPolicy, JudgeRun, Outcome
from rewardkit.engine._plan import Extra, Group, Leaf, Node, Plan, Scoring

__all__ = ["GroupResult", "LeafResult", "NodeResult", "RunResult", "fold"]

DIGITS = 4


@dataclass(frozen=True)
class LeafResult:
    leaf: Leaf
    outcomes: tuple[Outcome, ...]
    score: float
    """Unrounded, as it enters its parent."""
    detail: Mapping[str, Any]
    """What a judge adds to the leaf's details (`judge`, `usage`, ...)."""


@dataclass(frozen=True)
class GroupResult:
    group: Group
    children: tuple[NodeResult, ...]
    score: float
    """Rounded to 4 dp."""


NodeResult = LeafResult | GroupResult


@dataclass(frozen=True)
class RunResult:
    """An evaluated plan.

    Attributes:
        rewards: the `reward.json` keys and values, in output order.
        dimensions: the evaluated tree behind each detailed key.
        on_error: the policy the rewards were computed with.
    """

    plan: Plan
    rewards: dict[str, float]
    dimensions: tuple[tuple[str, NodeResult], ...]
    on_error: ErrorPolicy

    @property
    def outcomes(self) -> list[Outcome]:
        """Every outcome once, in output order."""
        every = {id(o): o for _, node in self.dimensions for o in _outcomes(node)}
        return list(every.values())

    @property
    def failures(self) -> list[Outcome]:
        """Every errored or timed-out outcome."""
        return [o for o in self.outcomes if o.failed]


def fold(plan: Plan, runs: Mapping[int, JudgeRun], on_error: ErrorPolicy) -> RunResult:
    """Score `plan` from the runs of its leaves (keyed by `id(leaf)`)."""
    folder = _Folder(runs, on_error)
    dimensions = tuple((name, folder.result(node)) for name, node in plan.dimensions)
    rewards = {name: round(result.score, DIGITS) for name, result in dimensions}
    for extra in plan.extras:
        rewards[extra.name] = folder.extra(extra, plan.inputs)
    result = RunResult(plan, rewards, dimensions, on_error)
    if on_error == "fail" and result.failures:
        result.rewards.update(dict.fromkeys(result.rewards, 0.0))
    return result


class _Folder:
    """Evaluates each node once (the flat layout's inputs are shared with its extras)."""

    def __init__(self, runs: Mapping[int, JudgeRun], on_error: ErrorPolicy) -> None:
        self.runs = runs
        self.on_error = on_error
        self.done: dict[int, NodeResult] = {}

    def result(self, node: Node) -> NodeResult:
        if id(node) not in self.done:
            self.done[id(node)] = self._leaf(node) if isinstance(node, Leaf) else self._group(node)
        return self.done[id(node)]

    def extra(self, extra: Extra, inputs: Sequence[Node]) -> float:
        components = [
            Component(self._score(self.result(n)), extra.weights.get(n.name, n.weight))
            for n in inputs
        ]
        return round(self._aggregate(components, extra.scoring), DIGITS)

    def _leaf(self, leaf: Leaf) -> LeafResult:
        run = self.runs.get(id(leaf), JudgeRun(outcomes=()))
        components = [
            Component(o.value, o.weight, optional=bool(o.extra.get("optional")), failed=o.failed)
            for o in run.outcomes
        ]
        score = self._aggregate(components, leaf.scoring)
        if run.cap is not None:
            score = min(score, run.cap)
        return LeafResult(leaf, run.outcomes, score, run.detail)

    def _group(self, group: Group) -> GroupResult:
        children = tuple(self.result(child) for child in group.inputs)
        components = [
            Component(self._score(result), group.weight_of(child))
            for result, child in zip(children, group.inputs, strict=True)
        ]
        return GroupResult(
            group, children, round(self._aggregate(components, group.scoring), DIGITS)
        )

    def _score(self, result: NodeResult) -> float | None:
        """What `result` gives its parent: None when it abstained (every outcome under it
        skipped, e.g. by a spent budget), so that it is left out there, as a skipped criterion
        is left out of its leaf, rather than counted as 0."""
        return None if _abstained(result) else result.score

    def _aggregate(self, components: list[Component], scoring: Scoring) -> float:
        return aggregate(
            components, scoring.mode, threshold=scoring.threshold, on_error=self.on_error
        )


def _abstained(node: NodeResult) -> bool:
    if isinstance(node, LeafResult):
        return bool(node.outcomes) and all(o.status == "skipped" for o in node.outcomes)
    return all(_abstained(child) for child in node.children)


def _outcomes(node: NodeResult) -> list[Outcome]:
    if isinstance(node, LeafResult):
        return list(node.outcomes)
    return [o for child in node.children for o in _outcomes(child)]
