"""`multi`: sub-graders by name, combined by `calculate_output` in our safe formula language.

The formula reads each sub-grader's value on its own scale (a `score_model` with range
[0, 10] gives up to 10), as on OpenAI. It is compiled by `rewardkit.compose`, never run by
`eval`: `+ - * /`, comparisons, `min`, `max`, `abs`, `round`, `mean`, `sum`; OpenAI's `^`
and its other functions (`sqrt`, `log`, `exp`, `floor`, `ceil`) are refused at load.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rewardkit.graders._graded import Graded

if TYPE_CHECKING:
    from rewardkit.compose import Expression
    from rewardkit.graders._grade import Grader

__all__ = ["Multi"]


@dataclass(frozen=True, kw_only=True)
class Multi:
    """`calculate_output` over the values of `graders`."""

    kind: ClassVar[str] = "multi"
    name: str
    graders: tuple[tuple[str, Grader], ...]
    """(name in the formula, grader), in the file's order."""
    formula: Expression

    def combine(self, results: Sequence[Graded]) -> Graded:
        """The formula over the sub-graders' `results`; any error makes this one an error."""
        names = [key for key, _ in self.graders]
        said = "; ".join(f"{key}={_said(r)}" for key, r in zip(names, results, strict=True))
        if any(r.error is not None for r in results):
            return Graded(value=None, reason=said, error=said)
        env = {key: r.value for key, r in zip(names, results, strict=True)}
        try:
            value = self.formula.evaluate(env)
        except Exception as exc:  # the arithmetic's own errors, e.g. a division by zero
            return Graded(None, said, f"calculate_output failed ({type(exc).__name__}: {exc})")
        if isinstance(value, bool | int):
            value = float(value)
        if not isinstance(value, float) or not math.isfinite(value):
            error = f"calculate_output gave {value!r}, not a finite number"
            return Graded(None, said, error)
        return Graded(value, f"{value:g} = {self.formula.source} with {said}")


def _said(result: Graded) -> str:
    if result.error is not None:
        return f"error ({result.error})"
    assert result.value is not None  # a `Graded` without an error has a value
    return f"{result.value:g} ({result.reason})" if result.reason else f"{result.value:g}"
