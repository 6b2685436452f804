"""format_reward and tag_count_reward."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rewardkit.functions.builtin import format_reward, tag_count_reward
from rewardkit.functions.builtin.text._format import THINK_ANSWER_FORMAT, _think_answer


def said(content: Any) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": content}]


GOOD = "<think>\nreasoning\n</think>\n<answer>\n42\n</answer>"


def test_default_format_is_think_then_answer() -> None:
    result = format_reward(said(GOOD))
    assert result.score == 1.0
    assert result.metrics["format_check"].success is True
    assert format_reward(said(GOOD + "\n")).score == 1.0  # trailing newline is fine
    assert format_reward(said("<answer>\n42\n</answer>")).score == 0.0
    assert format_reward(said("")).metrics["format_check"].success is False


def test_exact_match_means_the_whole_response() -> None:
    # reward-kit 0.4.1 used re.match, so a pattern without `$` accepted trailing text.
    pattern = r"<answer>.*?</answer>"
    assert format_reward(said("<answer>1</answer> and more"), format_regex=pattern).score == 0.0
    assert format_reward(said("<answer>1</answer>"), format_regex=pattern).score == 1.0
    loose = format_reward(
        said("x <answer>1</answer> y"), format_regex=pattern, require_exact_match=False
    )
    assert loose.score == 1.0


_PIECES = ["<think>\n", "</think>\n<answer>\n", "</answer>", "<think>", "</think>\n", "<answer>\n",
           "\n", " ", "\t", "x"]  # fmt: skip


_TEXTS = st.builds(
    lambda head, body, tail: head + "".join(body) + tail,
    st.sampled_from(["", "<think>\n", " <think>\n", "<think>"]),
    st.lists(st.sampled_from(_PIECES), max_size=10),
    st.sampled_from(["", "</answer>", "</answer>\n", "</answer>\n\n", "</answer> ", "</answer>x"]),
)


@settings(max_examples=1_000, deadline=None)
@given(_TEXTS)
def test_default_format_has_the_regex_verdicts(text: str) -> None:
    """The linear-time check of the default pattern agrees with the regex it stands for."""
    pattern = re.compile(THINK_ANSWER_FORMAT, re.DOTALL)
    whole = bool(pattern.fullmatch(text) or pattern.fullmatch(text.rstrip()))
    assert _think_answer(text, whole=True) is whole
    assert _think_answer(text, whole=False) is (pattern.search(text) is not None)
    for exact, expected in ((True, whole), (False, pattern.search(text) is not None)):
        assert format_reward(said(text), require_exact_match=exact).score == float(expected)


def test_bad_regex_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match=r"format_regex '\[' is not a valid regular expression"):
        format_reward(said("x"), format_regex="[")


def test_no_response() -> None:
    assert format_reward([{"role": "user", "content": GOOD}]).score == 0.0


def test_tag_count_full_credit_for_all_tags() -> None:
    result = tag_count_reward(
        said("<think>a</think><answer>b</answer>"),
        required_tags=["think", "answer"],
        score_per_tag=0.5,
    )
    assert result.score == 1.0
    assert result.metrics["tag_think"].success is True
    assert result.metrics["tag_think"].reason == "1 balanced 'think' tag(s)"
    assert result.metrics["overall"].success is True


def test_tag_count_default_credit_is_reward_kits_quarter() -> None:
    full = said("<think>a</think><answer>b</answer>")
    assert tag_count_reward(full, required_tags=["think", "answer"]).score == 0.5
    assert tag_count_reward(full, required_tags=["think", "answer"]).metrics["overall"].success


def test_tag_count_partial_and_unbalanced() -> None:
    tags = ["think", "answer"]
    assert tag_count_reward(said("<think>a</think>"), required_tags=tags).score == 0.25
    assert (
        tag_count_reward(said("<think>a</think>"), required_tags=tags, score_per_tag=0.5).score
        == 0.5
    )
    unbalanced = tag_count_reward(
        said("<think>a</think><think><answer>b</answer>"), required_tags=tags, score_per_tag=0.5
    )
    assert unbalanced.score == 0.0  # <answer> counts 0.5, the unbalanced <think> costs 0.5
    assert unbalanced.metrics["tag_think"].success is False
    assert "opened 2 time(s), closed 1 time(s)" in unbalanced.metrics["tag_think"].reason
    lenient = tag_count_reward(
        said("<think>a</think><think><answer>b</answer>"),
        required_tags=tags,
        score_per_tag=0.5,
        require_balanced=False,
    )
    assert lenient.score == 1.0
    assert tag_count_reward(said("none"), required_tags=tags, score_per_tag=0.25).score == 0.0
    assert (
        tag_count_reward(
            said('<answer id="1">b</answer>'), required_tags=["answer"], score_per_tag=1
        ).score
        == 1.0
    )


def test_tag_count_validates() -> None:
    with pytest.raises(ValueError, match="at least one tag"):
        tag_count_reward(said("x"), required_tags=[])
    with pytest.raises(ValueError, match=r"score_per_tag must be in \[0, 1\]"):
        tag_count_reward(said("x"), required_tags=["a"], score_per_tag=2)
    assert tag_count_reward([], required_tags=["a"]).score == 0.0
