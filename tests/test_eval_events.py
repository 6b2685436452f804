"""A Harbor pod's raw `events.jsonl` (Claude Code stream-json) reads as the harness's
`events.json` would (reference/runs-directory.md: "Harbor pods instead write raw
`events.jsonl`, which the scorer normalizes on load")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rewardkit.core._untrusted import CapExceeded
from rewardkit.evalyaml import _case_text
from rewardkit.evalyaml._cases import Layout, case_record
from rewardkit.evalyaml._events import (
    RESULT_CAP,
    SHELL_BUDGET,
    SHELL_CHARS,
    command_reads,
    stream_events,
)
from rewardkit.evalyaml._score import score_cases
from rewardkit.evalyaml._suite import load_suite

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


# --- Codex `exec --json` (agent_eval/events.py of the harness reads both formats) ---------

SETUP_READ = "bash -lc \"sed -n '1,120p' docs/setup.md\""
CODEX_LINES = [
    {"type": "thread.started", "thread_id": "0199b5c4-3c2e-7d51-9a3b-6f3e2c1d0a11"},
    {"type": "turn.started"},
    {"type": "item.completed", "item": {"id": "item_0", "type": "reasoning", "text": "**Find the guide**"}},
    {
        "type": "item.started",
        "item": {"id": "item_1", "type": "command_execution", "command": SETUP_READ,
                 "aggregated_output": "", "exit_code": None, "status": "in_progress"},
    },
    {
        "type": "item.completed",
        "item": {"id": "item_1", "type": "command_execution", "command": SETUP_READ,
                 "aggregated_output": "# Setup\n\nThe port is 8080.\n", "exit_code": 0,
                 "status": "completed"},
    },
    {
        "type": "item.completed",
        "item": {"id": "item_2", "type": "command_execution", "command": "bash -lc 'make test'",
                 "aggregated_output": "FAILED test_port\n", "exit_code": 2, "status": "failed"},
    },
    {
        "type": "item.completed",
        "item": {"id": "item_3", "type": "mcp_tool_call", "server": "docs", "tool": "search",
                 "arguments": {"query": "default port"},
                 "result": {"content": [{"type": "text", "text": "8080"}]},
                 "error": None, "status": "completed"},
    },
    {
        "type": "item.completed",
        "item": {"id": "item_4", "type": "file_change", "status": "completed",
                 "changes": [{"path": "/w/src/app.py", "kind": "update"}]},
    },
    {"type": "item.completed", "item": {"id": "item_5", "type": "todo_list", "items": []}},
    {"type": "item.completed", "item": {"id": "item_6", "type": "agent_message",
                                        "text": "Fixed the port, as docs/setup.md says."}},
    {"type": "turn.completed",
     "usage": {"input_tokens": 24763, "cached_input_tokens": 24448, "output_tokens": 122}},
]  # fmt: skip


def codex_transcript() -> str:
    return "\n".join(json.dumps(line, separators=(",", ":")) for line in CODEX_LINES) + "\n"


def test_codex_items_become_the_flat_events() -> None:
    events = stream_events(codex_transcript(), "events.jsonl")
    assert [e["type"] for e in events] == [
        "assistant",  # reasoning (item.started lines are not events)
        "assistant", "tool_result",  # the read
        "assistant", "tool_result",  # make test
        "assistant", "tool_result",  # mcp
        "assistant", "tool_result",  # file change
        "assistant",  # agent message (a todo list is no event)
        "result",  # the turns, folded
    ]  # fmt: skip
    assert events[0] == {
        "type": "assistant",
        "text": "",
        "tools": [],
        "thinking": "**Find the guide**",
    }
    assert events[1]["tools"] == [
        {"name": "Bash", "id": "item_1",
         "input": {"command": SETUP_READ, "read_paths": ["docs/setup.md"]}},
    ]  # fmt: skip
    assert events[2] == {
        "type": "tool_result", "tool_use_id": "item_1", "tool_name": "Bash",
        "content": "# Setup\n\nThe port is 8080.\n", "is_error": False,
    }  # fmt: skip
    assert events[4]["is_error"] is True  # a non-zero exit code
    assert events[5]["tools"][0]["name"] == "mcp__docs__search"
    assert events[5]["tools"][0]["input"] == {"query": "default port"}
    assert json.loads(events[6]["content"]) == {"content": [{"type": "text", "text": "8080"}]}
    assert events[7]["tools"][0]["name"] == "Edit"
    assert events[7]["tools"][0]["input"]["file_path"] == "/w/src/app.py"
    assert events[8]["content"] == "completed"
    assert events[9] == {"type": "assistant", "text": "Fixed the port, as docs/setup.md says.",
                         "tools": []}  # fmt: skip
    assert events[10] == {"type": "result", "cost_usd": None, "num_turns": 1}


def test_a_codex_case_gets_conversation_tool_calls_and_consulted_docs(tmp_path: Path) -> None:
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "events.jsonl").write_text(codex_transcript())
    (case / "annotations.yaml").write_text("expected_files: [docs/setup.md]\n")
    record = case_record(case, layout=Layout(tools=("mcp__docs", "Edit")))
    assert record["conversation"] == "Fixed the port, as docs/setup.md says."
    assert record["tool_calls"] == [
        {"name": "mcp__docs__search", "input": {"query": "default port"}},
        {"name": "Edit", "input": {"changes": [{"path": "/w/src/app.py", "kind": "update"}],
                                   "file_path": "/w/src/app.py"}},
    ]  # fmt: skip
    assert _case_text.tool_trace(record).splitlines() == [
        f"1. Bash: {SETUP_READ}",
        "2. Bash: bash -lc 'make test'",
        "3. mcp__docs__search: query=default port",
        "4. Edit: /w/src/app.py",
    ]
    assert "Files written: app.py" in _case_text.evidence(record)
    assert _case_text.reasoning(record).startswith("[thinking]\n**Find the guide**")
    (tmp_path / "eval.yaml").write_text(
        "dataset: {path: cases}\njudges:\n  - {name: used_docs, builtin: consulted_docs}\n"
    )
    (result,) = score_cases(load_suite(tmp_path / "eval.yaml"), [case])
    (outcome,) = result.outcomes
    assert (outcome.status, outcome.raw) == ("scored", True)


@pytest.mark.parametrize(
    ("command", "reads"),
    [
        ("cat notes.md 2>/dev/null", ["notes.md"]),
        ("cat -n a.md > copy.md", ["a.md"]),
        ("head -n 5 a.md 2>&1", ["a.md"]),
        ("/bin/zsh -lc 'tail -c 100 log.txt'", ["log.txt"]),
        ("sed -e 1p -f prog.sed in.md", ["prog.sed", "in.md"]),
        ("bash script.sh", []),  # no -c: a script, not a read
        ("cat $(find . -name '*.md')", []),
        ("cat `ls docs`", []),
        ("cat <(sort a.md)", []),
        ("cat a.md|head -20", []),
        ("cat a.md;touch pwned", []),
        ("cat a.md &", []),
        ('bash -lc "cat \'unclosed"', []),
        ("grep -r port docs", []),
    ],
)
def test_only_a_plain_read_command_names_what_it_reads(command: str, reads: list[str]) -> None:
    assert command_reads(command) == reads


def codex_item(**item: object) -> str:
    return json.dumps({"type": "item.completed", "item": {"id": "x", **item}})


def test_hostile_codex_lines_are_bounded_and_skipped() -> None:
    huge = "y" * (RESULT_CAP + 7)
    lines = [
        '{"type": "item.completed", "item": ',  # cut short
        '{"type": "item.completed", "item": "not an item"}',
        '{"type": "item.completed"}',
        '{"type": ["item.completed"]}',
        codex_item(type={"a": 1}),
        codex_item(type="new_kind_of_item", text="?"),
        codex_item(type="agent_message", text=["not", "text"]),
        codex_item(type="command_execution", command="cat " + huge,
                   aggregated_output=huge, exit_code=True),
        codex_item(type="mcp_tool_call", server={"deep": [1] * 500}, tool=None,
                   arguments=[1, 2], error={"message": "boom"}),
        codex_item(type="file_change", changes="all of them", status="failed"),
        json.dumps({"type": "turn.completed", "usage": "oops"}),
    ]  # fmt: skip
    events = stream_events("\n".join(lines), "events.jsonl")
    assert [e["type"] for e in events] == [
        "assistant", "assistant", "tool_result", "assistant", "tool_result", "assistant",
        "tool_result", "result",
    ]  # fmt: skip
    assert events[0] == {"type": "assistant", "text": "", "tools": []}
    (call,) = events[1]["tools"]
    assert "read_paths" not in call["input"]  # too long to be a plain read
    assert len(call["input"]["command"]) == RESULT_CAP
    assert call["input"]["_truncated"] == {
        "command": {"truncated": True, "original_length": RESULT_CAP + 11}
    }
    result = events[2]
    assert (len(result["content"]), result["truncated"], result["is_error"]) == (
        RESULT_CAP, True, False,  # a bool is no exit code
    )  # fmt: skip
    name = events[3]["tools"][0]["name"]
    assert name.startswith("mcp__{")  # a name that is no text is printed as JSON ...
    assert name.endswith("__tool")
    assert len(name) == len("mcp__") + 200 + len("__tool")  # ... and cut at 200 characters
    assert events[3]["tools"][0]["input"] == {"arguments": [1, 2]}
    assert (events[4]["content"], events[4]["is_error"]) == ('{"message": "boom"}', True)
    assert events[5]["tools"][0]["input"] == {"changes": "all of them"}
    assert events[6]["is_error"] is True
    assert events[7]["num_turns"] == 1


def test_the_command_budget_bounds_the_time_spent_on_read_paths() -> None:
    line = codex_item(type="command_execution", command="cat " + "a" * (SHELL_CHARS - 4))
    events = stream_events("\n".join([line] * (SHELL_BUDGET // SHELL_CHARS + 5)), "e.jsonl")
    calls = [e["tools"][0]["input"] for e in events if e["type"] == "assistant"]
    assert sum("read_paths" in c for c in calls) == SHELL_BUDGET // SHELL_CHARS


def test_a_codex_line_nested_too_deeply_is_a_cap_error() -> None:
    deep = '{"type": "item.completed", "item": ' + "[" * 5000 + "]" * 5000 + "}"
    with pytest.raises(CapExceeded, match=r"events\.jsonl is nested deeper"):
        stream_events(deep, "events.jsonl")


def test_claude_tool_inputs_are_capped_too() -> None:
    line = {
        "type": "assistant",
        "message": {"content": [{"type": "tool_use", "id": "t", "name": "Write",
                                 "input": {"content": "z" * (RESULT_CAP + 1), "n": {"s": "ok"}}}]},
    }  # fmt: skip
    (event,) = stream_events(json.dumps(line), "events.jsonl")
    given = event["tools"][0]["input"]
    assert len(given["content"]) == RESULT_CAP
    assert given["_truncated"] == {
        "content": {"truncated": True, "original_length": RESULT_CAP + 1}
    }
    assert given["n"] == {"s": "ok"}


def test_the_other_codex_items_map_as_the_harness_maps_them() -> None:
    lines = [
        codex_item(type="reasoning", summary="a summary, where text is missing"),
        codex_item(type="web_search", query="acme port", result="top hit"),
        codex_item(type="web_search"),
        codex_item(type="collab_tool_call", tool="ask", prompt="which?", status="failed",
                   message="no reply", other="dropped"),
        codex_item(type="collab_tool_call", status="completed"),
    ]  # fmt: skip
    events = stream_events("\n".join(lines), "events.jsonl")
    assert events[0]["thinking"] == "a summary, where text is missing"
    assert events[1]["tools"][0] == {
        "name": "WebSearch",
        "id": "x",
        "input": {"query": "acme port"},
    }
    assert (events[2]["content"], events[2]["is_error"]) == ("top hit", False)
    assert (events[3]["tools"][0]["input"], events[4]["content"]) == ({"query": ""}, "")
    collab = events[5]["tools"][0]
    assert (collab["name"], collab["input"]) == ("ask", {"prompt": "which?"})
    assert (events[6]["content"], events[6]["is_error"]) == ("no reply", True)
    assert events[7]["tools"][0]["name"] == "collaboration"
    assert (events[8]["content"], events[8]["is_error"]) == ("completed", False)


def test_a_codex_command_that_is_not_text_reads_nothing() -> None:
    line = codex_item(type="command_execution", command=["cat", "a.md"], exit_code=0)
    assistant, result = stream_events(f"\n   \n{line}\n\n", "events.jsonl")
    assert assistant["tools"][0]["input"] == {"command": ["cat", "a.md"]}
    assert (result["content"], result["is_error"]) == ("", False)
