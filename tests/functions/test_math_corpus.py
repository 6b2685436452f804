"""The labelled math-answer corpus (`data/math_answers.jsonl`) is well formed.

Only the file's shape is checked here; how well the graders do on it is measured by
`benchmarks/math_accuracy.py`.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

CORPUS = Path(__file__).parent / "data" / "math_answers.jsonl"

FIELDS: dict[str, type] = {
    "id": str,
    "category": str,
    "gold": str,
    "completion": str,
    "correct": bool,
    "reason": str,
    "probe": bool,
}

CATEGORIES = {
    "integer", "decimal", "fraction", "sign", "radical", "pi", "percent", "degree",
    "currency", "thousands", "units", "interval", "set", "tuple", "matrix", "inequality",
    "equation", "pm", "scientific", "decoy", "hedge", "empty", "truncated", "last_box",
    "exploit", "gsm8k", "tags", "phrase",
}  # fmt: skip


@pytest.fixture(scope="module")
def cases() -> list[dict[str, Any]]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    assert all(line.strip() for line in lines), "blank line in the corpus"
    return [json.loads(line) for line in lines]


def test_enough_cases(cases: list[dict[str, Any]]) -> None:
    assert len(cases) >= 300


def test_every_field_present_and_typed(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        assert set(case) == set(FIELDS), case.get("id")
        for name, kind in FIELDS.items():
            assert type(case[name]) is kind, (case["id"], name)
        assert case["id"]
        assert case["gold"].strip(), case["id"]
        assert case["reason"].strip(), case["id"]
        assert "\n" not in case["reason"], case["id"]


def test_ids_unique(cases: list[dict[str, Any]]) -> None:
    repeated = [i for i, n in Counter(c["id"] for c in cases).items() if n > 1]
    assert not repeated


def test_no_case_repeated(cases: list[dict[str, Any]]) -> None:
    repeated = Counter((c["gold"], c["completion"]) for c in cases)
    assert max(repeated.values()) == 1


def test_every_category_present_and_known(cases: list[dict[str, Any]]) -> None:
    assert {c["category"] for c in cases} == CATEGORIES


def test_probes_are_never_correct(cases: list[dict[str, Any]]) -> None:
    probes = [c for c in cases if c["probe"]]
    assert probes
    assert all(not c["correct"] for c in probes), [c["id"] for c in probes if c["correct"]]


def test_roughly_balanced(cases: list[dict[str, Any]]) -> None:
    right = sum(c["correct"] for c in cases)
    assert 0.35 <= right / len(cases) <= 0.65
