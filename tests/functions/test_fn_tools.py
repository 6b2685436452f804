"""exact_tool_match_reward."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rewardkit.functions.builtin import exact_tool_match_reward
from rewardkit.types import Message


def call(name: str, arguments: Any, call_id: str = "c") -> dict[str, Any]:
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}


def made(*calls: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Weather and time in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": list(calls)},
    ]


WEATHER = call("get_weather", {"city": "Paris", "unit": "C"}, "a")
TIME = call("get_time", {"tz": "Europe/Paris"}, "b")


def test_documented_ground_truth_format() -> None:
    truth = {
        "tool_calls": [
            {
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"unit": "C", "city": "Paris"}'},
            }
        ]
    }
    result = exact_tool_match_reward(made(WEATHER), truth)
    assert result.score == 1.0
    assert result.metrics["tool_call_match"].success is True


def test_readme_ground_truth_format_is_understood() -> None:
    # reward-kit 0.4.1 ignored {"name", "arguments"} entries and scored a correct call 0.0.
    truth = {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}}]}
    assert exact_tool_match_reward(made(WEATHER), truth).score == 1.0


def test_call_order_does_not_matter_by_default() -> None:
    # reward-kit 0.4.1 compared the lists in order.
    truth = {"tool_calls": [{"name": "get_time", "arguments": {"tz": "Europe/Paris"}},
                            {"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}}]}  # fmt: skip
    assert exact_tool_match_reward(made(WEATHER, TIME), truth).score == 1.0
    strict = exact_tool_match_reward(made(WEATHER, TIME), truth, order_sensitive=True)
    assert strict.score == 0.0
    assert strict.reason == "Exact tool match evaluation score: 0.0"  # 0.4.1's text
    assert "wrong order" in strict.metrics["tool_call_match"].reason
    assert exact_tool_match_reward(made(TIME, WEATHER), truth, order_sensitive=True).score == 1.0


def test_no_calls_expected_and_none_made_with_null_content() -> None:
    # reward-kit 0.4.1 raised TypeError here.
    messages = [{"role": "assistant", "content": None}]
    assert exact_tool_match_reward(messages, None).score == 1.0
    assert exact_tool_match_reward(made(WEATHER), None).score == 0.0
    assert exact_tool_match_reward(messages, {"tool_calls": []}).score == 1.0


@pytest.mark.parametrize(
    "truth",
    [
        [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}}],
        {"name": "get_weather", "arguments": '{"city":"Paris","unit":"C"}'},
        json.dumps(
            {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "unit": "C"}}]}
        ),
        {"role": "assistant", "content": None, "tool_calls": [WEATHER]},
        [{"role": "user", "content": "q"}, {"role": "assistant", "tool_calls": [WEATHER]}],
        [{"name": "get_weather", "parameters": {"city": "Paris", "unit": "C"}}],
    ],
)
def test_ground_truth_shapes(truth: Any) -> None:
    assert exact_tool_match_reward(made(WEATHER), truth).score == 1.0


def test_arguments_are_compared_as_json_values() -> None:
    spaced = call("f", '{ "n" : 1.0, "xs": [1, 2] }')
    assert (
        exact_tool_match_reward(
            made(spaced), [{"name": "f", "arguments": {"xs": [1, 2], "n": 1}}]
        ).score
        == 1.0
    )
    assert (
        exact_tool_match_reward(
            made(spaced), [{"name": "f", "arguments": {"xs": [2, 1], "n": 1}}]
        ).score
        == 0.0
    )
    empty = call("f", "")
    assert exact_tool_match_reward(made(empty), [{"name": "f", "arguments": {}}]).score == 1.0
    assert (
        exact_tool_match_reward(
            made(call("f", "not json")), [{"name": "f", "arguments": "not json"}]
        ).score
        == 1.0
    )


def test_wrong_and_missing_calls_are_explained() -> None:
    result = exact_tool_match_reward(
        made(call("get_weather", {"city": "Rome", "unit": "C"})), [WEATHER]
    )
    assert result.score == 0.0
    assert "Missing: get_weather" in result.metrics["tool_call_match"].reason
    assert "unexpected: get_weather" in result.metrics["tool_call_match"].reason
    duplicate = exact_tool_match_reward(made(WEATHER, WEATHER), [WEATHER])
    assert duplicate.score == 0.0


def test_calls_in_content_and_legacy_function_call() -> None:
    text = 'Sure.\n<tool_call>{"name": "get_time", "arguments": {"tz": "Europe/Paris"}}</tool_call>'
    assert exact_tool_match_reward([{"role": "assistant", "content": text}], [TIME]).score == 1.0
    legacy = [
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "get_time", "arguments": '{"tz": "Europe/Paris"}'},
        }
    ]
    assert exact_tool_match_reward(legacy, [TIME]).score == 1.0
    broken = [{"role": "assistant", "content": "<tool_call>{oops</tool_call>"}]
    assert exact_tool_match_reward(broken, [TIME]).score == 0.0


def test_message_objects() -> None:
    messages = [Message(role="assistant", content=None, tool_calls=[TIME, WEATHER])]
    assert exact_tool_match_reward(messages, [WEATHER, TIME]).score == 1.0


def test_bad_ground_truth_and_no_response() -> None:
    not_json = exact_tool_match_reward(made(WEATHER), "get_weather(Paris)")
    assert not_json.score == 0.0  # scored 0 with the reason, never raised
    assert "ground_truth is a string but not JSON" in (not_json.reason or "")
    wrong_type = exact_tool_match_reward(made(WEATHER), 42)
    assert "ground_truth must be None" in (wrong_type.reason or "")
    assert exact_tool_match_reward(made(WEATHER), {"unrelated": 1}).score == 0.0
    assert "No messages provided" in (exact_tool_match_reward([], {}).reason or "")
    assert exact_tool_match_reward([{"role": "user", "content": "x"}], None).score == 0.0
