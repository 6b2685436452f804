"""`bfcl_reward`: a BFCL multi-turn episode scored by its function calls and final state.

Two checks, as in the Berkeley Function-Calling Leaderboard's multi-turn category, each
worth half the score:

- **calls**: in each user turn, every expected call was made (same name, equal
  arguments; order and extra calls do not matter). The model's calls are the
  `tool_calls` of the assistant messages; a turn runs from one user message to the next.
- **state**: the environment's final state equals the expected `comparable_state`.

When the ground truth has only one of the two, that one is the whole score. Unlike
reward-kit 0.4.1 (which added a 0.2 "format" bonus, for a maximum of 1.2), the score
stays within [0, 1].
"""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._response import field
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["bfcl_reward"]

_Call = tuple[str, Any]
"""A function call: its name and its arguments (a JSON-like dict)."""


class _BadGroundTruth(ValueError):
    pass


def _plain(value: Any) -> Any:
    """Tuples as lists, so Python literals compare equal to JSON."""
    return json.loads(json.dumps(value, default=str))


def _parse_expected(call: object) -> _Call:
    """`"cd(folder='docs')"` or `{"name": ..., "arguments": {...}}` as a call."""
    if isinstance(call, Mapping) and isinstance(call.get("name"), str):
        arguments = call.get("arguments") or {}
        try:
            parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
        except ValueError:
            raise _BadGroundTruth(f"the arguments of {call!r:.80} are not JSON") from None
        return call["name"], _plain(parsed)
    if not isinstance(call, str):
        raise _BadGroundTruth(f"an expected call must be a string or a dict (got {call!r:.80})")
    try:
        node = ast.parse(call.strip(), mode="eval").body
        if not isinstance(node, ast.Call) or node.args:
            raise ValueError("not a call with keyword arguments only")
        name = ast.unparse(node.func)
        arguments = {kw.arg: ast.literal_eval(kw.value) for kw in node.keywords if kw.arg}
    except (SyntaxError, ValueError) as exc:
        raise _BadGroundTruth(f"cannot read the expected call {call!r:.80} ({exc})") from None
    return name, _plain(arguments)


def _expected_turns(function_calls: object) -> list[list[_Call]]:
    if not isinstance(function_calls, Sequence) or isinstance(function_calls, str):
        raise _BadGroundTruth('"function_calls" must be a list (of calls, or of turns of calls)')
    items = list(function_calls)
    if all(isinstance(t, Sequence) and not isinstance(t, str) for t in items) and items:
        return [[_parse_expected(c) for c in turn] for turn in items]
    return [[_parse_expected(c) for c in items]]


def _made_call(tool_call: object) -> _Call | None:
    function = field(tool_call, "function")
    name, arguments = field(function, "name"), field(function, "arguments")
    try:
        parsed = _plain(json.loads(arguments) if isinstance(arguments, str) else arguments)
    except (ValueError, RecursionError):
        return None  # malformed or absurdly nested arguments: the call matches nothing
    return (name, parsed or {}) if isinstance(name, str) else None


def _made_turns(messages: Sequence[object]) -> list[list[_Call]]:
    """The model's calls, grouped by user turn (calls before any user message: turn 0)."""
    turns: list[list[_Call]] = [[]]
    seen_user = False
    for message in messages:
        role = field(message, "role")
        if role == "user":
            if seen_user:
                turns.append([])
            seen_user = True
        elif role == "assistant":
            calls = (_made_call(c) for c in field(message, "tool_calls") or [])
            turns[-1].extend(c for c in calls if c is not None)
    return turns


def _missing(expected: list[list[_Call]], made: list[list[_Call]]) -> list[str]:
    """The expected calls not made; turn by turn when the turns line up, else overall."""
    if len(expected) != len(made):
        expected, made = [[c for t in expected for c in t]], [[c for t in made for c in t]]
    missing = []
    for want, have in zip(expected, made, strict=True):
        left = list(have)
        for call in want:
            if call in left:
                left.remove(call)
            else:
                missing.append(f"{call[0]}({json.dumps(call[1], sort_keys=True)[1:-1]})")
    return missing


def _comparable(state: object) -> Any:
    """The state to compare: `get_comparable_state()` of a resource, or the state itself."""
    resource = state.get("resource", state) if isinstance(state, Mapping) else state
    getter = getattr(resource, "get_comparable_state", None)
    return _plain(getter() if callable(getter) else state)


def _ground_truth(ground_truth: object) -> Mapping[str, Any]:
    if isinstance(ground_truth, str):
        try:
            ground_truth = json.loads(ground_truth)
        except ValueError:
            raise _BadGroundTruth("it is a string but not JSON") from None
    if not isinstance(ground_truth, Mapping) or not (
        {"function_calls", "comparable_state"} & set(ground_truth)
    ):
        raise _BadGroundTruth('it must be a dict with "function_calls" and/or "comparable_state"')
    return ground_truth


def _metric(ok: bool, reason: str) -> MetricResult:
    return MetricResult(score=1.0 if ok else 0.0, reason=reason, success=ok)


@reward_function
def bfcl_reward(
    messages: list[Message],
    ground_truth: Any = None,
    state: Any = None,
    **kwargs: Any,
) -> EvaluateResult:
    """Half for making the expected function calls, half for reaching the expected state.

    Args:
        messages: The whole episode: user turns, assistant messages with `tool_calls`,
            tool results.
        ground_truth: `{"function_calls": [...], "comparable_state": {...}}` (or its JSON);
            calls as strings such as `"cd(folder='docs')"` or `{"name", "arguments"}`
            dicts, optionally one list per user turn.
        state: The environment's final state: a dict, an object with
            `get_comparable_state()` (reward-kit's BFCL resource), or `{"resource": it}`.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> cd = {"name": "cd", "arguments": '{"folder": "docs"}'}
        >>> call = {"type": "function", "function": cd}
        >>> bfcl_reward(
        ...     [{"role": "user", "content": "Go to docs."},
        ...      {"role": "assistant", "content": None, "tool_calls": [call]}],
        ...     {"function_calls": [["cd(folder='docs')"]], "comparable_state": {"cwd": "docs"}},
        ...     state={"cwd": "docs"},
        ... ).score
        1.0
    """
    try:
        truth = _ground_truth(ground_truth)
        expected = _expected_turns(truth["function_calls"]) if "function_calls" in truth else None
    except _BadGroundTruth as problem:
        reason = f"Invalid ground_truth: {problem}."
        return EvaluateResult(score=0.0, reason=reason, metrics={"error": _metric(False, reason)})
    metrics: dict[str, MetricResult] = {}
    if expected is not None:
        missing = _missing(expected, _made_turns(messages or []))
        shown = f"missing {', '.join(missing)[:500]}" if missing else "all made"
        metrics["function_calls"] = _metric(not missing, f"Expected calls: {shown}")
    if "comparable_state" in truth:
        if state is None:
            matched, detail = False, "no state was given (pass state=...)"
        else:
            matched = _comparable(state) == _plain(truth["comparable_state"])
            detail = "matches" if matched else "differs from the expected state"
        metrics["state"] = _metric(matched, f"Final state {detail}")
    score = sum(m.score for m in metrics.values()) / len(metrics)
    reason = "; ".join(f"{name}: {m.reason}" for name, m in metrics.items())
    return EvaluateResult(score=score, reason=reason, metrics=metrics)
