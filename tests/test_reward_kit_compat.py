"""`reward_kit`: Fireworks reward-kit code runs unchanged, seed 003's examples as written.

Each `test_seed_*` holds one code example of seed 003 ("Core Data Types") verbatim, except
for what the seed leaves undefined (`evaluate_clarity`) and the asserts added after it.
No `from __future__ import annotations` here: the annotations are evaluated, as in most
users' code.
"""

import importlib
from typing import Any

import pytest

import rewardkit

# --- imports -------------------------------------------------------------------------------


def test_top_level_imports() -> None:
    from reward_kit import (
        EvaluateResult,
        Message,
        MetricResult,
        MetricRewardOutput,
        RewardOutput,
        reward_function,
    )

    assert EvaluateResult is rewardkit.EvaluateResult
    assert MetricResult is rewardkit.MetricResult
    assert Message is rewardkit.Message
    assert RewardOutput is rewardkit.RewardOutput
    assert MetricRewardOutput is rewardkit.MetricRewardOutput
    # reward-kit's decorator is rewardkit's plus 0.4.1's rule that **kwargs is required
    assert reward_function is not rewardkit.reward_function
    with pytest.raises(ValueError, match=r"Function 'f' must accept \*\*kwargs parameter"):

        @reward_function
        def f(messages: Any) -> float:
            return 1.0

    assert reward_function(lambda messages, **kwargs: 1.0)([]).score == 1.0


def test_module_paths_of_reward_kit() -> None:
    from reward_kit.models import EvaluateResult, Message, MetricResult, StepOutput
    from reward_kit.reward_function import reward_function as from_reward_function
    from reward_kit.typed_interface import reward_function as from_typed_interface

    assert from_reward_function is from_typed_interface
    assert (EvaluateResult, Message, MetricResult) == (
        rewardkit.EvaluateResult,
        rewardkit.Message,
        rewardkit.MetricResult,
    )
    assert StepOutput(step_index=0, base_reward=1.0).base_reward == 1.0


def test_the_reward_function_submodule_does_not_shadow_the_decorator() -> None:
    import reward_kit

    importlib.import_module("reward_kit.reward_function")
    assert reward_kit.reward_function is reward_kit.typed_interface.reward_function
    assert callable(reward_kit.reward_function)


# --- seed 003: "The Message Class" / "Message Dictionary Format" ---------------------------


def test_seed_message_class() -> None:
    from reward_kit import Message

    message = Message(
        role="assistant",
        content="This is the response content",
        name=None,  # Optional
        tool_call_id=None,  # Optional, for tool calling
        tool_calls=None,  # Optional, for tool calling
        function_call=None,  # Optional, for function calling
    )

    assert (message.role, message.content) == ("assistant", "This is the response content")


def test_seed_message_dictionary_format() -> None:
    from reward_kit import Message

    message_dict = {"role": "assistant", "content": "This is the response content"}

    assert Message.model_validate(message_dict).model_dump(exclude_none=True) == message_dict


# --- seed 003: "EvaluateResult Class" / "MetricResult Class" -------------------------------


def test_seed_evaluate_result_class() -> None:
    from reward_kit import EvaluateResult, MetricResult

    result = EvaluateResult(
        score=0.75,  # Overall score between 0.0 and 1.0
        reason="The response meets quality requirements",  # Optional explanation
        metrics={  # Component metrics dictionary
            "clarity": MetricResult(score=0.8, reason="The response is clear and concise"),
            "accuracy": MetricResult(score=0.7, reason="Contains one minor factual error"),
        },
    )

    assert result.score == 0.75
    assert result["metrics"]["accuracy"].reason == "Contains one minor factual error"
    assert result.error is None


def test_seed_metric_result_class() -> None:
    from reward_kit import MetricResult

    metric = MetricResult(
        score=0.8,  # Score for this specific metric
        reason="Explanation for why this score was assigned",  # Description
        success=True,  # Optional success indicator
    )

    assert metric.success is True  # reward-kit 0.4.1 drops it; the seed documents it


# --- seed 003: "Deprecated Output Types" / "Type Conversion" -------------------------------


def test_seed_deprecated_output_types() -> None:
    # Deprecated - use EvaluateResult instead
    from reward_kit import MetricRewardOutput, RewardOutput

    # This will show a deprecation warning
    with pytest.warns(DeprecationWarning, match="is deprecated") as caught:
        result = RewardOutput(
            score=0.75,
            metrics={
                "clarity": MetricRewardOutput(score=0.8, reason="The response is clear and concise")
            },
        )

    # Convert to the preferred EvaluateResult format
    evaluate_result = result.to_evaluate_result()

    assert sorted(str(w.message).split()[0] for w in caught) == [
        "MetricRewardOutput",
        "RewardOutput",
    ]
    assert evaluate_result.metrics["clarity"].reason == "The response is clear and concise"


def test_seed_type_conversion() -> None:
    from reward_kit import EvaluateResult, MetricResult, MetricRewardOutput, RewardOutput

    # Convert EvaluateResult to RewardOutput (for backwards compatibility)
    evaluate_result = EvaluateResult(
        score=0.8, metrics={"quality": MetricResult(score=0.8, reason="Good quality")}
    )
    with pytest.warns(DeprecationWarning, match="RewardOutput is deprecated"):
        reward_output = evaluate_result.to_reward_output()
    assert reward_output.metrics["quality"].score == 0.8

    # Convert RewardOutput to EvaluateResult
    with pytest.warns(DeprecationWarning, match="RewardOutput is deprecated"):
        reward_output = RewardOutput(
            score=0.9, metrics={"clarity": MetricRewardOutput(score=0.9, reason="Very clear")}
        )
    evaluate_result = reward_output.to_evaluate_result()
    assert evaluate_result == EvaluateResult(
        score=0.9, metrics={"clarity": MetricResult(score=0.9, reason="Very clear")}
    )


# --- seed 003: "Using Types in Reward Functions" -------------------------------------------


def evaluate_clarity(response: str) -> float:
    """Undefined in the seed: shorter sentences read as clearer (a stand-in)."""
    words = response.split()
    return 0.0 if not words else min(1.0, 10 / len(words))


def test_seed_using_types_in_reward_functions() -> None:
    from typing import Any, Dict, List, Optional  # noqa: UP035

    from reward_kit import EvaluateResult, Message, MetricResult, reward_function

    @reward_function
    def my_reward_function(
        messages: List[Dict[str, str]],  # noqa: UP006
        original_messages: Optional[List[Dict[str, str]]] = None,  # noqa: UP006, UP045
        metadata: Optional[Dict[str, Any]] = None,  # noqa: UP006, UP045
        **kwargs,  # type: ignore[no-untyped-def]
    ) -> EvaluateResult:
        """
        Example reward function with proper type annotations.
        """
        # Default values
        metadata = metadata or {}

        # Get the assistant's response
        response = messages[-1].get("content", "")

        # Evaluate the response
        clarity_score = evaluate_clarity(response)

        # Create metrics
        metrics = {
            "clarity": MetricResult(
                score=clarity_score,
                reason=f"Clarity score: {clarity_score:.2f}",
                success=clarity_score >= 0.7,  # Optional success indicator
            )
        }

        return EvaluateResult(
            score=clarity_score,
            reason=f"Overall quality assessment: {clarity_score:.2f}",
            metrics=metrics,
        )

    short = [{"role": "user", "content": "Hi?"}, {"role": "assistant", "content": "Hello there."}]
    result = my_reward_function(messages=short, metadata={"id": 1})
    assert result.score == 1.0
    assert result.metrics["clarity"].success is True
    # `Message` objects work too: the annotation asks for dicts, so they are dumped to dicts.
    long = [Message(role="assistant", content="word " * 20)]
    result = my_reward_function(long, original_messages=[Message(role="user", content="Hi?")])
    assert result.score == 0.5
    assert result.metrics["clarity"].success is False
    assert result.reason == "Overall quality assessment: 0.50"


# --- seed 003: "Migration from RewardOutput to EvaluateResult" -----------------------------


def test_seed_migration_old_code() -> None:
    from reward_kit import MetricRewardOutput, RewardOutput, reward_function

    # Old code (deprecated)
    @reward_function
    def my_reward(messages, **kwargs):  # type: ignore[no-untyped-def]
        # ...
        return RewardOutput(
            score=0.75,
            metrics={"clarity": MetricRewardOutput(score=0.8, reason="Clear explanation")},
        )

    with pytest.warns(DeprecationWarning, match="RewardOutput is deprecated"):
        result = my_reward([{"role": "assistant", "content": "x"}])
    assert isinstance(result, rewardkit.EvaluateResult)
    assert (result.score, result.metrics["clarity"].score) == (0.75, 0.8)


def test_seed_migration_new_code() -> None:
    from reward_kit import EvaluateResult, MetricResult, reward_function

    # New code (preferred)
    @reward_function
    def my_reward(messages, **kwargs):  # type: ignore[no-untyped-def]
        # ...
        return EvaluateResult(
            score=0.75,
            reason="Overall assessment",  # Add an overall reason
            metrics={
                "clarity": MetricResult(
                    score=0.8,
                    reason="Clear explanation",
                    success=True,  # Add success flag if applicable
                )
            },
        )

    result = my_reward([{"role": "assistant", "content": "x"}])
    assert result.reason == "Overall assessment"
    assert result.metrics["clarity"].success is True


# --- reward-kit 0.4.1 habits that keep working ---------------------------------------------


def test_reward_kit_habits() -> None:
    from typing import List  # noqa: UP035

    from reward_kit import EvaluateResult, Message, MetricResult, reward_function

    @reward_function
    def fmt(messages: List[Message], **kwargs: Any) -> EvaluateResult:  # noqa: UP006
        ok = messages[-1].content.startswith("<think>")  # type: ignore[union-attr]
        return EvaluateResult(
            score=float(ok),
            metrics={"format_check": MetricResult(score=float(ok), reason="", is_score_valid=ok)},
        )

    result = fmt([{"role": "assistant", "content": "no tags"}])
    assert result.metrics["format_check"].is_score_valid is False  # 0.4.1's pass/fail flag
    assert result.get("score") == 0.0  # the TRL adapter's `result.get("score")`
    assert result.model_dump()["metrics"]["format_check"] == {
        "is_score_valid": False,
        "score": 0.0,
        "reason": "",
    }
    assert EvaluateResult.model_validate(result.model_dump()) == result


# --- rewardkit.functions forwards the built-ins --------------------------------------------


def test_functions_forwards_builtins(monkeypatch: pytest.MonkeyPatch) -> None:
    import rewardkit.functions as functions
    from rewardkit.functions import builtin

    name = builtin.__all__[0]
    assert getattr(functions, name) is getattr(builtin, name)
    assert set(builtin.__all__) | {"EvaluationMode", "reward_function"} == set(dir(functions))
    with pytest.raises(AttributeError, match=r"has no reward function 'nope_reward'\."):
        functions.nope_reward  # noqa: B018
    with pytest.raises(AttributeError, match="has no attribute '_private'"):
        functions._private  # noqa: B018


def test_functions_without_the_builtin_package(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import rewardkit.functions as functions

    monkeypatch.setitem(sys.modules, "rewardkit.functions.builtin", None)
    with pytest.raises(
        AttributeError,
        match=r"has no attribute 'math_reward': the built-in reward functions "
        r"\(rewardkit\.functions\.builtin\) are not installed",
    ):
        functions.__getattr__("math_reward")
    assert dir(functions) == ["EvaluationMode", "reward_function"]


def test_functions_reports_a_broken_builtin_import(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import rewardkit.functions as functions

    def broken(name: str) -> None:
        raise ModuleNotFoundError("No module named 'math_verify'", name="math_verify")

    monkeypatch.delitem(sys.modules, "rewardkit.functions.builtin", raising=False)
    monkeypatch.setattr(functions, "import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="math_verify"):
        functions.__getattr__("math_reward")


# --- reward-kit 0.4.1's other names: RewardFunction, reward_protocol, load_jsonl -----------


def test_reward_function_class_local_and_remote(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from reward_kit import EvaluateResult, RewardFunction

    module = sys.modules["reward_kit.reward_function"]  # the attribute is the decorator

    def length(messages: Any, ground_truth: Any = None, **kwargs: Any) -> EvaluateResult:
        return EvaluateResult(score=len(ground_truth) + kwargs["bonus"])

    rf = RewardFunction(func=length, bonus=0.5)
    convo = [{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]
    assert rf(convo).score == 1.5  # ground_truth defaults to messages[:-1]
    assert rf(convo, bonus=2).score == 3.0  # call-time kwargs win
    assert rf.get_trl_adapter()([[convo[0]]], ["a"], solution=["xyz"]) == [3.5]
    with pytest.raises(ValueError, match="Invalid mode: cloud"):
        RewardFunction(func=length, mode="cloud")

    class Reply:
        status_code = 200

        @staticmethod
        def json() -> dict[str, Any]:
            return {"score": 0.8, "metrics": {"m": {"score": 0.8, "success": False}}}

    posted: list[dict[str, Any]] = []

    class Requests:
        @staticmethod
        def post(url: str, **kwargs: Any) -> Reply:
            posted.append({"url": url, **kwargs})
            return Reply()

    monkeypatch.setattr(module, "requests", Requests)
    remote = RewardFunction(mode="fireworks_hosted", model_id="acct/m")(convo, ground_truth="x")
    assert remote.metrics["m"].is_score_valid is False
    assert posted[0]["url"].endswith("/v1/models/acct/m/reward")
    assert posted[0]["json"]["ground_truth"] == "x"


def test_reward_protocol_is_reward_kit(tmp_path: Any) -> None:
    import reward_kit
    import reward_protocol

    assert reward_protocol.__all__ == reward_kit.__all__
    assert reward_protocol.__version__ == reward_kit.__version__ == "0.4.1"
    assert reward_protocol.models is reward_kit.models
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n\nnot json\n{"b": 2}\n')
    assert reward_kit.load_jsonl(path) == [{"a": 1}, {"b": 2}]
