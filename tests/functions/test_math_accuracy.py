"""`math_reward` on the whole labelled corpus (`data/math_answers.jsonl`).

A case is accepted when its score is at least 0.5. The gates: at least 99% of the cases
graded as labelled, at most 0.5% of the wrong answers accepted, and every exploit probe
(`probe: true`, a wrong answer built to look right) scored 0. `benchmarks/math_accuracy.py`
prints the same figures per category and against other graders; the single probes with
their right counterparts are in `test_fn_math_probes.py`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from rewardkit.functions.builtin import math_reward

pytest.importorskip("math_verify")

CORPUS = Path(__file__).parent / "data" / "math_answers.jsonl"
MIN_ACCURACY = 0.99
MAX_FALSE_POSITIVES = 0.005
"""Of the wrong answers."""


@dataclass(frozen=True)
class Graded:
    """One corpus case and `math_reward`'s verdict on it."""

    case: dict[str, Any]
    score: float
    reason: str

    @property
    def accepted(self) -> bool:
        return self.score >= 0.5

    @property
    def right(self) -> bool:
        return self.accepted is self.case["correct"]

    def shown(self) -> str:
        case = self.case
        verdict = "accepted" if self.accepted else "rejected"
        return (
            f"{case['id']} ({verdict}, labelled {'right' if case['correct'] else 'wrong'}): "
            f"gold {case['gold']!r}; {case['reason']}; math_reward: {self.reason}"
        )


def _grade(case: dict[str, Any]) -> Graded:
    messages = [
        {"role": "user", "content": "Solve."},
        {"role": "assistant", "content": case["completion"]},
    ]
    try:
        result = math_reward(messages, ground_truth=case["gold"])
    except Exception as error:  # a grader that raises rejects the case, and says why
        return Graded(case, 0.0, f"raised {error!r}")
    return Graded(case, result.score, result.reason)


@pytest.fixture(scope="module")
def graded() -> list[Graded]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    return [_grade(json.loads(line)) for line in lines if line.strip()]


def _listing(cases: list[Graded]) -> str:
    return "\n".join(f"  {g.shown()}" for g in cases)


def test_the_whole_corpus_is_graded(graded: list[Graded]) -> None:
    assert len(graded) >= 300
    raised = [g for g in graded if g.reason.startswith("raised ")]
    assert not raised, f"math_reward raised on:\n{_listing(raised)}"


def test_accuracy(graded: list[Graded]) -> None:
    misgraded = [g for g in graded if not g.right]
    accuracy = 1 - len(misgraded) / len(graded)
    assert accuracy >= MIN_ACCURACY, (
        f"accuracy {accuracy:.1%} < {MIN_ACCURACY:.0%} "
        f"({len(misgraded)} of {len(graded)} cases misgraded):\n{_listing(misgraded)}"
    )


def test_false_positives(graded: list[Graded]) -> None:
    wrong = [g for g in graded if not g.case["correct"]]
    accepted = [g for g in wrong if g.accepted]
    rate = len(accepted) / len(wrong)
    assert rate <= MAX_FALSE_POSITIVES, (
        f"{len(accepted)} of {len(wrong)} wrong answers accepted ({rate:.2%} > "
        f"{MAX_FALSE_POSITIVES:.1%}):\n{_listing(accepted)}"
    )


def test_every_probe_scores_zero(graded: list[Graded]) -> None:
    probes = [g for g in graded if g.case["probe"]]
    assert probes
    scored = [g for g in probes if g.score != 0.0]
    assert not scored, f"{len(scored)} exploit probes scored above 0:\n{_listing(scored)}"
