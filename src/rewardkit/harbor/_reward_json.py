"""Harbor's verifier files: `reward.json` and `reward-details.json` (schema: docs/outputs.md).

Both are written atomically (temp file + rename). A run first removes the outputs of an
earlier run, so a file on disk always belongs to the latest run; a symlink or directory planted
at an output path is removed or replaced, never followed (`outputs/_files.py`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rewardkit.core._files import atomic_write, remove_output
from rewardkit.core._outcome import ErrorPolicy, Outcome
from rewardkit.engine import LeafResult, NodeResult, RunResult

__all__ = [
    "DETAILS_NAME",
    "TXT_NAME",
    "clear_outputs",
    "criterion_detail",
    "details",
    "write_outputs",
]

DETAILS_NAME = "reward-details.json"
TXT_NAME = "reward.txt"
_OPTIONAL_FIELDS = ("description", "reasoning", "error")
_FLAG_FIELDS = ("negate", "optional")


def details_path(output: Path) -> Path:
    return output.with_name(DETAILS_NAME)


def clear_outputs(output: Path) -> None:
    """Remove `output`, its details file and `reward.txt`, whatever an earlier run (or the
    agent) left there: a symlink is removed itself, never followed."""
    for path in (output, details_path(output), output.with_name(TXT_NAME)):
        remove_output(path)


def write_outputs(
    output: Path,
    rewards: Mapping[str, float],
    detail: Mapping[str, Any] | None,
    *,
    scalar: float | None = None,
) -> None:
    """Write `reward.json`, the details file (unless `detail` is None) and `reward.txt` (when
    `scalar` is given), each atomically; `reward.json` last."""
    output.parent.mkdir(parents=True, exist_ok=True)
    if detail is not None:
        atomic_write(details_path(output), json.dumps(detail, indent=2))
    if scalar is not None:
        atomic_write(output.with_name(TXT_NAME), f"{scalar}\n")
    atomic_write(output, json.dumps(dict(rewards), indent=2))


def details(result: RunResult) -> dict[str, Any]:
    """The details of every dimension of `result`, keyed like `reward.json`."""
    return {name: _node(node, result.on_error) for name, node in result.dimensions}


def _node(node: NodeResult, policy: ErrorPolicy) -> dict[str, Any]:
    if isinstance(node, LeafResult):
        return {
            "score": round(node.score, 4),
            "criteria": [criterion_detail(o, policy) for o in node.outcomes],
            "kind": node.leaf.kind,
            **node.detail,
        }
    group = node.group
    if not group.explicit and len(node.children) == 1:
        return {**_node(node.children[0], policy), "score": node.score}
    out: dict[str, Any] = {
        "kind": "group",
        "score": node.score,
        "aggregation": group.scoring.aggregation,
        "components": [
            {"name": child.name, "weight": group.weight_of(child), "detail": _node(result, policy)}
            for child, result in zip(group.inputs, node.children, strict=True)
        ],
    }
    if group.scoring.mode == "threshold":
        out["threshold"] = group.scoring.threshold
    return out


def criterion_detail(outcome: Outcome, policy: ErrorPolicy) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "id" in outcome.extra:
        out["id"] = outcome.extra["id"]
    out["name"] = outcome.name
    out["value"] = _counted_value(outcome, policy)
    out["raw"] = outcome.raw
    out["weight"] = outcome.weight
    out.update({k: getattr(outcome, k) for k in _OPTIONAL_FIELDS if getattr(outcome, k)})
    out.update({k: True for k in _FLAG_FIELDS if outcome.extra.get(k)})
    if outcome.confidence is not None:
        out["confidence"] = outcome.confidence
    if outcome.model is not None:
        out["model"] = outcome.model
    for key in ("samples", "agreement", "usage"):
        if key in outcome.extra:
            out[key] = outcome.extra[key]
    if "metrics" in outcome.extra:
        out["metrics"] = outcome.extra["metrics"]
    out["status"] = outcome.status
    out["duration_ms"] = outcome.duration_ms
    return out


def _counted_value(outcome: Outcome, policy: ErrorPolicy) -> float | None:
    """The value as it entered the aggregate: 0.0 for a failure under `zero`, else null."""
    if outcome.value is not None:
        return round(outcome.value, 4)
    return 0.0 if outcome.failed and policy == "zero" else None
