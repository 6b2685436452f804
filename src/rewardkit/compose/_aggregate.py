"""The six aggregation modes (see docs/design/composition.md for the table).

Pure functions: no I/O, no asyncio. The tests-dir runner and the eval.yaml `reward:` block
both fold outcomes through here.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from rewardkit.core._outcome import ErrorPolicy

__all__ = [
    "MODES",
    "Component",
    "Mode",
    "aggregate",
    "check_weights",
    "parse_mode",
]

Mode = Literal[
    "weighted-mean", "weighted-sum", "all-pass", "any-pass", "threshold", "required-pass"
]
MODES: tuple[Mode, ...] = (
    "weighted-mean",
    "weighted-sum",
    "all-pass",
    "any-pass",
    "threshold",
    "required-pass",
)
# Harbor RewardKit accepts these spellings too; note there is no `weighted_sum`.
_ALIASES: Mapping[str, Mode] = {
    "weighted_mean": "weighted-mean",
    "all_pass": "all-pass",
    "any_pass": "any-pass",
    "required_pass": "required-pass",
}
_PASS = 1.0  # a value passes all/any/required-pass at 1.0 or more (RewardKit 0.2.3)


@dataclass(frozen=True, slots=True)
class Component:
    """One input of an aggregation.

    Attributes:
        value: the input's score; `None` when it was not scored.
        weight: its weight (finite; negative only in `weighted-sum`).
        optional: left out by `required-pass`.
        failed: `True` when `value is None` because it errored (not because it was skipped).
    """

    value: float | None
    weight: float = 1.0
    optional: bool = False
    failed: bool = False


def parse_mode(text: object) -> Mode:
    """Return the canonical mode for `text` (hyphen or underscore spelling).

    Raises:
        ValueError: naming the valid modes.
    """
    if isinstance(text, str):
        if text in MODES:
            return text
        if text in _ALIASES:
            return _ALIASES[text]
    valid = ", ".join(repr(m) for m in MODES)
    raise ValueError(f"aggregation must be one of {valid} (got {text!r})")


def check_weights(weights: Iterable[float], mode: Mode) -> None:
    """Raise `ValueError` for a non-finite weight, or a negative one outside `weighted-sum`."""
    for weight in weights:
        if not isinstance(weight, int | float) or isinstance(weight, bool):
            raise ValueError(f"weights must be numbers (got {weight!r})")
        if not math.isfinite(weight):
            raise ValueError(f"weights must be finite (got {weight!r})")
        if weight < 0 and mode != "weighted-sum":
            raise ValueError(
                f"negative weight {weight!r} needs aggregation = 'weighted-sum' (got {mode!r})"
            )


def aggregate(
    components: Sequence[Component],
    mode: Mode = "weighted-mean",
    *,
    threshold: float = 0.5,
    on_error: ErrorPolicy = "zero",
) -> float:
    """Fold `components` into one score.

    Skipped components (`value=None`, not failed) are left out. Failed ones count as 0.0,
    or are left out when `on_error="omit"`. An empty input scores 0.0.

    >>> aggregate([Component(1.0, 2.0), Component(0.0, 1.0)])
    0.6666666666666666
    """
    check_weights((c.weight for c in components), mode)
    scored = [
        (c.value if c.value is not None else 0.0, c)
        for c in components
        if c.value is not None or (c.failed and on_error != "omit")
    ]
    if not scored:
        return 0.0
    if mode == "all-pass":
        return float(all(v >= _PASS for v, _ in scored))
    if mode == "any-pass":
        return float(any(v >= _PASS for v, _ in scored))
    if mode == "required-pass":
        required = [v for v, c in scored if not c.optional]
        if not required:
            warnings.warn(
                "required-pass aggregation but every input is optional; scoring 0.0",
                stacklevel=2,
            )
            return 0.0
        return float(all(v >= _PASS for v in required))
    # Plain left-to-right sums, as RewardKit does, so 4-dp results agree to the last digit.
    total = sum(v * c.weight for v, c in scored)
    if mode == "weighted-sum":
        result = total
    else:
        weight = sum(c.weight for _, c in scored)
        result = total / weight if weight else 0.0
        if mode == "threshold":
            result = float(result >= threshold)
    if not math.isfinite(result):
        raise ValueError(f"{mode} aggregate must be finite (got {result!r})")
    return result
