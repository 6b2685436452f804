"""Read a judge's reply into per-criterion verdicts; combine samples; report the guard.

The parser is tolerant of how models wrap JSON (a bare object, a fenced ```json block, or
an object inside prose) but strict about what the object holds: a missing criterion or an
answer that is no valid score raises `ReplyError`, which the caller may retry.

>>> from rewardkit.judges._definition import CriterionDef
>>> correct = CriterionDef(name="correct", description="Is it correct?")
>>> parse_reply('Sure! {"score": "yes", "reasoning": "ok"}', [correct])
(Verdict(value=1.0, raw='yes', reasoning='ok', samples=None, agreement=None),)
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from rewardkit.judges._definition import CriterionDef, Guard

__all__ = [
    "ReplyError",
    "Verdict",
    "combine_samples",
    "extract_json",
    "guard_detail",
    "guarded_score",
    "parse_reply",
    "score",
]

_FENCED = re.compile(r"```[ \t]*(?:json)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_EXCERPT = 200


class ReplyError(ValueError):
    """A judge's reply could not be read as the scores it was asked for.

    Attributes:
        excerpt: the start of the reply, for the error message and the details.
    """

    def __init__(self, message: str, reply: str) -> None:
        self.excerpt = reply[:_EXCERPT] + ("…" if len(reply) > _EXCERPT else "")
        super().__init__(f"{message}; the reply began: {self.excerpt!r}")


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """A judge's answer on one criterion."""

    value: float
    """The score in [0, 1]: normalized, negated if the criterion says so, clamped."""
    raw: Any
    """The judge's answer as given (`"yes"`, `4`, ...)."""
    reasoning: str
    samples: tuple[Any, ...] | None = None
    """With several samples: every sample's raw answer, `None` for failed samples."""
    agreement: float | None = None
    """With several samples: `1 - mean |v - chosen|` over the samples that answered."""


def extract_json(reply: str) -> dict[str, Any]:
    """The JSON object in `reply`: the whole text, else a fenced block, else the span from
    the first `{` to the last `}`.

    Raises:
        ReplyError: when none of these is a JSON object.
    """
    candidates = [reply.strip()]
    candidates += [m.group(1).strip() for m in _FENCED.finditer(reply)]
    start, end = reply.find("{"), reply.rfind("}")
    if 0 <= start < end:
        candidates.append(reply[start : end + 1])
    for text in candidates:
        if not text.startswith("{"):
            continue
        try:
            data = json.loads(text)
        except ValueError:
            continue
        if isinstance(data, dict):
            return data
    raise ReplyError("no JSON object found in the judge's reply", reply)


def parse_reply(reply: str, criteria: Sequence[CriterionDef]) -> tuple[Verdict, ...]:
    """One verdict per criterion of `criteria`, in order.

    A single criterion may be answered flat (`{"score": ..., "reasoning": ...}`) or keyed
    by its name; several are keyed by name. A missing `reasoning` reads as "".

    Raises:
        ReplyError: for a reply without a JSON object, a criterion without an answer, or an
            answer that is not a valid score.
    """
    data = extract_json(reply)
    if len(criteria) == 1 and "score" in data and not isinstance(data["score"], dict):
        data = {criteria[0].name: data}
    verdicts = []
    for criterion in criteria:
        entry = data.get(criterion.name)
        if entry is None:
            keys = ", ".join(repr(k) for k in data) or "none"
            raise ReplyError(
                f"no answer for criterion {criterion.name!r} (the reply's keys: {keys})", reply
            )
        if not isinstance(entry, dict) or "score" not in entry:
            raise ReplyError(
                f"criterion {criterion.name!r}: expected an object with 'score' and "
                f"'reasoning', got {_short(entry)}",
                reply,
            )
        try:
            value = score(criterion, entry["score"])
        except ValueError as exc:
            raise ReplyError(f"criterion {criterion.name!r}: {exc}", reply) from None
        reasoning = entry.get("reasoning")
        verdicts.append(
            Verdict(
                value=value,
                raw=entry["score"],
                reasoning="" if reasoning is None else str(reasoning),
            )
        )
    return tuple(verdicts)


def score(criterion: CriterionDef, raw: Any) -> float:
    """`raw` normalized by the criterion's format, negated if asked, clamped to [0, 1].

    Raises:
        ValueError: when `raw` is not a valid answer for the format.
    """
    value = criterion.format.normalize(raw)
    if criterion.negate:
        value = 1.0 - value
    return min(1.0, max(0.0, value))


def combine_samples(samples: Sequence[Verdict | None], *, upper: bool = False) -> Verdict | None:
    """One verdict from several samples of the same criterion.

    Failed samples (`None`) are left out; the others are ordered by value and the lower
    median is taken (the upper one with `upper=True`, as the guard does), with its
    reasoning. The result records every sample's raw answer and the agreement. One sample
    is returned as it is; `None` when every sample failed.

    >>> likert = [Verdict(value=v, raw=r, reasoning="") for v, r in ((1.0, 5), (0.5, 3), (0.0, 1))]
    >>> v = combine_samples(likert)
    >>> v.value, v.samples, round(v.agreement, 4)
    (0.5, (5, 3, 1), 0.6667)
    """
    if len(samples) == 1:
        return samples[0]
    valid = sorted((s for s in samples if s is not None), key=lambda s: s.value)
    if not valid:
        return None
    chosen = valid[len(valid) // 2 if upper else (len(valid) - 1) // 2]
    spread = sum(abs(s.value - chosen.value) for s in valid) / len(valid)
    return replace(
        chosen,
        samples=tuple(None if s is None else s.raw for s in samples),
        agreement=1.0 - spread,
    )


def guard_detail(verdict: Verdict | None, error: str | None = None) -> dict[str, Any]:
    """The `guard` entry of the details: `{"flagged", "reasoning"}`, or `{"flagged": None,
    "error"}` when the guard was not answered."""
    if verdict is None:
        return {"flagged": None, "error": error or "the guard criterion was not answered"}
    return {"flagged": verdict.value >= 0.5, "reasoning": verdict.reasoning}


def guarded_score(score: float, guard: Guard, flagged: bool | None) -> float:
    """A judge's score after its guard: `min(score, 0)` when `penalize` and flagged."""
    return min(score, 0.0) if guard == "penalize" and flagged else score


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
