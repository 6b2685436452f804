"""`exact_tool_match_reward`: did the model make exactly the expected tool calls?

Calls are compared by function name and by arguments, which are parsed from their JSON
string and compared as values (key order, whitespace and `1` vs `1.0` do not matter);
call ids are ignored. Generated calls come from the response's `tool_calls`, its legacy
`function_call`, or `<tool_call>{...}</tool_call>` blocks in its text.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._answers import tag_spans
from rewardkit.functions.builtin._response import (
    NoResponse,
    content_text,
    field,
    no_response,
    response_message,
)
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["exact_tool_match_reward", "tool_calls_of"]

Call = tuple[str, str]
"""A call in canonical form: (function name, canonical JSON of its arguments)."""


def _canonical(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    return value


def _arguments(raw: object) -> str:
    value: Any = raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        value = {}
    elif isinstance(raw, str):
        try:
            value = json.loads(raw)
        except ValueError:
            return f"<not JSON> {raw.strip()}"
    return json.dumps(_canonical(value), sort_keys=True, ensure_ascii=False, default=str)


def _call(item: object) -> Call:
    """One call, from `{"type": "function", "function": {...}}` or `{"name", "arguments"}`."""
    if isinstance(item, str):
        text = item
        try:
            item = json.loads(text)
        except ValueError:
            return ("<malformed call>", text.strip())
    function = field(item, "function")
    spec = function if function is not None else item
    name = field(spec, "name")
    raw = field(spec, "arguments")
    if raw is None:
        raw = field(spec, "parameters")
    return (str(name) if name is not None else "<unnamed call>", _arguments(raw))


def tool_calls_of(message: object) -> list[Call]:
    """The calls a message makes, in canonical form.

    Example:
        >>> tool_calls_of({"role": "assistant", "content": None, "tool_calls": [
        ...     {"id": "1", "type": "function",
        ...      "function": {"name": "f", "arguments": '{"b": 1, "a": 2}'}}]})
        [('f', '{"a": 2, "b": 1}')]
    """
    calls = field(message, "tool_calls")
    if calls:
        return [_call(c) for c in calls]
    legacy = field(message, "function_call")
    if legacy:
        return [_call(legacy)]
    text = content_text(field(message, "content"))
    opening = len("<tool_call>")
    return [
        _call(text[start + opening : stop].strip())
        for start, stop, _ in tag_spans(text, "tool_call")
    ]


def _expected_calls(ground_truth: object) -> list[Call]:
    if ground_truth is None:
        return []
    if isinstance(ground_truth, str):
        try:
            ground_truth = json.loads(ground_truth)
        except ValueError:
            raise ValueError(
                f"exact_tool_match_reward: ground_truth is a string but not JSON: "
                f"{ground_truth!r:.80}"
            ) from None
        return _expected_calls(ground_truth)
    if field(ground_truth, "role") is not None:
        return tool_calls_of(ground_truth)
    if isinstance(ground_truth, Mapping) and "tool_calls" in ground_truth:
        return [_call(c) for c in ground_truth["tool_calls"] or []]
    if isinstance(ground_truth, Mapping) and ("function" in ground_truth or "name" in ground_truth):
        return [_call(ground_truth)]
    if isinstance(ground_truth, Mapping):
        return []  # a dict without calls: none expected (as reward-kit 0.4.1 reads it)
    if isinstance(ground_truth, Sequence) and not isinstance(ground_truth, str):
        items = list(ground_truth)
        if items and all(field(i, "role") is not None for i in items):
            assistant = [m for m in items if field(m, "role") == "assistant"]
            return tool_calls_of(assistant[-1]) if assistant else []
        return [_call(c) for c in items]
    raise TypeError(
        "exact_tool_match_reward: ground_truth must be None (no calls expected), a dict "
        '{"tool_calls": [...]}, a list of calls, one call, or a JSON string of those '
        f"(got {type(ground_truth).__name__})"
    )


def _show(calls: Sequence[Call]) -> str:
    return ", ".join(f"{name}({args})" for name, args in calls) or "none"


@reward_function
def exact_tool_match_reward(
    messages: list[Message],
    ground_truth: Any = None,
    *,
    order_sensitive: bool = False,
    **kwargs: Any,
) -> EvaluateResult:
    """1.0 if the response's tool calls are exactly the expected ones, else 0.0.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The expected calls: `{"tool_calls": [...]}` whose entries are
            OpenAI-style (`{"type": "function", "function": {"name", "arguments"}}`) or
            plain `{"name", "arguments"}`; or such a list, a single call, an expected
            assistant message (or conversation), or a JSON string of any of these.
            `None` means no call is expected.
        order_sensitive: Require the calls in the expected order; by default they are
            compared as a multiset, since parallel calls have no meaningful order.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> exact_tool_match_reward(
        ...     [{"role": "assistant", "content": None, "tool_calls": [
        ...         {"id": "a", "type": "function",
        ...          "function": {"name": "get_time", "arguments": '{"tz": "UTC"}'}},
        ...         {"id": "b", "type": "function",
        ...          "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]}],
        ...     ground_truth={"tool_calls": [
        ...         {"name": "get_weather", "arguments": {"city": "Paris"}},
        ...         {"name": "get_time", "arguments": {"tz": "UTC"}}]},
        ... ).score
        1.0
    """
    if not messages:
        return no_response("tool_call_match", NoResponse("No messages provided"))
    try:
        expected = _expected_calls(ground_truth)
    except (TypeError, ValueError) as exc:
        return no_response("tool_call_match", NoResponse(f"ground truth not usable: {exc}"))
    try:
        made = tool_calls_of(response_message(messages))
    except NoResponse as problem:
        return no_response("tool_call_match", problem)
    same_calls = Counter(made) == Counter(expected)
    matched = made == expected if order_sensitive else same_calls
    if matched:
        detail = f"Tool calls match the expected {len(expected)} call(s)"
    elif same_calls:
        detail = f"Right calls in the wrong order: made {_show(made)}; expected {_show(expected)}"
    else:
        missing = list((Counter(expected) - Counter(made)).elements())
        unexpected = list((Counter(made) - Counter(expected)).elements())
        detail = f"Missing: {_show(missing)}; unexpected: {_show(unexpected)}"
    score = 1.0 if matched else 0.0
    reason = f"Exact tool match evaluation score: {score}"  # 0.4.1's text; details in the metric
    if ground_truth is None:
        reason += " (Ground truth not provided: no call is expected)"
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={"tool_call_match": MetricResult(score=score, reason=detail, success=matched)},
    )
