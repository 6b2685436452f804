"""Sampled LLM and agent judges reduce as the harness does and carry its `stability` block
(concepts/pairwise-and-sampling.md of agent-eval-harness)."""

from __future__ import annotations

import time

from rewardkit.core._outcome import Outcome
from rewardkit.evalyaml._llm_judge import scored

BASE = Outcome(name="q", status="error")


def test_agreeing_samples_are_stable_and_keep_no_rationales() -> None:
    out = scored(BASE, time.perf_counter(), [(4, "a"), (4, "b"), (4, "c")], True, "m")
    assert out.raw == 4
    assert out.extra["stability"] == {
        "samples": 3, "min": 4.0, "max": 4.0, "mean": 4.0, "values": [4, 4, 4], "stable": True,
    }  # fmt: skip
    assert "sample_rationales" not in out.extra


def test_a_failed_sample_makes_the_result_unstable() -> None:
    out = scored(BASE, time.perf_counter(), [(3, "a"), (4, "b")], True, "m", ["timed out"])
    assert out.raw == 3  # median_low of what answered
    assert out.extra["stability"]["samples"] == 3
    assert out.extra["stability"]["stable"] is False
    assert out.extra["sample_rationales"][-1] == {"value": None, "error": "timed out"}


def test_a_single_sample_has_no_block() -> None:
    assert "stability" not in scored(BASE, time.perf_counter(), [(True, "ok")], False, "m").extra
