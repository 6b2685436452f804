"""`rewardkit.types`: fields, defaults, aliases, dict access, deprecations, conversions."""

from __future__ import annotations

import json
import math
import pickle
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

import rewardkit as rk
from rewardkit import Outcome
from rewardkit.types import (
    EvaluateResult,
    FunctionCall,
    Message,
    MetricResult,
    MetricRewardOutput,
    RewardOutput,
    StepOutput,
    ToolCall,
)

NON_FINITE = [math.nan, math.inf, -math.inf]

# --- Message -------------------------------------------------------------------------------


def test_message_defaults_and_dump() -> None:
    msg = Message(role="user")
    assert msg.model_dump() == {
        "role": "user",
        "content": "",
        "name": None,
        "tool_call_id": None,
        "tool_calls": None,
        "function_call": None,
    }


def test_message_requires_a_string_role() -> None:
    with pytest.raises(ValidationError, match=r"role\n  Field required"):
        Message(content="hi")  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match=r"role\n  Input should be a valid string"):
        Message(role=3)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^Role is required: .*\(got keys: \['content'\]\)"):
        Message.model_validate({"content": "hi"})  # reward-kit 0.4.1's plain ValueError
    assert Message(role="developer").role == "developer"  # any role name


def test_message_content_text_parts_or_none() -> None:
    parts = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "https://x/y.png"}},
    ]
    assert Message(role="user", content=parts).content == parts
    assert Message(role="assistant", content=None).content is None
    with pytest.raises(ValidationError, match="content part 1 needs a string 'type'"):
        Message(role="user", content=[{"type": "text", "text": "a"}, {"text": "b"}])
    with pytest.raises(ValidationError, match="content"):
        Message(role="user", content=3)  # type: ignore[arg-type]


def test_message_keeps_unknown_keys() -> None:
    msg = Message.model_validate(
        {"role": "assistant", "content": "4", "reasoning_content": "2 + 2 = 4"}
    )
    assert msg.model_extra == {"reasoning_content": "2 + 2 = 4"}
    assert msg.model_dump(exclude_none=True) == {
        "role": "assistant",
        "content": "4",
        "reasoning_content": "2 + 2 = 4",
    }
    assert msg["reasoning_content"] == "2 + 2 = 4"
    assert list(msg.keys())[-1] == "reasoning_content"


def test_message_tool_calls() -> None:
    msg = Message(
        role="assistant",
        content=None,
        tool_calls=[
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}},
            {"function": {"name": "g", "arguments": {"b": [1, 2]}}},  # no id, dict arguments
        ],
        function_call={"name": "legacy", "arguments": "{}"},
    )
    assert msg.tool_calls is not None
    first, second = msg.tool_calls
    assert (first.id, first.type, first.function.name) == ("c1", "function", "f")
    assert (second.id, second.type, second.function.arguments) == (
        None,
        "function",
        '{"b": [1, 2]}',
    )
    assert isinstance(first, ToolCall)
    assert msg.function_call == FunctionCall(name="legacy", arguments="{}")
    assert msg.model_dump()["tool_calls"][0] == {
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a": 1}'},
    }
    with pytest.raises(ValidationError, match=r"tool_calls\.0\.function\.name\n  Field required"):
        Message(role="assistant", tool_calls=[{"function": {"arguments": "{}"}}])


def test_message_dict_access() -> None:
    msg = Message(role="user", content="hi")
    assert msg["role"] == "user"
    assert msg.get("name") is None
    assert msg.get("missing", "d") == "d"
    assert "content" in msg
    assert "missing" not in msg
    with pytest.raises(KeyError, match="Message has no key 'missing'; valid keys: role, content"):
        msg["missing"]


# --- MetricResult --------------------------------------------------------------------------


def test_metric_result_fields_and_defaults() -> None:
    metric = MetricResult(score=0.8, reason="clear")
    # reward-kit 0.4.1's shape; `success` is dumped only when given
    assert metric.model_dump() == {"is_score_valid": True, "score": 0.8, "reason": "clear"}
    assert metric.success is None
    assert metric.is_score_valid is True
    assert list(MetricResult.model_fields) == ["is_score_valid", "score", "reason", "success"]


def test_metric_result_keeps_success() -> None:
    metric = MetricResult(score=0.4, reason="unclear", success=False)
    assert metric.success is False
    assert metric.model_dump()["success"] is False
    assert MetricResult.model_validate(metric.model_dump()) == metric


def test_success_sets_is_score_valid() -> None:
    metric = MetricResult(score=0.0, reason="bad format", is_score_valid=False)
    assert metric.success is None  # not given
    assert metric.is_score_valid is False
    assert metric["is_score_valid"] is False
    assert "is_score_valid" in metric
    assert "success" not in metric
    failed = MetricResult(score=0.0, reason="bad format", success=False)
    assert failed.is_score_valid is False
    assert failed.model_dump() == {
        "is_score_valid": False,
        "score": 0.0,
        "reason": "bad format",
        "success": False,
    }
    agreeing = MetricResult.model_validate(
        {"score": 1, "reason": "", "success": True, "is_score_valid": True}
    )
    assert agreeing.success is True


def test_success_and_is_score_valid_must_agree() -> None:
    with pytest.raises(
        ValidationError,
        match=r"success=True and is_score_valid=False disagree; .*pass only one of them",
    ):
        MetricResult.model_validate(
            {"score": 1, "reason": "", "success": True, "is_score_valid": False}
        )


def test_metric_result_requires_score_and_reason() -> None:
    with pytest.raises(ValidationError, match=r"reason\n  Field required"):
        MetricResult(score=1.0)  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match=r"reason\n  Input should be a valid string"):
        MetricResult(score=1.0, reason=None)  # type: ignore[arg-type]
    with pytest.raises(ValidationError, match=r"score\n  Field required"):
        MetricResult(reason="x")  # type: ignore[call-arg]


@pytest.mark.parametrize("score", NON_FINITE)
def test_metric_result_rejects_non_finite_scores(score: float) -> None:
    with pytest.raises(ValidationError, match=r"score\n  Input should be a finite number"):
        MetricResult(score=score, reason="x")


def test_metric_result_scores_are_not_bounded_to_unit_interval() -> None:
    assert MetricResult(score=1.5, reason="bonus").score == 1.5
    assert MetricResult(score=-0.1, reason="penalty").score == -0.1


def test_assignments_are_validated() -> None:
    metric = MetricResult(score=0.5, reason="x")
    with pytest.raises(ValidationError, match="finite number"):
        metric.score = math.nan
    result = EvaluateResult(score=0.5)
    with pytest.raises(ValidationError, match="valid number"):
        result.score = "abc"  # type: ignore[assignment]


# --- EvaluateResult ------------------------------------------------------------------------


def test_evaluate_result_fields_defaults_and_order() -> None:
    result = EvaluateResult(score=0.5)
    assert result.model_dump() == {
        "score": 0.5,
        "is_score_valid": True,
        "reason": None,
        "metrics": {},
        "step_outputs": None,
        "error": None,
    }
    assert list(result.keys()) == [
        "score",
        "is_score_valid",
        "reason",
        "metrics",
        "step_outputs",
        "error",
    ]
    assert EvaluateResult(score=1).metrics is not result.metrics  # no shared default


def test_evaluate_result_full() -> None:
    result = EvaluateResult(
        score=7.0,  # unbounded, like reward-kit's
        is_score_valid=False,
        reason="r",
        metrics={"m": {"score": 1.0, "reason": "ok", "success": True}},
        step_outputs=[{"step_index": 0, "base_reward": -1.0}],
        error="judge unreachable",
    )
    assert isinstance(result.metrics["m"], MetricResult)
    assert result.step_outputs == [StepOutput(step_index=0, base_reward=-1.0)]
    assert json.loads(result.model_dump_json())["metrics"]["m"]["success"] is True


@pytest.mark.parametrize(
    ("score", "message"),
    [
        (None, "Input should be a valid number"),
        ("high", "Input should be a valid number, unable to parse string as a number"),
        ([0.5], "Input should be a valid number"),
        (math.nan, "Input should be a finite number"),
        (math.inf, "Input should be a finite number"),
    ],
)
def test_evaluate_result_score_must_be_a_finite_number(score: object, message: str) -> None:
    with pytest.raises(
        ValidationError, match=rf"1 validation error for EvaluateResult\nscore\n  {message}"
    ):
        EvaluateResult(score=score)  # type: ignore[arg-type]


def test_evaluate_result_metrics_must_be_metric_results() -> None:
    with pytest.raises(ValidationError, match=r"metrics\.m\n  Input should be a valid dictionary"):
        EvaluateResult(score=1.0, metrics={"m": 0.5})  # type: ignore[dict-item]
    with pytest.raises(ValidationError, match=r"metrics\n  Input should be a valid dictionary"):
        EvaluateResult(score=1.0, metrics=None)  # type: ignore[arg-type]


def test_unknown_keywords_are_ignored_like_reward_kit() -> None:
    assert EvaluateResult(score=1.0, agg_score=0.3).model_dump()["score"] == 1.0  # type: ignore[call-arg]


def test_step_output() -> None:
    step = StepOutput(step_index="turn-2", base_reward=2.5, metrics={"k": [1]}, reason="r")
    assert step.model_dump() == {
        "step_index": "turn-2",
        "base_reward": 2.5,
        "metrics": {"k": [1]},
        "reason": "r",
    }
    with pytest.raises(ValidationError, match="base_reward"):
        StepOutput(step_index=0, base_reward=math.nan)


# --- dict-style access ---------------------------------------------------------------------


def test_dict_access_on_results_without_warnings() -> None:
    result = EvaluateResult(
        score=0.5, reason="half", metrics={"m": MetricResult(score=1.0, reason="ok")}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert result["score"] == 0.5
        assert result["metrics"]["m"]["reason"] == "ok"
        assert isinstance(result["metrics"]["m"], MetricResult)
        assert result.get("reason") == "half"
        assert result.get("missing") is None
        assert result.get("missing", 0) == 0
        assert result.get("model_dump") is None  # methods are not keys
        assert "score" in result
        assert "model_dump" not in result
        assert 3 not in result
        assert dict(result.items())["reason"] == "half"
        assert result.values()[0] == 0.5
        assert dict(result) == dict(result.items())
        assert list(result) == list(result.keys())  # iterating yields keys, as in 0.4.1
        metric = result["metrics"]["m"]
        assert list(metric.keys()) == ["is_score_valid", "score", "reason"]
        assert list(metric.items()) == [("is_score_valid", True), ("score", 1.0), ("reason", "ok")]


def test_unknown_key_names_the_valid_keys() -> None:
    with pytest.raises(KeyError, match="EvaluateResult has no key 'scroe'; valid keys: score, "):
        EvaluateResult(score=1.0)["scroe"]


# --- deprecated types ----------------------------------------------------------------------


def test_reward_output_warns_once_and_converts() -> None:
    with pytest.warns(DeprecationWarning, match="RewardOutput") as caught:
        output = RewardOutput(score=0.75, metrics={"clarity": {"score": 0.8, "reason": "clear"}})
    assert [str(w.message) for w in caught] == [
        "RewardOutput is deprecated and will be removed in a future version; return an "
        "EvaluateResult instead (RewardOutput.to_evaluate_result() converts)."
    ]
    assert caught[0].filename == __file__  # points at the caller
    result = output.to_evaluate_result()
    assert result == EvaluateResult(
        score=0.75, metrics={"clarity": MetricResult(score=0.8, reason="clear")}
    )


def test_metric_reward_output_warns_and_converts() -> None:
    with pytest.warns(
        DeprecationWarning, match=r"^MetricRewardOutput is deprecated .* use MetricResult"
    ):
        metric = MetricRewardOutput(score=0.9)
    assert metric.reason is None
    assert metric.to_metric_result() == MetricResult(score=0.9, reason="")


def test_deprecated_types_validate_scores() -> None:
    with (
        pytest.warns(DeprecationWarning, match="RewardOutput"),
        pytest.raises(ValidationError, match="finite number"),
    ):
        RewardOutput(score=math.nan)
    with (
        pytest.warns(DeprecationWarning, match="MetricRewardOutput"),
        pytest.raises(ValidationError, match="finite number"),
    ):
        MetricRewardOutput(score=math.inf)


def test_to_reward_output_warns_once() -> None:
    result = EvaluateResult(
        score=0.8,
        reason="dropped: RewardOutput has no reason",
        metrics={
            "quality": MetricResult(score=0.8, reason="Good quality"),
            "style": MetricResult(score=0.6, reason="Plain", success=False),
        },
    )
    with pytest.warns(DeprecationWarning, match="RewardOutput") as caught:
        output = result.to_reward_output()
    assert len(caught) == 1
    assert "RewardOutput is deprecated" in str(caught[0].message)
    assert isinstance(output, RewardOutput)
    assert output.score == 0.8
    assert output.metrics["style"].reason == "Plain"
    assert output.to_evaluate_result() == EvaluateResult(
        score=0.8,
        metrics={
            "quality": MetricResult(score=0.8, reason="Good quality"),
            "style": MetricResult(score=0.6, reason="Plain"),
        },
    )


# --- Outcome conversions -------------------------------------------------------------------


def test_to_outcome_scored() -> None:
    result = EvaluateResult(
        score=0.75,
        reason="mostly right",
        metrics={"clarity": MetricResult(score=0.8, reason="clear", success=True)},
    )
    outcome = result.to_outcome("quality", weight=2.0)
    assert outcome == Outcome(
        name="quality",
        status="scored",
        value=0.75,
        raw=0.75,
        weight=2.0,
        reasoning="mostly right",
        extra={"metrics": {"clarity": {"score": 0.8, "reason": "clear", "success": True}}},
    )
    json.dumps(outcome.extra)  # plain data, ready for the details file


def test_to_outcome_keeps_validity_and_steps() -> None:
    result = EvaluateResult(
        score=0.0, is_score_valid=False, step_outputs=[StepOutput(step_index=1, base_reward=0.5)]
    )
    outcome = result.to_outcome("r")
    assert outcome.extra == {
        "is_score_valid": False,
        "step_outputs": [{"step_index": 1, "base_reward": 0.5, "metrics": {}, "reason": None}],
    }


def test_to_outcome_with_error_is_an_error_outcome() -> None:
    outcome = EvaluateResult(score=0.0, error="API down").to_outcome("judge")
    assert (outcome.status, outcome.value, outcome.raw, outcome.error) == (
        "error",
        None,
        0.0,
        "API down",
    )
    assert outcome.failed


@pytest.mark.parametrize(
    ("outcome", "expected"),
    [
        (
            Outcome(name="t", status="timeout"),
            EvaluateResult(score=0.0, is_score_valid=False, error="timeout"),
        ),
        (
            Outcome(name="e", status="error", error="ZeroDivisionError: boom", raw=0.3),
            EvaluateResult(score=0.3, is_score_valid=False, error="ZeroDivisionError: boom"),
        ),
        (
            Outcome(name="s", status="skipped", reasoning="condition false", raw=True),
            EvaluateResult(score=0.0, is_score_valid=False, reason="condition false"),
        ),
        (
            Outcome(name="c", status="scored", value=1.0, raw=True),
            EvaluateResult(score=1.0),
        ),
        (
            Outcome(name="n", status="error", raw=math.nan),
            EvaluateResult(score=0.0, is_score_valid=False, error="error"),
        ),
    ],
)
def test_from_outcome(outcome: Outcome, expected: EvaluateResult) -> None:
    assert EvaluateResult.from_outcome(outcome) == expected


finite = st.floats(allow_nan=False, allow_infinity=False, width=32)
metrics = st.dictionaries(
    st.text(max_size=5),
    st.builds(
        MetricResult, score=finite, reason=st.text(max_size=5), success=st.none() | st.booleans()
    ),
    max_size=3,
)
results = st.builds(
    EvaluateResult,
    score=finite,
    is_score_valid=st.booleans(),
    reason=st.none() | st.text(max_size=10),
    metrics=metrics,
    step_outputs=st.none()
    | st.lists(st.builds(StepOutput, step_index=st.integers(0, 9), base_reward=finite), max_size=2),
    error=st.none() | st.text(max_size=10),
)


@given(results)
def test_outcome_round_trip(result: EvaluateResult) -> None:
    assert EvaluateResult.from_outcome(result.to_outcome("x")) == result


# --- public homes --------------------------------------------------------------------------


def test_public_names_live_in_rewardkit_and_pickle() -> None:
    for cls in (EvaluateResult, Message, MetricResult, MetricRewardOutput, RewardOutput):
        assert cls.__module__ == "rewardkit"
        assert getattr(rk, cls.__name__) is cls
    result = EvaluateResult(score=0.5, metrics={"m": MetricResult(score=1, reason="r")})
    assert pickle.loads(pickle.dumps(result)) == result
    msg = Message(role="user", content="hi", extra_key=1)
    assert pickle.loads(pickle.dumps(msg)) == msg
