"""The texts a judge prompt shows of a case record, as the harness's score.py derives them.

`conversation` (the agent's visible root-level text), `reasoning` (that with its thinking),
`tool_trace` (one line per tool call), `evidence` (a summary of the tool activity), and how
`outputs`, `inputs` and `annotations` print; `bounded_str` prints any value, capped. Events
are the harness's flat list (`type`, `text`, `thinking`, `tools: [{name, input}]`,
`parent_tool_use_id`); they are untrusted, so every shape is tolerated.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = [
    "annotations_text",
    "bounded_str",
    "conversation",
    "evidence",
    "files_text",
    "inputs_text",
    "reasoning",
    "tool_trace",
]

_WRITE_TOOLS = ("Write", "Edit", "MultiEdit", "NotebookEdit")
_VALUE_CHARS = 1 << 20
"""The most characters one annotation value prints as."""
_DETAIL_KEYS = {
    "Read": "file_path",
    "Edit": "file_path",
    "Write": "file_path",
    "Bash": "command",
    "Glob": "pattern",
    "Grep": "pattern",
    "WebFetch": "url",
    "WebSearch": "query",
    "Skill": "skill",
}
"""The argument a tool-trace line shows of each known tool."""


def conversation(record: Mapping[str, Any]) -> str:
    """The record's `conversation` (text, or the assistant turns of a message list), else
    the visible text of its events, else its stdout."""
    given = record.get("conversation")
    if isinstance(given, str) and given:
        return given
    if isinstance(given, list) and given:
        return "\n\n".join(_message_text(m) for m in given if _is_assistant(m))
    if _events(record):
        return _event_text(record, thinking=False)
    return str(record.get("stdout") or "")


def reasoning(record: Mapping[str, Any]) -> str:
    """The record's `reasoning`, else the visible text of its events with their thinking."""
    given = record.get("reasoning")
    if isinstance(given, str) and given:
        return given
    return _event_text(record, thinking=True)


def tool_trace(record: Mapping[str, Any]) -> str:
    """One numbered line per tool call in the events (subagent calls marked)."""
    lines = []
    for step, (event, name, args) in enumerate(_tool_calls(record), start=1):
        prefix = "  [subagent] " if event.get("parent_tool_use_id") else ""
        lines.append(f"{prefix}{step}. {name}: {_detail(name, args)}")
    return "\n".join(lines)


def evidence(record: Mapping[str, Any]) -> str:
    """The record's `evidence`, else: turns, cost, tool calls by name, files read and
    written."""
    if isinstance(record.get("evidence"), str) and record["evidence"]:
        return str(record["evidence"])
    counts: Counter[str] = Counter()
    read: set[str] = set()
    written: set[str] = set()
    for _, name, args in _tool_calls(record):
        counts[name] += 1
        path = args.get("file_path") or args.get("path")
        if isinstance(path, str) and path and name in ("Read", *_WRITE_TOOLS):
            (read if name == "Read" else written).add(path.rsplit("/", 1)[-1])
    cost = record.get("cost_usd")
    return "\n".join(
        [
            f"Turns: {record.get('num_turns', 'not recorded')}",
            f"Cost: ${cost:.2f}" if isinstance(cost, int | float) else "Cost: not recorded",
            f"Tool calls: {dict(counts) if counts else 'none'}",
            f"Files read: {', '.join(sorted(read)) or 'none'}",
            f"Files written: {', '.join(sorted(written)) or 'none'}",
        ]
    )


def files_text(record: Mapping[str, Any]) -> str:
    """The record's `files` as markdown sections, sorted by path."""
    parts = []
    files = record.get("files")
    for path, content in sorted((files if isinstance(files, Mapping) else {}).items()):
        if isinstance(content, str):
            parts.append(f"\n### {path}\n\n{content}\n")
        else:
            name = content.get("name", path) if isinstance(content, Mapping) else path
            parts.append(f"\n### {path}\n\n<binary: {name}>\n")
    return "".join(parts)


def inputs_text(inputs: Any) -> str:
    """`input.yaml` as `**key**: value` paragraphs (a nested value as YAML)."""
    if not isinstance(inputs, Mapping):
        return "" if inputs is None else str(inputs)
    import yaml

    parts = []
    for key, value in inputs.items():
        if isinstance(value, dict | list):
            value = yaml.safe_dump(value, default_flow_style=False).rstrip()
        parts.append(f"**{key}**: {value}")
    return "\n\n".join(parts)


def annotations_text(record: Mapping[str, Any]) -> str:
    """The annotations as a bullet list, then each annotation file's content."""
    annotations = record.get("annotations")
    items = annotations.items() if isinstance(annotations, Mapping) else ()
    text = "".join(
        f"- **{key}**: {bounded_str(value, _VALUE_CHARS)}\n"
        for key, value in sorted(items, key=_by_key)
    )
    for key in sorted(k for k in record if k.startswith("annotation_") and k.endswith("_content")):
        name = key.removeprefix("annotation_").removesuffix("_content")
        text += f"\n### {name} (file content)\n\n{record[key]}\n"
    return text


def _by_key(item: tuple[Any, Any]) -> str:
    return str(item[0])


def _events(record: Mapping[str, Any]) -> list[Any]:
    events = record.get("events")
    return events if isinstance(events, list) else []


def _event_text(record: Mapping[str, Any], *, thinking: bool) -> str:
    parts = []
    for event in _events(record):
        if not isinstance(event, Mapping) or event.get("type") != "assistant":
            continue
        if event.get("parent_tool_use_id"):
            continue
        if thinking and isinstance(event.get("thinking"), str) and event["thinking"]:
            parts.append(f"[thinking]\n{event['thinking']}")
        if isinstance(event.get("text"), str) and event["text"]:
            parts.append(event["text"])
    return "\n\n".join(parts)


def _tool_calls(record: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], str, Any]]:
    for event in _events(record):
        if not isinstance(event, Mapping) or event.get("type") != "assistant":
            continue
        tools = event.get("tools")
        for tool in tools if isinstance(tools, list) else ():
            if isinstance(tool, Mapping):
                args = tool.get("input")
                yield (
                    event,
                    str(tool.get("name") or "unknown"),
                    args if isinstance(args, Mapping) else {},
                )


def _detail(name: str, args: Mapping[str, Any]) -> str:
    if name == "Agent":
        return str(args.get("description") or args.get("prompt") or "(no description)")[:100]
    if name in _DETAIL_KEYS:
        return str(args.get(_DETAIL_KEYS[name], "?"))[:200]
    for key, value in args.items():
        return f"{key}={str(value)[:100]}"
    return "(no input)"


def _is_assistant(message: Any) -> bool:
    return isinstance(message, Mapping) and message.get("role") == "assistant"


def _message_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(
            str(b.get("text") or "") for b in content if isinstance(b, Mapping) and "text" in b
        )
    return "" if content is None else str(content)


def bounded_str(value: Any, limit: int) -> str:
    """`str(value)`, built piece by piece and stopped once it passes `limit` characters, so
    even a value that would print to gigabytes (one list shared a million times) is cheap."""
    if not isinstance(value, Mapping | list | tuple):
        return str(value)[:limit]
    pieces: list[str] = []
    size = 0
    for piece in _repr_pieces(value, limit):
        pieces.append(piece)
        size += len(piece)
        if size >= limit:
            break
    return "".join(pieces)[:limit]


class _Literal(str):
    """Punctuation of a printed container, told apart from the values inside it."""


def _repr_pieces(value: Any, limit: int) -> Iterator[str]:
    """`repr(value)` in pieces, without recursion (dicts, lists and tuples are opened)."""
    stack: list[Iterator[Any]] = [iter((value,))]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
        elif isinstance(item, _Literal):
            yield item
        elif isinstance(item, Mapping):
            items = dict.items(item) if isinstance(item, dict) else item.items()
            stack.append(_container("{", "}", ((k, _Literal(": "), v) for k, v in items)))
        elif isinstance(item, list):
            stack.append(_container("[", "]", ((v,) for v in list.__iter__(item))))
        elif isinstance(item, tuple):
            stack.append(_container("(", ",)" if len(item) == 1 else ")", ((v,) for v in item)))
        else:
            yield repr(item)[: limit + 1]


def _container(open_: str, close: str, entries: Iterator[tuple[Any, ...]]) -> Iterator[Any]:
    yield _Literal(open_)
    for i, entry in enumerate(entries):
        if i:
            yield _Literal(", ")
        yield from entry
    yield _Literal(close)


_END = object()
