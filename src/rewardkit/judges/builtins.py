"""Deterministic builtins for eval.yaml judges (`builtin: <name>`), over a case record.

Each is called as `fn(outputs, **arguments)` and returns `(value, rationale)`. Paths are keys
of `outputs["files"]` (relative to the case directory or workspace).

| builtin | arguments | value |
|---|---|---|
| `files_exist` | `paths` | all exist |
| `file_contains` | `path`, `text` | substring present |
| `file_matches_regex` | `path`, `pattern` | `re.search` finds it |
| `json_key_equals` | `path`, `key`, `expected` | top-level key equals |
| `stdout_contains` | `text` | substring of the transcript |
| `stdout_matches_regex` | `pattern` | `re.search` on the transcript |
| `exit_code_equals` | `code=0` | the run's exit code |
| `answer_matches` | `annotation="expected"`, `path=None` | stripped file (else stdout) \
text equals the annotation |
| `cost_budget` | `max_usd` | `cost_usd` at most `max_usd` (a gate: bool) |
| `turn_budget` | `max_turns` | `num_turns` at most `max_turns` |
| `tool_called` | `name`, `min_count=1` | calls to a tool named `name` |
| `tool_not_called` | `name` | no call to it |
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["BUILTINS"]

Verdict = tuple[bool, str]
Record = Mapping[str, Any]


def _text(outputs: Record, path: str) -> str | None:
    content = (outputs.get("files") or {}).get(path)
    return content if isinstance(content, str) else None


def files_exist(outputs: Record, paths: list[str]) -> Verdict:
    missing = [p for p in paths if p not in (outputs.get("files") or {})]
    return not missing, f"missing: {', '.join(missing)}" if missing else "all files present"


def file_contains(outputs: Record, path: str, text: str) -> Verdict:
    content = _text(outputs, path)
    if content is None:
        return False, f"{path} not found (or not text)"
    return text in content, f"{path} {'contains' if text in content else 'lacks'} {text!r}"


def file_matches_regex(outputs: Record, path: str, pattern: str) -> Verdict:
    content = _text(outputs, path)
    if content is None:
        return False, f"{path} not found (or not text)"
    found = re.search(pattern, content) is not None
    return found, f"/{pattern}/ {'found' if found else 'not found'} in {path}"


def json_key_equals(outputs: Record, path: str, key: str, expected: Any) -> Verdict:
    content = _text(outputs, path)
    try:
        data = json.loads(content) if content is not None else None
    except ValueError as exc:
        return False, f"{path} is not valid JSON ({exc})"
    if not isinstance(data, dict) or key not in data:
        return False, f"{path} has no top-level key {key!r}"
    return data[key] == expected, f"{path}[{key!r}] = {data[key]!r}, expected {expected!r}"


def stdout_contains(outputs: Record, text: str) -> Verdict:
    found = text in str(outputs.get("stdout") or "")
    return found, f"stdout {'contains' if found else 'lacks'} {text!r}"


def stdout_matches_regex(outputs: Record, pattern: str) -> Verdict:
    found = re.search(pattern, str(outputs.get("stdout") or "")) is not None
    return found, f"/{pattern}/ {'found' if found else 'not found'} in stdout"


def exit_code_equals(outputs: Record, code: int = 0) -> Verdict:
    actual = outputs.get("exit_code")
    return actual == code, f"exit code {actual!r}, expected {code}"


def answer_matches(
    outputs: Record, annotation: str = "expected", path: str | None = None
) -> Verdict:
    expected = (outputs.get("annotations") or {}).get(annotation)
    if expected is None:
        return False, f"annotation {annotation!r} is not set for this case"
    actual = _text(outputs, path) if path else outputs.get("stdout")
    if actual is None:
        return False, f"{path or 'stdout'} not found"
    same = str(actual).strip() == str(expected).strip()
    return same, "matches the expected answer" if same else "differs from the expected answer"


def cost_budget(outputs: Record, max_usd: float) -> Verdict:
    cost = outputs.get("cost_usd")
    if not isinstance(cost, int | float):
        return False, "cost_usd is not recorded for this case"
    return cost <= max_usd, f"cost ${cost:.4f} vs budget ${max_usd:.4f}"


def turn_budget(outputs: Record, max_turns: int) -> Verdict:
    turns = outputs.get("num_turns")
    if not isinstance(turns, int):
        return False, "num_turns is not recorded for this case"
    return turns <= max_turns, f"{turns} turns vs budget {max_turns}"


def _calls(outputs: Record, name: str) -> int:
    return sum(
        1
        for call in outputs.get("tool_calls") or []
        if isinstance(call, Mapping) and call.get("name") == name
    )


def tool_called(outputs: Record, name: str, min_count: int = 1) -> Verdict:
    count = _calls(outputs, name)
    return count >= min_count, f"{name} called {count} time(s), need {min_count}"


def tool_not_called(outputs: Record, name: str) -> Verdict:
    count = _calls(outputs, name)
    return count == 0, f"{name} called {count} time(s)"


BUILTINS: Mapping[str, Callable[..., Verdict]] = {
    fn.__name__: fn
    for fn in (
        files_exist,
        file_contains,
        file_matches_regex,
        json_key_equals,
        stdout_contains,
        stdout_matches_regex,
        exit_code_equals,
        answer_matches,
        cost_budget,
        turn_budget,
        tool_called,
        tool_not_called,
    )
}
