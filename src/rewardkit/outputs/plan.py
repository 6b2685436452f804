"""Plans for `rewardkit check`: what each reward key will compute, as text or (`--json`)
as data."""

from __future__ import annotations

from typing import Any

from rewardkit.engine._plan import Group, Leaf, Node, Plan, Scoring
from rewardkit.evalyaml._judge import EvalJudge
from rewardkit.evalyaml._suite import EvalSuite

__all__ = ["describe_plan", "describe_suite", "plan_data", "suite_data"]


def describe_plan(plan: Plan) -> str:
    """Every key of `reward.json`, the tree behind it, and each criterion with its weight."""
    lines = [f"tests dir {plan.tests_dir} ({_layout(plan)} layout)", "reward.json keys:"]
    if not plan.dimensions:
        lines.append("  (none: nothing to score)")
    for name, node in plan.dimensions:
        lines.append(f"  {name}: {_node_line(node)}")
        lines.extend(_tree(node, "    "))
    for extra in plan.extras:
        parts = ", ".join(
            f"{n.name} (w={extra.weights.get(n.name, n.weight):g})" for n in plan.inputs
        )
        lines.append(f"  {extra.name}: [[reward]] {_scoring(extra.scoring)} over {parts}")
    return "\n".join(lines)


def plan_data(plan: Plan) -> dict[str, Any]:
    """`describe_plan` as data: each key with the tree behind it."""
    return {
        "format": "tests dir",
        "path": str(plan.tests_dir),
        "layout": _layout(plan),
        "keys": [{"key": name, **_node_data(node, node.weight)} for name, node in plan.dimensions]
        + [
            {
                "key": extra.name,
                "how": f"[[reward]] {_scoring(extra.scoring)}",
                "inputs": [n.name for n in plan.inputs],
                "weights": {n.name: extra.weights.get(n.name, n.weight) for n in plan.inputs},
            }
            for extra in plan.extras
        ],
    }


def _layout(plan: Plan) -> str:
    first = plan.dimensions[0][1] if plan.dimensions else None
    return "flat" if isinstance(first, Group) and first.qualname == "" else "nested"


def _node_data(node: Node, weight: float) -> dict[str, Any]:
    data: dict[str, Any] = {"name": node.name, "weight": weight, "how": _node_line(node)}
    if isinstance(node, Leaf):
        data |= {"kind": node.kind, "source": str(node.source)}
        criteria = node.checks or getattr(node.judge, "criteria", ())
        data["criteria"] = [{"name": c.name, "weight": c.weight} for c in criteria]
    else:
        data["inputs"] = [_node_data(child, node.weight_of(child)) for child in node.inputs]
    return data


def _node_line(node: Node) -> str:
    if isinstance(node, Leaf):
        return f"{node.source.name} ({node.kind}, {_scoring(node.scoring)})"
    if not node.explicit and len(node.inputs) == 1:
        return "group passing its only input's score through"
    spec = "[[reward]] " if node.explicit else ""
    return f"group {spec}{_scoring(node.scoring)} of {len(node.inputs)} input(s)"


def _tree(node: Node, indent: str) -> list[str]:
    if isinstance(node, Leaf):
        if node.checks:
            return [
                f"{indent}- {c.name} (w={c.weight:g}){' isolated' if c.isolated else ''}"
                for c in node.checks
            ]
        criteria = getattr(node.judge, "criteria", ())
        return [f"{indent}- {c.name} (w={c.weight:g}, {node.kind} judge)" for c in criteria]
    lines = []
    for child in node.inputs:
        lines.append(f"{indent}{child.name} (w={node.weight_of(child):g}): {_node_line(child)}")
        lines.extend(_tree(child, indent + "  "))
    return lines


def _scoring(scoring: Scoring) -> str:
    if scoring.mode == "threshold":
        return f"threshold >= {scoring.threshold:g}"
    return scoring.aggregation


def describe_suite(suite: EvalSuite) -> str:
    """The reward composition and each judge with its kind, range and normalization."""
    lines = [f"eval.yaml {suite.path}", f"reward: {_reward_line(suite)}", "judges:"]
    if not suite.judges:
        lines.append("  (none)")
    for judge in suite.judges:
        condition = f", if: {judge.condition.source}" if judge.condition is not None else ""
        step = f", step: {judge.step}" if judge.step is not None else ""
        lines.append(
            f"  {judge.name}: {judge.kind} ({judge.where}); bool -> 1/0, "
            f"{_numbers(suite, judge)}{condition}{step}"
        )
    if suite.pairwise is not None:
        lines.append(f"pairwise: compares with --baseline RUN ({suite.pairwise.where})")
    if suite.judge_model:
        lines.append(f"judge model (models.judge): {suite.judge_model}")
    for name, limits in suite.thresholds.items():
        shown = ", ".join(f"{k} {v:g}" for k, v in limits.items())
        lines.append(f"threshold {name}: {shown}")
    if suite.steps:
        lines.append(f"multi-step run: steps {', '.join(suite.steps)} (read for step: judges)")
    if suite.not_used:
        lines.append(f"not used by rewardkit (agent execution etc.): {', '.join(suite.not_used)}")
    return "\n".join(lines)


def suite_data(suite: EvalSuite) -> dict[str, Any]:
    """`describe_suite` as data."""
    return {
        "format": "eval.yaml",
        "path": str(suite.path),
        "reward": _reward_line(suite),
        "judges": [
            {
                "name": judge.name,
                "kind": judge.kind,
                "where": judge.where,
                "score_range": list(judge.scale) if judge.scale else None,
                "numbers": _numbers(suite, judge),
                "if": judge.condition.source if judge.condition is not None else None,
                "step": judge.step,
            }
            for judge in suite.judges
        ],
        "pairwise": suite.pairwise.where if suite.pairwise is not None else None,
        "judge_model": suite.judge_model,
        "steps": list(suite.steps),
        "thresholds": {name: dict(limits) for name, limits in suite.thresholds.items()},
        "not_used": list(suite.not_used),
    }


def _numbers(suite: EvalSuite, judge: EvalJudge) -> str:
    """How the judge's numbers become a value in [0, 1]."""
    block = suite.reward
    lo_hi = f"[{judge.scale[0]:g}, {judge.scale[1]:g}]" if judge.scale else None
    if lo_hi and judge.score_range is None:
        lo_hi += " (a @reward_function's score)"
    if block is not None and judge.name in block.raw:
        return "numbers clamped to [0, 1] (raw)"
    if block is not None and block.judge == judge.name and not block.normalize:
        return "numbers clamped to [0, 1] (single judge, normalize: false)"
    if lo_hi:
        return f"numbers normalized from {lo_hi}"
    if block is not None and block.score_range is not None:
        lo, hi = block.score_range
        return f"numbers normalized from [{lo:g}, {hi:g}] (deprecated reward.score_range)"
    return "numbers normalized from [1, 5] (no score_range: a 1.0 from it reads as 0.0)"


def _reward_line(suite: EvalSuite) -> str:
    block = suite.reward
    if block is None:
        return (
            "default composition (any false bool gates to 0; mean of normalized numeric "
            "judges; 1.0 when only gates passed)"
        )
    gate = "gate on" if block.gate else "gate off"
    if block.judge is not None:
        return f"single judge {block.judge!r} (normalize: {str(block.normalize).lower()}, {gate})"
    if block.formula == "weighted":
        weights = ", ".join(f"{k}={v:g}" for k, v in block.weights.items()) or "none (always 0.0)"
        return f"weighted mean of {weights} ({gate}), clamped to [0, 1]"
    return f"formula {block.formula!r} ({gate}), clamped to [0, 1]"
