"""bfcl_reward: expected calls per turn, and the final state."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rewardkit.functions.builtin import bfcl_reward
from rewardkit.types import Message

GROUND_TRUTH = {
    "function_calls": [["cd(folder='docs')", "ls()"], ["touch(file_name='a.txt')"]],
    "comparable_state": {"cwd": "docs", "files": ["a.txt"]},
}
STATE = {"cwd": "docs", "files": ["a.txt"]}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def episode(*turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for i, calls in enumerate(turns):
        messages.append({"role": "user", "content": f"Task {i}"})
        messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        messages.append({"role": "tool", "content": "ok", "tool_call_id": "1"})
    return messages


GOOD = episode([call("ls"), call("cd", folder="docs")], [call("touch", file_name="a.txt")])


def test_all_calls_and_state_score_one() -> None:
    result = bfcl_reward(GOOD, GROUND_TRUTH, state=STATE)
    assert result.score == 1.0
    assert result.metrics["function_calls"].success is True
    assert result.metrics["state"].success is True


def test_each_check_is_worth_half() -> None:
    assert bfcl_reward(GOOD, GROUND_TRUTH, state={"cwd": "/"}).score == 0.5
    missing = episode([call("cd", folder="docs")], [call("touch", file_name="a.txt")])
    result = bfcl_reward(missing, GROUND_TRUTH, state=STATE)
    assert result.score == 0.5
    assert "missing ls()" in (result.metrics["function_calls"].reason or "")


def test_calls_must_happen_in_their_turn() -> None:
    swapped = episode([call("touch", file_name="a.txt")], [call("cd", folder="docs"), call("ls")])
    assert bfcl_reward(swapped, GROUND_TRUTH, state=STATE).score == 0.5


def test_extra_calls_are_allowed_and_arguments_must_match() -> None:
    extra = episode(
        [call("pwd"), call("ls"), call("cd", folder="docs")], [call("touch", file_name="a.txt")]
    )
    assert bfcl_reward(extra, GROUND_TRUTH, state=STATE).score == 1.0
    wrong = episode([call("ls"), call("cd", folder="src")], [call("touch", file_name="a.txt")])
    assert bfcl_reward(wrong, GROUND_TRUTH, state=STATE).score == 0.5


def test_turns_that_do_not_line_up_are_compared_as_a_whole() -> None:
    one_turn = episode([call("ls"), call("cd", folder="docs"), call("touch", file_name="a.txt")])
    assert bfcl_reward(one_turn, GROUND_TRUTH, state=STATE).score == 1.0


def test_flat_dict_calls_and_message_objects() -> None:
    truth = {"function_calls": [{"name": "cd", "arguments": '{"folder": "docs"}'}]}
    messages = [Message(role="user", content="go"), Message(**GOOD[1])]
    assert bfcl_reward(messages, json.dumps(truth)).score == 1.0


def test_state_from_a_resource() -> None:
    class Resource:
        def get_comparable_state(self) -> dict[str, Any]:
            return {"cwd": "docs", "files": ("a.txt",)}

    assert bfcl_reward(GOOD, GROUND_TRUTH, state=Resource()).score == 1.0
    assert bfcl_reward(GOOD, GROUND_TRUTH, state={"resource": Resource()}).score == 1.0


def test_missing_state_or_malformed_calls_give_no_credit() -> None:
    result = bfcl_reward(GOOD, GROUND_TRUTH)
    assert result.score == 0.5
    assert "no state was given" in (result.metrics["state"].reason or "")
    broken = [
        {"role": "user", "content": "x"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"type": "function", "function": {"name": "ls", "arguments": "[" * 100_000}}
            ],
        },
    ]
    assert bfcl_reward(broken, {"function_calls": ["ls()"]}).score == 0.0


@pytest.mark.parametrize(
    ("ground_truth", "why"),
    [
        (None, "must be a dict"),
        ("{", "not JSON"),
        ({"other": 1}, "must be a dict"),
        ({"function_calls": "ls()"}, "must be a list"),
        ({"function_calls": ["ls(1)"]}, "keyword arguments only"),
        ({"function_calls": ["import os"]}, "cannot read the expected call"),
        ({"function_calls": [3]}, "must be a string or a dict"),
        ({"function_calls": [{"name": "f", "arguments": "{"}]}, "are not JSON"),
    ],
)
def test_bad_ground_truth_scores_zero(ground_truth: Any, why: str) -> None:
    result = bfcl_reward(GOOD, ground_truth, state=STATE)
    assert result.score == 0.0
    assert why in (result.metrics["error"].reason or "")
