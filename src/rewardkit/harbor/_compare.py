"""Compare the rewards of several tests directories (`rewardkit v1/ v2/`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["ComparisonResult", "compare", "format_comparison"]


@dataclass(frozen=True)
class ComparisonResult:
    """The rewards of several tests directories side by side (Harbor RewardKit's shape)."""

    labels: list[str]
    per_reward: dict[str, dict[str, float]] = field(default_factory=dict)
    """Reward name → {label: score}, for names present under at least two labels, sorted."""

    def model_dump(self) -> dict[str, Any]:
        """As a dict, like the pydantic model RewardKit returns."""
        return asdict(self)


def compare(results: Mapping[str, Mapping[str, float]]) -> ComparisonResult:
    """Line up `{label: {reward: score}}`; rewards present under one label only are left out.

    >>> compare({"v1": {"a": 0.5}, "v2": {"a": 1.0, "b": 1.0}}).per_reward
    {'a': {'v1': 0.5, 'v2': 1.0}}
    """
    labels = list(results)
    if len(labels) < 2:
        return ComparisonResult(labels=labels)
    names = sorted({name for scores in results.values() for name in scores})
    table = {
        name: {label: scores[name] for label, scores in results.items() if name in scores}
        for name in names
    }
    return ComparisonResult(
        labels=labels, per_reward={name: row for name, row in table.items() if len(row) >= 2}
    )


def format_comparison(results: Mapping[str, Mapping[str, float]]) -> str:
    """The comparison table printed after a multi-directory run; `""` when nothing overlaps.

    `diff` is the first label's score minus the last one's (of those present).
    """
    table = compare(results).per_reward
    if not table:
        return ""
    labels = list(results)
    name_width = max(len("reward"), *(len(name) for name in table))
    widths = [max(len(label), 6) for label in labels]
    header = (
        "reward".ljust(name_width)
        + "".join(f"  {label.rjust(width)}" for label, width in zip(labels, widths, strict=True))
        + f"  {'diff':>6}"
    )
    rule = "-" * len(header)
    rows = []
    for name, row in table.items():
        cells = "".join(
            f"  {(f'{row[label]:.4f}' if label in row else '-').rjust(width)}"
            for label, width in zip(labels, widths, strict=True)
        )
        present = list(row.values())
        diff = present[0] - present[-1]
        rows.append(
            f"{name.ljust(name_width)}{cells}  {(f'{diff:+.4f}' if diff > 0 else f'{diff:.4f}'):>6}"
        )
    return "\n".join(["Comparison:", rule, header, rule, *rows, rule])
