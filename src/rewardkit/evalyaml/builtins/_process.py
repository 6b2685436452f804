"""`process/` builtins: how the agent worked (which docs it read, which tools it called).

`consulted_docs` and `tool_call_validation` are the harness's (`reference/builtin-judges.md`);
`tool_called` and `tool_not_called` are rewardkit's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Literal

from rewardkit.evalyaml.builtins._record import Record, Verdict, recorded

__all__ = ["consulted_docs", "read_paths", "tool_call_validation", "tool_called", "tool_not_called"]

Match = Literal["suffix", "exact", "basename"]


def consulted_docs(
    outputs: Record,
    min_coverage: float = 0.8,
    match: Match = "suffix",
    include_subagents: bool = True,
    include_grep: bool = True,
    preloaded_files: list[str] | None = None,
) -> Verdict:
    """Pass when the agent read at least `min_coverage` of `annotations.expected_files`.

    Reads are `Read` calls (and `Grep` calls, and a `Bash` call's `read_paths`) in `events`;
    `preloaded_files` count as read. `suffix` matches whole path components, so
    `docs/setup.md` matches `/repo/docs/setup.md` but `report.md` not `final-report.md`.
    """
    wanted = (outputs.get("annotations") or {}).get("expected_files") or []
    wanted = [wanted] if isinstance(wanted, str) else wanted
    expected = [e for e in (_normal(p, match) for p in wanted) if e]
    if not expected:
        return True, "no expected_files for this case: nothing to verify"
    events = outputs.get("events") or []
    read = [_normal(p, match) for p in read_paths(events, include_subagents, include_grep)]
    preloaded = [_normal(p, match) for p in preloaded_files or ()]
    by_read = [e for e in expected if _found(e, read, match)]
    by_preload = [e for e in expected if e not in by_read and _found(e, preloaded, match)]
    coverage = (len(by_read) + len(by_preload)) / len(expected)
    reason = (
        f"read {len(by_read) + len(by_preload)} of {len(expected)} expected docs "
        f"(coverage {coverage:.0%}, needs {min_coverage:.0%})"
    )
    if by_preload:
        reason += f"; {len(by_preload)} of them preloaded"
    missed = [e for e in expected if e not in by_read and e not in by_preload]
    if missed:
        reason += f"; not read: {', '.join(missed[:10])}"
    return coverage >= min_coverage, reason


def read_paths(events: Any, include_subagents: bool, include_grep: bool) -> Iterator[str]:
    """The paths the agent read, from the harness's flat event list (untrusted: any shape)."""
    for event in events if isinstance(events, list) else ():
        if not isinstance(event, Mapping) or event.get("type") != "assistant":
            continue
        if not include_subagents and event.get("parent_tool_use_id"):
            continue
        tools = event.get("tools")
        for tool in tools if isinstance(tools, list) else ():
            args = tool.get("input") if isinstance(tool, Mapping) else None
            if not isinstance(args, Mapping):
                continue
            name = tool.get("name")
            if name == "Read":
                yield from _strings([args.get("file_path")])
            elif name == "Grep" and include_grep and args.get("path") != ".":
                yield from _strings([args.get("path")])
            elif name == "Bash" and isinstance(args.get("read_paths"), list):
                yield from _strings(args["read_paths"])


def _strings(values: list[Any]) -> Iterator[str]:
    return (v for v in values if isinstance(v, str) and v)


def _normal(path: Any, match: Match) -> str:
    text = str(path or "").replace("\\", "/").strip()
    return text.rsplit("/", 1)[-1] if match == "basename" else text


def _found(expected: str, paths: list[str], match: Match) -> bool:
    if match != "suffix":
        return expected in paths
    return any(
        p == expected or p.endswith("/" + expected) or expected.endswith("/" + p)
        for p in paths
        if p
    )


def tool_call_validation(outputs: Record) -> Verdict:
    """Pass when no captured tool call has an error result.

    A result (`result`, else `output`) is an error when it is a mapping with a truthy `error`,
    or a string with "error" in its first 50 characters.
    """
    calls = outputs.get("tool_calls") or []
    if not isinstance(calls, list) or not calls:
        return True, "no tool calls to validate"
    errors = []
    for i, call in enumerate(calls):
        if not isinstance(call, Mapping):
            continue
        result = call.get("result", call.get("output", ""))
        name = call.get("name", f"#{i}")
        if isinstance(result, Mapping) and result.get("error"):
            errors.append(f"{name}: {str(result['error'])[:100]}")
        elif isinstance(result, str) and "error" in result[:50].lower():
            errors.append(f"{name}: {result[:100]}")
    if errors:
        return False, f"{len(errors)} tool call(s) failed: {'; '.join(errors[:10])}"
    return True, f"all {len(calls)} tool calls completed without an error"


def _calls(outputs: Record, name: str) -> int:
    return sum(
        1
        for call in recorded(outputs, "tool_calls", "tool_calls.json")
        if isinstance(call, Mapping) and call.get("name") == name
    )


def tool_called(outputs: Record, name: str, min_count: int = 1) -> Verdict:
    """Pass when a tool named `name` was called at least `min_count` times."""
    count = _calls(outputs, name)
    return count >= min_count, f"{name} called {count} time(s), need {min_count}"


def tool_not_called(outputs: Record, name: str) -> Verdict:
    """Pass when no tool named `name` was called."""
    count = _calls(outputs, name)
    return count == 0, f"{name} called {count} time(s)"
