"""A Harbor pod's raw `events.jsonl` (Claude Code stream-json) reads as the harness's
`events.json` would (reference/runs-directory.md: "Harbor pods instead write raw
`events.jsonl`, which the scorer normalizes on load")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardkit._evaluate import score_cases
from rewardkit._untrusted import CapExceeded
from rewardkit.sources._cases import case_record
from rewardkit.sources._events import RESULT_CAP, stream_events
from rewardkit.sources.eval_yaml import load_suite

LINES = [
    {"type": "system", "subtype": "init", "model": "claude-sonnet-4-5"},
    {
        "type": "assistant",
        "message": {
            "content": [
                {"type": "thinking", "thinking": "look at the docs"},
                {"type": "text", "text": "Reading the guide."},
                {
                    "type": "tool_use",
                    "id": "t1",
                    "name": "Read",
                    "input": {"file_path": "/w/docs/setup.md"},
                },
            ]
        },
    },
    {
        "type": "user",
        "message": {
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "# Setup"}],
                }
            ]
        },
    },
    {
        "type": "assistant",
        "parent_tool_use_id": "t9",
        "agent_id": "a1",
        "message": {"content": [{"type": "text", "text": "subagent chatter"}]},
    },
    {
        "type": "assistant",
        "message": {"content": [{"type": "text", "text": "Done: see setup.md."}]},
    },
    {"type": "result", "total_cost_usd": 0.25, "num_turns": 3},
]


def transcript() -> str:
    return "\n".join([*map(json.dumps, LINES), "not json", "[1, 2]", ""])


def test_stream_json_becomes_the_flat_events() -> None:
    events = stream_events(transcript(), "events.jsonl")
    assert [e["type"] for e in events] == [
        "system", "assistant", "tool_result", "assistant", "assistant", "result",
    ]  # fmt: skip
    assert events[0] == {"type": "system", "subtype": "init", "model": "claude-sonnet-4-5"}
    assert events[1] == {
        "type": "assistant",
        "text": "Reading the guide.",
        "thinking": "look at the docs",
        "tools": [{"name": "Read", "id": "t1", "input": {"file_path": "/w/docs/setup.md"}}],
    }
    assert events[2]["tool_name"] == "Read"
    assert events[2]["content"] == "# Setup"
    assert events[3]["parent_tool_use_id"] == "t9"
    assert events[3]["agent_id"] == "a1"
    assert events[5] == {"type": "result", "cost_usd": 0.25, "num_turns": 3}


def test_a_long_tool_result_is_cut() -> None:
    line = {
        "type": "user",
        "message": {"content": [{"type": "tool_result", "content": "x" * (RESULT_CAP + 5)}]},
    }
    (event,) = stream_events(json.dumps(line), "events.jsonl")
    assert len(event["content"]) == RESULT_CAP
    assert event["truncated"] is True
    assert event["original_length"] == RESULT_CAP + 5


def test_a_line_nested_too_deeply_is_a_cap_error() -> None:
    with pytest.raises(CapExceeded, match=r"events\.jsonl is nested deeper"):
        stream_events("[" * 5000 + "]" * 5000, "events.jsonl")


def test_a_case_with_events_jsonl_gets_events_conversation_and_consulted_docs(
    tmp_path: Path,
) -> None:
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "events.jsonl").write_text(transcript())
    (case / "annotations.yaml").write_text("expected_files: [docs/setup.md]\n")
    record = case_record(case)
    assert [e["type"] for e in record["events"]][:2] == ["system", "assistant"]
    assert "Done: see setup.md." in record["conversation"]
    assert "subagent chatter" not in record["conversation"]  # root-level text only
    (tmp_path / "eval.yaml").write_text(
        "dataset: {path: cases}\njudges:\n  - {name: used_docs, builtin: consulted_docs}\n"
    )
    (result,) = score_cases(load_suite(tmp_path / "eval.yaml"), [case])
    (outcome,) = result.outcomes
    assert (outcome.status, outcome.raw) == ("scored", True)


def test_events_json_wins_over_events_jsonl(tmp_path: Path) -> None:
    (tmp_path / "events.json").write_text(
        '[{"type": "assistant", "text": "from json", "tools": []}]'
    )
    (tmp_path / "events.jsonl").write_text(transcript())
    assert case_record(tmp_path)["events"] == [
        {"type": "assistant", "text": "from json", "tools": []}
    ]
