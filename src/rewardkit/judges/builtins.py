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

The last five read run metadata (`exit_code`, `cost_usd`, `num_turns`, `tool_calls`). When the
case does not record it they raise, so the judge errors instead of passing or failing.
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


def _recorded(outputs: Record, key: str, source: str) -> Any:
    """`outputs[key]`, or a LookupError saying where run metadata comes from."""
    if key not in outputs:
        raise LookupError(
            f"{key} is not recorded for this case, so this judge cannot score it. An eval "
            f"case records it in {source} in its directory; the Harbor bridge reads {source} "
            f"from the tests directory only (run metadata is never read from the workspace, "
            f"which the agent writes). Provide {source} there, or remove this judge."
        )
    return outputs[key]


def exit_code_equals(outputs: Record, code: int = 0) -> Verdict:
    actual = _recorded(outputs, "exit_code", "run_result.json")
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
    cost = _recorded(outputs, "cost_usd", "run_result.json")
    if isinstance(cost, bool) or not isinstance(cost, int | float):
        return False, f"cost_usd is {cost!r}, not a number"
    return cost <= max_usd, f"cost ${cost:.4f} vs budget ${max_usd:.4f}"


def turn_budget(outputs: Record, max_turns: int) -> Verdict:
    turns = _recorded(outputs, "num_turns", "run_result.json")
    if isinstance(turns, bool) or not isinstance(turns, int):
        return False, f"num_turns is {turns!r}, not an integer"
    return turns <= max_turns, f"{turns} turns vs budget {max_turns}"


def _calls(outputs: Record, name: str) -> int:
    return sum(
        1
        for call in _recorded(outputs, "tool_calls", "tool_calls.json")
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
