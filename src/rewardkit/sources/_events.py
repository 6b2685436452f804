"""Claude Code's stream-json transcript → the flat events of the harness's `events.json`.

Harbor pods write the raw transcript as `events.jsonl` (one JSON object a line) where a
harness run has the `events.json` its collector derives from `stdout.log`. This turns the raw
lines into the same events the record's `events` holds, so `conversation`, `tool_trace`,
`tool_calls` and `consulted_docs` read both alike:

- `{"type": "assistant", "text", "tools": [{"name", "id", "input"}], "thinking"?}`
- `{"type": "tool_result", "tool_use_id", "tool_name", "content", "is_error"}`
- `{"type": "result", "cost_usd", "num_turns"}` and `{"type": "system", "subtype", "model"?}`

A subagent's line keeps its `parent_tool_use_id` (and `agent_id`). Lines that are not JSON
objects, and kinds of line other than these, are skipped; a tool result's text is cut at
`RESULT_CAP` characters, as the harness does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rewardkit._untrusted import CapExceeded, loads_json

__all__ = ["RESULT_CAP", "stream_events"]

RESULT_CAP = 50_000
"""The most characters kept of one tool result."""


def stream_events(text: str, what: str) -> list[dict[str, Any]]:
    """The events of a stream-json transcript (`what` names it in cap errors).

    Raises:
        CapExceeded: a line is nested too deeply or holds too many values.
    """
    events: list[dict[str, Any]] = []
    names: dict[str, str] = {}  # tool_use id -> tool name, for the results that follow
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            obj = loads_json(line, what)
        except CapExceeded:
            raise
        except ValueError:
            continue  # not JSON: skipped, as the harness does
        if not isinstance(obj, dict):
            continue
        kind = obj.get("type")
        if kind == "assistant":
            event = _assistant(obj)
            names.update((t["id"], t["name"]) for t in event["tools"] if t["id"])
            events.append(event)
        elif kind == "user":
            events.extend(_results(obj, names))
        elif kind == "result":
            events.append(
                {
                    "type": "result",
                    "cost_usd": obj.get("total_cost_usd"),
                    "num_turns": obj.get("num_turns"),
                }
            )
        elif kind == "system":
            event = {"type": "system", "subtype": str(obj.get("subtype") or "")}
            if event["subtype"] == "init":
                event["model"] = str(obj.get("model") or "")
            events.append(event)
    return events


def _blocks(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _assistant(obj: Mapping[str, Any]) -> dict[str, Any]:
    text, thinking, tools = [], [], []
    for block in _blocks(obj):
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            text.append(block["text"])
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            thinking.append(block["thinking"])
        elif kind == "redacted_thinking":
            thinking.append("[redacted thinking]")
        elif kind == "tool_use":
            given = block.get("input")
            tools.append(
                {
                    "name": str(block.get("name") or ""),
                    "id": str(block.get("id") or ""),
                    "input": given if isinstance(given, dict) else {},
                }
            )
    event: dict[str, Any] = {"type": "assistant", "text": "".join(text), "tools": tools}
    if thinking:
        event["thinking"] = "\n".join(thinking)
    return event | _parent(obj)


def _results(obj: Mapping[str, Any], names: Mapping[str, str]) -> list[dict[str, Any]]:
    results = []
    for block in _blocks(obj):
        if block.get("type") != "tool_result":
            continue
        content = block.get("content", "")
        if isinstance(content, list):
            content = "".join(
                part if isinstance(part, str) else str(part.get("text") or "")
                for part in content
                if isinstance(part, str) or (isinstance(part, dict) and part.get("type") == "text")
            )
        content = content if isinstance(content, str) else str(content)
        use_id = str(block.get("tool_use_id") or "")
        event = {
            "type": "tool_result",
            "tool_use_id": use_id,
            "tool_name": names.get(use_id, ""),
            "content": content[:RESULT_CAP],
            "is_error": bool(block.get("is_error", False)),
        }
        if len(content) > RESULT_CAP:
            event |= {"truncated": True, "original_length": len(content)}
        results.append(event | _parent(obj))
    return results


def _parent(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A subagent's line: which tool call started it (and the agent's id)."""
    parent = obj.get("parent_tool_use_id")
    if not parent:
        return {}
    found = {"parent_tool_use_id": parent}
    return found | ({"agent_id": obj["agent_id"]} if obj.get("agent_id") else {})
