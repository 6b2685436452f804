"""`output/` builtins: the case's files, transcript, exit code and answer (rewardkit's own).

Paths are keys of `outputs["files"]` (relative to the case directory or workspace). A builtin
that compares against a reference takes it from the case's annotations: the one named, else
`expected`, else `ground_truth` (where an RL sample's `ground_truth` lands).
"""

from __future__ import annotations

import json
import re
from typing import Any

from rewardkit.evalyaml.builtins._record import Record, Verdict, recorded, text_file

__all__ = [
    "answer_matches",
    "exit_code_equals",
    "file_contains",
    "file_matches_regex",
    "files_exist",
    "json_key_equals",
    "stdout_contains",
    "stdout_matches_regex",
]

_CASE: Any = object()
"""`expected` not given: the case's expected answer."""


def files_exist(outputs: Record, paths: list[str]) -> Verdict:
    """Pass when every path in `paths` is among the case's files."""
    missing = [p for p in paths if p not in (outputs.get("files") or {})]
    return not missing, f"missing: {', '.join(missing)}" if missing else "all files present"


def file_contains(outputs: Record, path: str, text: str) -> Verdict:
    """Pass when the case file `path` contains `text`."""
    content = text_file(outputs, path)
    if content is None:
        return False, f"{path} not found (or not text)"
    return text in content, f"{path} {'contains' if text in content else 'lacks'} {text!r}"


def file_matches_regex(outputs: Record, path: str, pattern: str) -> Verdict:
    """Pass when `re.search(pattern)` finds a match in the case file `path`."""
    content = text_file(outputs, path)
    if content is None:
        return False, f"{path} not found (or not text)"
    found = re.search(pattern, content) is not None
    return found, f"/{pattern}/ {'found' if found else 'not found'} in {path}"


def json_key_equals(outputs: Record, path: str, key: str, expected: Any = _CASE) -> Verdict:
    """Pass when the case file `path` is a JSON object whose top-level `key` equals `expected`
    (default: the case's expected answer)."""
    if expected is _CASE:
        expected = _reference(outputs, None)
        if expected is None:
            return False, "no `expected` argument, and the case has no expected answer"
    content = text_file(outputs, path)
    try:
        data = json.loads(content) if content is not None else None
    except ValueError as exc:
        return False, f"{path} is not valid JSON ({exc})"
    if not isinstance(data, dict) or key not in data:
        return False, f"{path} has no top-level key {key!r}"
    return data[key] == expected, f"{path}[{key!r}] = {data[key]!r}, expected {expected!r}"


def stdout_contains(outputs: Record, text: str) -> Verdict:
    """Pass when the transcript (`stdout`) contains `text`."""
    found = text in str(outputs.get("stdout") or "")
    return found, f"stdout {'contains' if found else 'lacks'} {text!r}"


def stdout_matches_regex(outputs: Record, pattern: str) -> Verdict:
    """Pass when `re.search(pattern)` finds a match in the transcript (`stdout`)."""
    found = re.search(pattern, str(outputs.get("stdout") or "")) is not None
    return found, f"/{pattern}/ {'found' if found else 'not found'} in stdout"


def exit_code_equals(outputs: Record, code: int = 0) -> Verdict:
    """Pass when the run's exit code is `code`; an error when not recorded."""
    actual = recorded(outputs, "exit_code", "run_result.json")
    return actual == code, f"exit code {actual!r}, expected {code}"


def answer_matches(
    outputs: Record, annotation: str | None = None, path: str | None = None
) -> Verdict:
    """Pass when the stripped answer (file `path`, else `stdout`) equals that annotation
    (default: `expected`, else `ground_truth`), or states the same math answer: the final
    answer it commits to (`\\boxed{}`, "the answer is", ...), else all of it, read by
    `math_reward`'s engine (`\\frac{1}{2}` is `0.5`, `(0,9)` is not `[0,9)`)."""
    expected = _reference(outputs, annotation)
    if expected is None:
        named = repr(annotation) if annotation else "'expected' (nor 'ground_truth')"
        return False, f"annotation {named} is not set for this case"
    actual = text_file(outputs, path) if path else outputs.get("stdout")
    if actual is None:
        return False, f"{path or 'stdout'} not found"
    if str(actual).strip() == str(expected).strip():
        return True, "matches the expected answer"
    from rewardkit.functions.builtin.math._equal import texts_equal
    from rewardkit.functions.builtin.math._final import final_answer

    final = final_answer(str(actual))
    same = texts_equal(str(expected), final.text if final else str(actual))
    if same:
        return True, "states the expected answer (the same math)"
    return False, "differs from the expected answer"


def _reference(outputs: Record, annotation: str | None) -> Any:
    """The named annotation; unnamed, `expected`, else `ground_truth`."""
    annotations = outputs.get("annotations") or {}
    if annotation:
        return annotations.get(annotation)
    return annotations.get("expected", annotations.get("ground_truth"))
