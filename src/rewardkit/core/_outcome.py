"""`Outcome`: what one judge produced for one sample."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["ErrorPolicy", "JudgeRun", "Outcome", "Status"]

Status = Literal["scored", "skipped", "error", "timeout"]
"""`scored` has a finite `value`; the other three have `value=None` and say why."""

ErrorPolicy = Literal["zero", "omit", "fail"]
"""How an errored or timed-out outcome counts in a composition (see docs/design/composition.md).

- `zero` (default): it counts as 0.0 with its weight, like a failed check.
- `omit`: it is left out of its aggregate, as if it had not been declared.
- `fail`: every reward of the run is 0.0 and the CLI exits with code 3.
"""


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """One judge's result on one sample. Errors and skips are kept, never dropped."""

    name: str
    """The criterion's name, e.g. `file_exists:out.txt`."""
    status: Status
    value: float | None = None
    """The score (bool normalized to 1.0/0.0); `None` unless `status == "scored"`."""
    raw: Any = None
    """What the judge returned, before normalization."""
    weight: float = 1.0
    description: str | None = None
    reasoning: str | None = None
    error: str | None = None
    confidence: float | None = None
    model: str | None = None
    duration_ms: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    """Judge-specific fields kept in details (`id`, `negate`, `optional`, ...)."""

    @property
    def failed(self) -> bool:
        """True for `error` and `timeout` outcomes."""
        return self.status in ("error", "timeout")


@dataclass(frozen=True, kw_only=True)
class JudgeRun:
    """What a judge leaf produced for one sample: outcomes, and what its detail adds."""

    outcomes: tuple[Outcome, ...]
    detail: dict[str, Any] = field(default_factory=dict)
    """Leaf-level details after `kind`: `judge`, `judge_output`, `usage`, `guard`, `warnings`."""
    cap: float | None = None
    """An upper bound on the leaf's score (a guard that penalizes a flagged submission)."""
