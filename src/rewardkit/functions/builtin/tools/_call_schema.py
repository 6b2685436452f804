"""Schema-level checks of one function call, and the set similarity they share.

`match_function_call` checks a parsed call (name and arguments) against the expected
call's schema, giving partial credit per argument; `extract_schema_properties` lists a
JSON Schema's `(path, type)` pairs; `calculate_jaccard_similarity` compares two sets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from rewardkit.types import EvaluateResult, MetricResult

__all__ = ["calculate_jaccard_similarity", "extract_schema_properties", "match_function_call"]

Strictness = Literal["exact", "partial", "permissive"]
_STRICTNESS = ("exact", "partial", "permissive")

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
    "null": (type(None),),
}


def calculate_jaccard_similarity(first: set[Any], second: set[Any]) -> float:
    """The size of the intersection over that of the union; two empty sets score 1.0.

    Example:
        >>> calculate_jaccard_similarity({"a", "b", "c"}, {"b", "c", "d"})
        0.5
    """
    union = first | second
    return len(first & second) / len(union) if union else 1.0


def extract_schema_properties(schema: Mapping[str, Any], prefix: str = "") -> set[tuple[str, str]]:
    """The `(dotted path, type)` of every property in a JSON Schema, nested ones included.

    Example:
        >>> sorted(extract_schema_properties(
        ...     {"properties": {"user": {"type": "object",
        ...                              "properties": {"name": {"type": "string"}}}}}))
        [('user', 'object'), ('user.name', 'string')]
    """
    found: set[tuple[str, str]] = set()
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return found
    for name, spec in properties.items():
        path = f"{prefix}{name}"
        spec = spec if isinstance(spec, Mapping) else {}
        kind = spec.get("type", "any")
        found.add((path, kind if isinstance(kind, str) else "|".join(map(str, kind))))
        found |= extract_schema_properties(spec, f"{path}.")
    return found


def _type_ok(value: Any, expected: object) -> bool:
    kinds = _JSON_TYPES.get(expected) if isinstance(expected, str) else None
    if kinds is None:
        return True  # no type or an unknown one: nothing to check
    if isinstance(value, bool) and bool not in kinds:
        return False  # JSON booleans are not numbers
    return isinstance(value, kinds)


def _argument_problems(
    arguments: Mapping[str, Any], expected: Mapping[str, Any], strictness: Strictness
) -> tuple[int, list[str], list[str]]:
    """The expected arguments that are right, what is wrong with the others, the extras."""
    problems: list[str] = []
    right = 0
    for name, spec in expected.items():
        kind = spec.get("type") if isinstance(spec, Mapping) else None
        if name not in arguments:
            problems.append(f"Missing argument: {name}")
        elif not _type_ok(arguments[name], kind):
            got = type(arguments[name]).__name__
            problems.append(f"Type mismatch for {name}: expected {kind}, got {got}")
        else:
            right += 1
    extras = [] if strictness != "exact" else [n for n in arguments if n not in expected]
    return right, problems, [f"Unexpected argument: {name}" for name in extras]


def match_function_call(
    messages: Any,
    function_name: str,
    parsed_arguments: Mapping[str, Any],
    expected_call_schema: Mapping[str, Any],
    argument_match_strictness: Strictness = "exact",
    **kwargs: Any,
) -> EvaluateResult:
    """Score a parsed call against the expected call's schema: name and arguments.

    `expected_call_schema` is `{"name": ..., "arguments": {arg: {"type": ...}}}`. The
    `arguments_match` score is the share of expected arguments present with the right JSON
    type; with `"exact"` strictness each unexpected argument also counts against it
    (`"partial"` and `"permissive"` ignore extras). The score is the product of the two
    metrics, so a wrong function name scores 0. `messages` is not read (reward-kit 0.4.1
    takes it).

    Example:
        >>> match_function_call(
        ...     [], "get_weather", {"city": "Paris"},
        ...     {"name": "get_weather", "arguments": {"city": {"type": "string"}}},
        ... ).score
        1.0
    """
    if argument_match_strictness not in _STRICTNESS:
        raise ValueError(
            f"match_function_call: argument_match_strictness must be one of {_STRICTNESS} "
            f"(got {argument_match_strictness!r})"
        )
    expected_name = expected_call_schema.get("name")
    name_ok = function_name == expected_name
    name_reason = (
        f"Function name matches: {function_name}"
        if name_ok
        else f"Function name does not match: expected {expected_name!r}, got {function_name!r}"
    )
    expected_args = expected_call_schema.get("arguments") or {}
    right, problems, extras = _argument_problems(
        parsed_arguments, expected_args, argument_match_strictness
    )
    counted = len(expected_args) + len(extras)
    args_score = right / counted if counted else 1.0
    problems += extras
    args_reason = "; ".join(problems) or f"All {len(expected_args)} argument(s) match"
    score = (1.0 if name_ok else 0.0) * args_score
    return EvaluateResult(
        score=score,
        reason=f"Function call score {score:.2f}: {name_reason}; {args_reason}",
        metrics={
            "function_name_match": MetricResult(
                score=1.0 if name_ok else 0.0, reason=name_reason, success=name_ok
            ),
            "arguments_match": MetricResult(
                score=args_score, reason=args_reason, success=not problems
            ),
        },
    )
