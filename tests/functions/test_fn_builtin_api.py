"""The built-ins' public surface and the reward_kit.rewards compatibility modules."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys
import warnings

import pytest

import rewardkit.functions
import rewardkit.functions.builtin as builtin
from rewardkit.types import EvaluateResult

TOOL_CALL = {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}


def test_all_is_sorted_and_complete() -> None:
    assert builtin.__all__ == sorted(builtin.__all__)
    public = {n for n, v in vars(builtin).items() if callable(v) and not n.startswith("_")}
    assert public == set(builtin.__all__)


@pytest.mark.parametrize("name", builtin.__all__)
def test_every_builtin_is_a_reward_function(name: str) -> None:
    function = getattr(builtin, name)
    params = inspect.signature(function).parameters
    assert next(iter(params)) == "messages"
    assert "ground_truth" in params
    assert any(p.kind is p.VAR_KEYWORD for p in params.values())
    assert "Example:" in (function.__doc__ or "")
    assert getattr(rewardkit.functions, name) is function


def test_importing_the_builtins_loads_no_optional_package() -> None:
    heavy = [
        "math_verify",
        "sympy",
        "jsonschema",
        "rapidfuzz",
        "sacrebleu",
        "rouge_score",
        "nltk",
        "subprocess",
    ]
    script = f"import sys, rewardkit.functions.builtin; print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    ("module", "names"),
    [
        ("accuracy", ["accuracy_reward"]),
        ("code_execution", ["fractional_code_reward", "local_code_execution_reward"]),
        ("format", ["format_reward"]),
        ("function_calling", ["exact_tool_match_reward"]),
        ("json_schema", ["json_schema_reward"]),
        ("length", ["cosine_length_reward", "length_reward"]),
        ("math", ["math_reward"]),
        ("repetition", ["diversity_reward", "repetition_penalty_reward"]),
        ("tag_count", ["tag_count_reward"]),
        ("accuracy_length", ["cosine_scaled_accuracy_length_reward"]),
        ("apps_coding_reward", ["evaluate_apps_solution"]),
        ("bfcl_reward", ["bfcl_reward"]),
        ("deepcoder_reward", ["deepcoder_code_reward"]),
        ("json_schema", ["json_schema_reward_with_llm_judge"]),
        ("language_consistency", ["language_consistency_reward"]),
        ("list_comparison_math_reward", ["list_comparison_math_reward"]),
        ("multiple_choice_math_reward", ["multiple_choice_math_reward"]),
        ("reasoning_steps", ["reasoning_steps_reward", "sequence_reward"]),
    ],
)
def test_reward_kit_import_paths(module: str, names: list[str]) -> None:
    compat = importlib.import_module(f"reward_kit.rewards.{module}")
    rewards = importlib.import_module("reward_kit.rewards")
    for name in names:
        assert getattr(compat, name) is getattr(builtin, name)
        assert getattr(rewards, name) is getattr(builtin, name)


@pytest.mark.parametrize(
    "name", ["schema_jaccard_reward", "llm_judge_reward", "composite_function_call_reward"]
)
def test_deprecated_tool_rewards_warn_and_delegate(name: str) -> None:
    function = getattr(importlib.import_module("reward_kit.rewards.function_calling"), name)
    messages = [{"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}]
    message = f"`{name}` is deprecated and will be removed in a future version. Please use `exact_tool_match_reward`."
    with pytest.warns(DeprecationWarning, match=message) as record:
        result = function(messages, {"tool_calls": [{"name": "f", "arguments": {}}]})
    assert isinstance(result, EvaluateResult)
    assert result.score == 1.0
    assert record[0].filename == __file__


def test_dict_and_message_inputs_agree() -> None:
    from rewardkit.types import Message

    as_dicts = [{"role": "assistant", "content": "<think>\na\n</think>\n<answer>\nb\n</answer>"}]
    as_messages = [Message(**as_dicts[0])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert builtin.format_reward(as_dicts) == builtin.format_reward(as_messages)
