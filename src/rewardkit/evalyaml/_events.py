"""An agent's raw JSONL transcript → the flat events of the harness's `events.json`.

Harbor pods write the raw transcript as `events.jsonl` (one JSON object a line) where a
harness run has the `events.json` its collector derives from `stdout.log`. This turns the raw
lines into the same events the record's `events` holds, so `conversation`, `tool_trace`,
`tool_calls` and `consulted_docs` read them alike. Two formats are read, told apart line by
line as the harness does (`agent_eval/events.py`): Claude Code's stream-json and Codex's
`exec --json`.

- `{"type": "assistant", "text", "tools": [{"name", "id", "input"}], "thinking"?}`
- `{"type": "tool_result", "tool_use_id", "tool_name", "content", "is_error"}`
- `{"type": "result", "cost_usd", "num_turns"}` and `{"type": "system", "subtype", "model"?}`

Claude Code: a subagent's line keeps its `parent_tool_use_id` (and `agent_id`). Codex: each
`item.completed` line is an event (`agent_message` → text, `reasoning` → thinking) or a tool
call and its result (`command_execution` → `Bash`, with the `read_paths` of a plain
`cat`/`sed`/`head`/`tail`; `file_change` → `Edit`; `mcp_tool_call` → `mcp__<server>__<tool>`;
`web_search` → `WebSearch`; `collab_tool_call` → its tool); the `turn.completed` lines fold
into one trailing `result` that counts them (Codex reports no cost).

Lines that are not JSON objects, and kinds of line other than these, are skipped. A tool
result's text, and each string of a tool's input, is cut at `RESULT_CAP` characters, as the
harness does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rewardkit.core._untrusted import CapExceeded, loads_json
from rewardkit.evalyaml._shell import command_reads

__all__ = ["RESULT_CAP", "SHELL_BUDGET", "SHELL_CHARS", "stream_events"]

RESULT_CAP = 50_000
"""The most characters kept of one tool result (and of one string of a tool's input)."""
SHELL_CHARS = 4_096
"""The longest Codex command read for the files it reads (a plain read is far shorter)."""
SHELL_BUDGET = 1 << 20
"""The most command characters one transcript has split for its reads (bounded time)."""
_TURNS = frozenset({"turn.completed", "turn_completed"})


@dataclass
class _Stream:
    """What a transcript's later lines need of its earlier ones."""

    names: dict[str, str] = field(default_factory=dict)
    """Claude Code's tool_use id → tool name, for the results that follow."""
    turns: int = 0
    """Codex's `turn.completed` lines so far."""
    shell_left: int = SHELL_BUDGET
    """Command characters still to be split for read paths."""


def stream_events(text: str, what: str) -> list[dict[str, Any]]:
    """The events of a Claude Code or Codex transcript (`what` names it in cap errors).

    Raises:
        CapExceeded: a line is nested too deeply or holds too many values.
    """
    events: list[dict[str, Any]] = []
    stream = _Stream()
    for line in text.splitlines():
        obj = _line(line, what)
        kind = obj.get("type") if obj is not None else None
        if obj is None or not isinstance(kind, str):
            continue
        if kind in _TURNS:
            stream.turns += 1
        elif kind == "item.completed":
            events.extend(_codex_item(obj.get("item"), stream))
        elif kind in _CLAUDE:
            events.extend(_CLAUDE[kind](obj, stream))
    if stream.turns:  # one result per run, as a Claude Code transcript has
        events.append({"type": "result", "cost_usd": None, "num_turns": stream.turns})
    return events


def _line(line: str, what: str) -> dict[str, Any] | None:
    """The JSON object on `line`; None when it is blank or not one (skipped)."""
    if not line.strip():
        return None
    try:
        obj = loads_json(line, what)
    except CapExceeded:
        raise
    except ValueError:
        return None  # not JSON: skipped, as the harness does
    return obj if isinstance(obj, dict) else None


# --- Claude Code stream-json ---------------------------------------------------------------


def _assistant(obj: Mapping[str, Any], stream: _Stream) -> list[dict[str, Any]]:
    text: list[str] = []
    thinking: list[str] = []
    tools: list[dict[str, Any]] = []
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
                    "input": _capped(given if isinstance(given, dict) else {}),
                }
            )
    stream.names.update((t["id"], t["name"]) for t in tools if t["id"])
    event: dict[str, Any] = {"type": "assistant", "text": "".join(text), "tools": tools}
    if thinking:
        event["thinking"] = "\n".join(thinking)
    return [event | _parent(obj)]


def _results(obj: Mapping[str, Any], stream: _Stream) -> list[dict[str, Any]]:
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
        use_id = str(block.get("tool_use_id") or "")
        name = stream.names.get(use_id, "")
        event = _result(use_id, name, content, bool(block.get("is_error", False)))
        results.append(event | _parent(obj))
    return results


def _final(obj: Mapping[str, Any], stream: _Stream) -> list[dict[str, Any]]:
    cost, turns = obj.get("total_cost_usd"), obj.get("num_turns")
    return [{"type": "result", "cost_usd": cost, "num_turns": turns}]


def _system(obj: Mapping[str, Any], stream: _Stream) -> list[dict[str, Any]]:
    event = {"type": "system", "subtype": str(obj.get("subtype") or "")}
    if event["subtype"] == "init":
        event["model"] = str(obj.get("model") or "")
    return [event]


_CLAUDE: dict[str, Callable[[Mapping[str, Any], _Stream], list[dict[str, Any]]]] = {
    "assistant": _assistant,
    "user": _results,
    "result": _final,
    "system": _system,
}


def _blocks(obj: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _parent(obj: Mapping[str, Any]) -> dict[str, Any]:
    """A subagent's line: which tool call started it (and the agent's id)."""
    parent = obj.get("parent_tool_use_id")
    if not parent:
        return {}
    found = {"parent_tool_use_id": parent}
    return found | ({"agent_id": obj["agent_id"]} if obj.get("agent_id") else {})


# --- Codex exec --json ---------------------------------------------------------------------

_Call = tuple[str, dict[str, Any], Any, bool]
"""A Codex tool item as the flat events see it: name, input, output, whether it failed."""


def _codex_item(item: Any, stream: _Stream) -> list[dict[str, Any]]:
    """The events of one completed Codex item (none for an item of another kind)."""
    if not isinstance(item, dict):
        return []
    kind = item.get("type")
    if kind == "agent_message":
        text = item.get("text")
        return [{"type": "assistant", "text": _str(text), "tools": []}]
    if kind == "reasoning":
        thinking = item.get("text")
        thinking = thinking if isinstance(thinking, str) else item.get("summary")
        return [{"type": "assistant", "text": "", "tools": [], "thinking": _str(thinking)}]
    read = _CODEX_TOOLS.get(kind) if isinstance(kind, str) else None
    if read is None:
        return []
    name, given, output, failed = read(item, stream)
    use_id = str(item.get("id") or "")
    call = {"name": name, "id": use_id, "input": _capped(given)}
    return [
        {"type": "assistant", "text": "", "tools": [call]},
        _result(use_id, name, output, failed),
    ]


def _command(item: Mapping[str, Any], stream: _Stream) -> _Call:
    command = item.get("command", "")
    given: dict[str, Any] = {"command": command}
    if isinstance(command, str) and len(command) <= min(SHELL_CHARS, stream.shell_left):
        stream.shell_left -= len(command)
        if paths := command_reads(command):
            given["read_paths"] = paths
    code = item.get("exit_code")
    failed = isinstance(code, int) and not isinstance(code, bool) and code != 0
    return "Bash", given, item.get("aggregated_output"), failed


def _mcp(item: Mapping[str, Any], stream: _Stream) -> _Call:
    server = item.get("server") or item.get("server_name") or "mcp"
    tool = item.get("tool") or item.get("name") or "tool"
    arguments = item.get("arguments", {})
    given = arguments if isinstance(arguments, dict) else {"arguments": arguments}
    output = item.get("result") or item.get("error")
    return f"mcp__{_short(server)}__{_short(tool)}", given, output, bool(item.get("error"))


def _collab(item: Mapping[str, Any], stream: _Stream) -> _Call:
    given = {k: item[k] for k in ("prompt", "receiver_thread_ids") if k in item}
    output = item.get("message") or item.get("status")
    return _short(item.get("tool") or "collaboration"), given, output, _failed(item)


def _web_search(item: Mapping[str, Any], stream: _Stream) -> _Call:
    return "WebSearch", {"query": item.get("query", "")}, item.get("result"), False


def _file_change(item: Mapping[str, Any], stream: _Stream) -> _Call:
    changes = item.get("changes", [])
    given: dict[str, Any] = {"changes": changes}
    first = changes[0] if isinstance(changes, list) and changes else None
    if isinstance(first, dict) and isinstance(first.get("path"), str):
        given["file_path"] = first["path"]  # so the tool trace and files written show it
    return "Edit", given, item.get("status"), _failed(item)


_CODEX_TOOLS: dict[str, Callable[[Mapping[str, Any], _Stream], _Call]] = {
    "command_execution": _command,
    "mcp_tool_call": _mcp,
    "collab_tool_call": _collab,
    "web_search": _web_search,
    "file_change": _file_change,
}


def _failed(item: Mapping[str, Any]) -> bool:
    return item.get("status") == "failed"


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _short(value: Any) -> str:
    """A name from the transcript as text, at most 200 characters."""
    return (value if isinstance(value, str) else json.dumps(value, default=str))[:200]


# --- shared --------------------------------------------------------------------------------


def _result(use_id: str, name: str, content: Any, failed: bool) -> dict[str, Any]:
    """A `tool_result` event, its text cut at `RESULT_CAP` characters."""
    if content is None:
        content = ""
    elif not isinstance(content, str):
        content = json.dumps(content, ensure_ascii=False, default=str)
    event = {
        "type": "tool_result",
        "tool_use_id": use_id,
        "tool_name": name,
        "content": content[:RESULT_CAP],
        "is_error": failed,
    }
    if len(content) > RESULT_CAP:
        event |= {"truncated": True, "original_length": len(content)}
    return event


def _capped(given: dict[str, Any]) -> dict[str, Any]:
    """A tool's input with each string (in nested mappings too) cut at `RESULT_CAP`
    characters; `_truncated` names each cut key and its length."""
    capped: dict[str, Any] = {}
    cut: dict[str, Any] = {}
    for key, value in given.items():
        if isinstance(value, str) and len(value) > RESULT_CAP:
            capped[key] = value[:RESULT_CAP]
            cut[key] = {"truncated": True, "original_length": len(value)}
        else:
            capped[key] = _capped(value) if isinstance(value, dict) else value
    return capped | ({"_truncated": cut} if cut else {})
