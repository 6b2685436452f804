"""Each offline case file, scored through `rewardkit.load`, against the documented semantics."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk
from rewardkit.graders import GRADER_TYPES, load_grader

CASES = Path(__file__).with_name("cases")
TOOL_CALL = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
TOOLS = [
    {"role": "user", "content": "Weather?"},
    {"role": "assistant", "content": "", "tool_calls": [TOOL_CALL]},
]


def sample(completion: str, truth: Any = None, **metadata: Any) -> dict[str, Any]:
    return {"prompt": "Q?", "completion": completion, "ground_truth": truth, "metadata": metadata}


# (case file, sample, reward, words of the reason)
CASES_SCORED = [
    ("string_check_eq", sample("Paris", "Paris"), 1.0, "eq: true"),
    ("string_check_eq", sample("paris", "Paris"), 0.0, "eq: false"),  # case-sensitive
    ("string_check_ne", sample("Paris", refusal="I cannot help"), 1.0, "ne: true"),
    ("string_check_ne", sample("I cannot help", refusal="I cannot help"), 0.0, "ne: false"),
    ("string_check_like", sample("The capital is Paris.", keyword="Paris"), 1.0, "like: true"),
    ("string_check_like", sample("the capital is paris", keyword="Paris"), 0.0, "like: false"),
    ("string_check_ilike", sample("the capital is PARIS", keyword="Paris"), 1.0, "ilike: true"),
    ("string_check_ilike", sample("Lyon", keyword="Paris"), 0.0, "ilike: false"),
    ("string_check_nested_item", sample("42", {"answer": {"value": "42"}}), 1.0, "eq: true"),
    ("string_check_output_json", sample('{"city": "Paris"}', city="Paris"), 1.0, "eq: true"),
    (
        "string_check_output_tools",
        {"messages": TOOLS, "metadata": {"tool": "get_weather"}},
        1.0,
        "eq: true",
    ),
    (
        "similarity_fuzzy_match",
        sample("Paris", "paris"),
        0.8,
        "fuzzy_match 0.8000; failed pass_threshold 0.9",
    ),
    (
        "similarity_bleu",
        sample(
            "the quick brown fox jumps over the lazy dog",
            "the quick brown fox jumps over the lazy dog",
        ),
        1.0,
        "bleu 1.0000",
    ),
    (
        "similarity_bleu",
        sample("completely unrelated words here", "the quick brown fox jumps over the lazy dog"),
        0.0,
        "bleu 0.0000",
    ),
    ("similarity_gleu", sample("the cat sat", "the cat sat on the mat"), 1 / 3, "gleu 0.3333"),
    (
        "similarity_rouge_1",
        sample("the cat sat", "the cat sat down"),
        6 / 7,
        "passed pass_threshold 0.8",
    ),
    ("similarity_rouge_2", sample("the cat sat", "the cat sat down"), 0.8, "rouge_2 0.8000"),
    ("similarity_rouge_l", sample("down the cat sat", "the cat sat down"), 0.75, "rouge_l 0.7500"),
    (
        "python_length",
        sample("one two three four five six", max_words=3),
        0.5,
        "grade returned 0.5",
    ),
    ("python_length", sample("one two", max_words=3), 1.0, "grade returned 1"),
    (
        "python_output_json",
        sample('{"total": 6}', prices=[1, 2, 3]),
        1.0,
        "passed pass_threshold 1",
    ),
    (
        "python_output_json",
        sample('{"total": 5}', prices=[1, 2, 3]),
        0.0,
        "failed pass_threshold 1",
    ),
    (
        "python_tools",
        {"messages": TOOLS, "metadata": {"tool": "get_weather"}},
        1.0,
        "grade returned 1",
    ),
    (
        "multi_weighted",
        sample("Paris", "paris"),
        0.5 + 0.25 * 0.8 + 0.25,
        "exact=1 (ilike: true); close=0.8",
    ),
    ("multi_min", sample("the cat sat", "the cat sat down"), 0.0, "exact=0"),
    ("multi_min", sample("the cat sat", "the cat sat"), 1.0, "rouge=1"),
    (
        "multi_nested",
        sample('{"city": "Lyon"}', city="Paris", note='{"city": "Lyon"}'),
        0.5,
        "content=0.5",
    ),
    ("multi_assignments", sample("PARIS", "Paris"), 0.5, "exact=0 (eq: false); like=1"),
]


@pytest.mark.parametrize(
    ("case", "given", "reward", "said"),
    CASES_SCORED,
    ids=[f"{case}-{i}" for i, (case, *_) in enumerate(CASES_SCORED)],
)
def test_a_case_scores_as_documented(
    case: str, given: dict[str, Any], reward: float, said: str
) -> None:
    with rk.load(CASES / f"{case}.json") as scorer:
        result = scorer.score(given)
    assert result.error is None, result.error
    assert result.reward == pytest.approx(reward, abs=1e-4)
    (outcome,) = result.outcomes
    assert outcome.name == json.loads((CASES / f"{case}.json").read_text())["name"]
    assert said in (outcome.reasoning or ""), outcome.reasoning


def test_there_are_twenty_case_files_covering_every_type() -> None:
    files = sorted(CASES.glob("*.json"))
    assert len(files) >= 20
    kinds: set[str] = set()
    for path in files:
        kinds |= _kinds(json.loads(path.read_text()))
        load_grader(path)  # each one loads
    assert kinds == set(GRADER_TYPES)


def _kinds(grader: dict[str, Any]) -> set[str]:
    subs = grader.get("graders", {}).values()
    return {grader["type"]}.union(*(_kinds(sub) for sub in subs))


def test_a_template_naming_a_field_the_sample_lacks_is_an_error_never_a_zero() -> None:
    with rk.load(CASES / "string_check_nested_item.json") as scorer:
        result = scorer.score(sample("42", {"answer": "42"}))
    assert result.reward is None
    assert "nested: the sample has no item.answer.value" in (result.error or "")


def test_output_json_is_none_unless_the_completion_is_json() -> None:
    with rk.load(CASES / "string_check_output_json.json") as scorer:
        result = scorer.score(sample("Paris", city="Paris"))
    assert result.reward is None
    assert "the sample has no sample.output_json.city" in (result.error or "")


def test_an_error_in_a_sub_grader_makes_the_multi_an_error_under_the_policy() -> None:
    given = sample("Lyon", city="Paris", note="x")  # not JSON: content.city has no value
    with rk.load(CASES / "multi_nested.json") as failing:
        assert failing.score(given).reward is None
    with rk.load(CASES / "multi_nested.json", on_error="zero") as zeroing:
        result = zeroing.score(given)
    assert result.reward == 0.0
    assert result.outcomes[0].status == "error"
    assert "content=error (city=error (the sample has no sample.output_json.city)" in (
        result.outcomes[0].error or ""
    )


def test_ground_truth_wins_over_metadata_in_item() -> None:
    with rk.load(CASES / "string_check_eq.json") as scorer:
        result = scorer.score(sample("Paris", "Paris", reference_answer="Lyon"))
    assert result.reward == 1.0


def test_a_path_source_pickles_by_its_file_and_keeps_the_formula(tmp_path: Path) -> None:
    import pickle

    scorer = rk.load(CASES / "multi_min.json")  # a Path: its functions travel, by file
    again = pickle.loads(pickle.dumps(scorer))
    assert again.score(sample("the cat sat", "the cat sat down")).reward == 0.0  # min, not mean
    scorer.close()
    again.close()


def test_the_scorer_is_named_after_the_grader() -> None:
    with rk.load(CASES / "multi_weighted.json") as scorer:
        assert scorer.name == "answer"


def test_trainer_adapters_take_a_grader_and_its_item_columns() -> None:
    with rk.load(CASES / "string_check_like.json") as scorer:
        trl = scorer.trl_reward_func()
        rewards = trl(
            prompts=["a?", "b?"], completions=["in Paris", "in Rome"], keyword=["Paris", "Paris"]
        )
        verl = scorer.verl_compute_score()
        assert verl("geo", "in Paris", None, {"keyword": "Paris"}) == 1.0
    assert rewards == [1.0, 0.0]
    assert trl.__name__ == "mentions"
