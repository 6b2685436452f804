"""`rewardkit.functions.helpers`: the built-ins' building blocks, and reward-kit's names for them."""

from __future__ import annotations

import importlib

import pytest

import rewardkit.functions.helpers as helpers
from rewardkit.functions.builtin import accuracy_reward, json_schema_reward, math_reward


def test_all_is_sorted_and_complete() -> None:
    assert helpers.__all__ == sorted(helpers.__all__)
    public = {n for n, v in vars(helpers).items() if callable(v) and not n.startswith("_")}
    assert public == set(helpers.__all__)


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("accuracy", ["compare_math_expressions", "extract_math_expression", "normalize_text",
                      "string_similarity"]),
        ("code_execution", ["compare_outputs", "execute_javascript_code", "execute_python_code",
                            "extract_code_blocks", "string_similarity"]),
        ("function_calling", ["calculate_jaccard_similarity", "extract_schema_properties",
                              "match_function_call"]),
        ("length", ["count_tokens"]),
        ("math", ["compare_numbers", "extract_numbers"]),
        ("repetition", ["get_ngrams"]),
    ],
)  # fmt: skip
def test_reward_kit_modules_export_the_helpers(module: str, names: list[str]) -> None:
    compat = importlib.import_module(f"reward_kit.rewards.{module}")
    for name in names:
        assert getattr(compat, name) is getattr(helpers, name)


def said(content: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": "?"}, {"role": "assistant", "content": content}]


def test_accuracy_reads_answers_in_prose() -> None:
    truth = [{"role": "assistant", "content": "4"}]
    assert accuracy_reward(said("3x = 12\nx = 4\nTherefore, x = 4."), truth).score == 1.0
    assert accuracy_reward(said("The capital of France is Paris."), "Paris").score == 1.0
    assert accuracy_reward(said("The answer is approximately 3.14."), "3.14159").score == 1.0
    assert accuracy_reward(said("x = 3"), "3.5").score == 0.0
    vague = accuracy_reward(said("This is a question that needs further analysis."), truth)
    assert vague.metrics["answer_extraction"].is_score_valid is False
    for missing in (None, [], [{"role": "assistant"}]):
        result = accuracy_reward(said("4"), missing)
        assert result.score == 0.0
        assert result.metrics["accuracy"].is_score_valid is False


def test_answer_helpers() -> None:
    assert helpers.normalize_text("The answer is 3.14 (approximately).") == (
        "the answer is 314 approximately"
    )
    assert helpers.compare_math_expressions("3.14", "3.14159") == 1.0
    assert helpers.compare_math_expressions("3.15", "3.14159") == 0.0
    assert helpers.compare_math_expressions("Paris", "paris") == 1.0
    assert helpers.compare_math_expressions("London", "Paris") < 0.5
    assert helpers.count_tokens("a b  c") == 3
    assert helpers.get_ngrams("to be or not to be", 2) == (
        [("to", "be"), ("be", "or"), ("or", "not"), ("not", "to"), ("to", "be")],
        5,
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("<answer>77</answer> but 99", [("<answer>77</answer>", 77.0)]),
        ("\\boxed{A} and \\boxed{1/2}", [("\\boxed{A}", "A"), ("\\boxed{1/2}", 0.5)]),
        ("\\boxed{x^2+1}", []),
        ("#### 1,234.5.", [("#### 1,234.5", 1234.5)]),
        ("It is 42 km, not 4x or 3 y.", [("42 km", 42.0)]),
        (
            "$3 \\times 10^{8}$ and $\\frac{1}{4}$",
            [("3 \\times 10^{8}", 3e8), ("\\frac{1}{4}", 0.25)],
        ),
        ("$\\sqrt{2}$", []),
        ("choose (A)", []),
    ],
)
def test_extract_numbers(text: str, expected: list[tuple[str, float | str]]) -> None:
    assert helpers.extract_numbers(text) == expected


def test_compare_numbers() -> None:
    assert helpers.compare_numbers(42.0, 42.0) == (True, 1.0)
    assert helpers.compare_numbers(10.0, 11.0, relative_tolerance=0.01) == (
        False,
        pytest.approx(0.9),
    )
    assert helpers.compare_numbers(0.0, 1e-5, absolute_tolerance=1e-4) == (True, 1.0)
    assert helpers.compare_numbers(0.0, 1e-3, absolute_tolerance=1e-4) == (False, 0.0)


def test_math_reward_final_answer_counts_but_a_wrong_one_is_ambiguous() -> None:
    assert math_reward(said("I think 12 apples, total 42"), "42").score == 1.0
    ambiguous = math_reward(said("So $x = \\frac{1}{4}$. Other numbers: 1, 2, 3."), "1/4")
    assert ambiguous.score == 0.0
    assert "strictness_penalty_ambiguity" in ambiguous.metrics


def test_match_function_call_and_schema_helpers() -> None:
    schema = {"name": "f", "arguments": {"a": {"type": "number"}, "b": {"type": "string"}}}
    good = helpers.match_function_call([], "f", {"a": 1, "b": "x"}, schema)
    assert good.score == 1.0
    extra = helpers.match_function_call([], "f", {"a": 1, "b": "x", "c": 0}, schema)
    assert extra.score == pytest.approx(2 / 3)
    assert "Unexpected argument: c" in extra.metrics["arguments_match"].reason
    lenient = helpers.match_function_call([], "f", {"a": 1, "b": "x", "c": 0}, schema, "permissive")
    assert lenient.score == 1.0
    typed = helpers.match_function_call([], "f", {"a": True, "b": "x"}, schema)
    assert (
        "Type mismatch for a: expected number, got bool" in typed.metrics["arguments_match"].reason
    )
    assert helpers.match_function_call([], "g", {"a": 1, "b": "x"}, schema).score == 0.0
    with pytest.raises(ValueError, match="argument_match_strictness must be one of"):
        helpers.match_function_call([], "f", {}, schema, "loose")  # type: ignore[arg-type]
    assert helpers.calculate_jaccard_similarity(set(), set()) == 1.0
    assert helpers.extract_schema_properties(
        {"properties": {"a": {"type": ["string", "null"]}}}
    ) == {("a", "string|null")}


def test_json_schema_similarity_gives_partial_credit_to_valid_json() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    }
    exact = json_schema_reward(said('{"name": "Ada", "age": 36}'), expected_schema=schema)
    assert exact.score == 1.0
    partial = json_schema_reward(said('{"name": "Ada", "email": "a@b"}'), expected_schema=schema)
    assert partial.score == pytest.approx(1 / 3)
    reason = partial.metrics["schema_similarity"].reason
    assert "Missing properties: age" in reason
    assert "Extra properties: email" in reason
    invalid = json_schema_reward(said("{not json"), expected_schema=schema)
    assert "Invalid JSON content" in invalid.metrics["error"].reason


def test_reward_kit_rewards_exports_the_deprecated_tool_rewards() -> None:
    rewards = importlib.import_module("reward_kit.rewards")
    calling = importlib.import_module("reward_kit.rewards.function_calling")
    for name in ("composite_function_call_reward", "llm_judge_reward", "schema_jaccard_reward"):
        assert getattr(rewards, name) is getattr(calling, name)
        assert name in rewards.__all__


def test_accuracy_ignores_the_same_fillers_everywhere() -> None:
    for filler in ("approximately", "about", "exactly"):
        boxed = accuracy_reward(said(f"The answer is \\boxed{{{filler} 4}}."), "4")
        assert boxed.score == 1.0, filler
