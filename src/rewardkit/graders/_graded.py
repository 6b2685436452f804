"""`Graded`: what one grader made of one sample, before it becomes a reward."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Graded", "threshold_note"]


@dataclass(frozen=True)
class Graded:
    """One grader's result: a value on its own scale and why, or an error.

    A model's unusable answer is not an error: OpenAI scores it 0, and so do we, with the
    answer kept in `reason`.
    """

    value: float | None
    """`None` exactly when `error` is set."""
    reason: str = ""
    error: str | None = None
    passed: bool | None = None
    """`value >= pass_threshold`, when the grader has one."""

    @classmethod
    def failed(cls, error: str) -> Graded:
        return cls(value=None, error=error)


def threshold_note(value: float, threshold: float | None) -> tuple[bool | None, str]:
    """Whether `value` passes `threshold` (`None` without one), and the words for it."""
    if threshold is None:
        return None, ""
    passed = value >= threshold
    return passed, f"; {'passed' if passed else 'failed'} pass_threshold {threshold:g}"
