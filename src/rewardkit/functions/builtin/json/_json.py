"""JSON rewards: the response holds valid JSON, and that JSON satisfies a JSON Schema.

Validation uses the `jsonschema` package (the `json` extra), with the validator for the
schema's own `$schema` draft (Draft 2020-12 when it names none).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from rewardkit.functions._decorator import reward_function
from rewardkit.functions.builtin._extras import require
from rewardkit.functions.builtin._response import NoResponse, no_response, response_text
from rewardkit.types import EvaluateResult, Message, MetricResult

__all__ = ["extract_json", "json_schema_reward", "json_valid_reward"]

_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)
_MAX_ERRORS_SHOWN = 3


class _NoJSON(Exception):
    pass


def extract_json(text: str) -> Any:
    """The JSON value in a response.

    Tried in order: the whole text, each fenced code block (```` ```json ````), then the
    first `{...}` or `[...]` span that parses.

    Raises:
        ValueError: the text holds no JSON value.

    Example:
        >>> extract_json('Here you go: {"a": [1, 2]} — enjoy')
        {'a': [1, 2]}
    """
    candidates = [text, *_FENCE.findall(text)]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[{\[]", text):
        try:
            return decoder.raw_decode(text, match.start())[0]
        except ValueError:
            continue
    raise ValueError("no JSON value found in the text")


def _load_json(json_content: object, messages: list[Message]) -> Any:
    """The JSON to check: `json_content` when given, else the response's JSON."""
    if json_content is None:
        json_content = response_text(messages)
    elif not isinstance(json_content, str):
        return json_content  # already parsed
    try:
        return extract_json(json_content)
    except ValueError:
        raise _NoJSON from None


@reward_function
def json_valid_reward(
    messages: list[Message],
    ground_truth: Any = None,
    json_content: Any = None,
    **kwargs: Any,
) -> EvaluateResult:
    """1.0 if the response holds valid JSON (see `extract_json`), else 0.0.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: Unused (accepted for signature compatibility).
        json_content: Check this (a string or an already parsed value) instead of the
            response.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Example:
        >>> json_valid_reward([{"role": "assistant", "content": '```json\\n[1, 2]\\n```'}]).score
        1.0
    """
    try:
        _load_json(json_content, messages)
    except NoResponse as problem:
        return no_response("json_valid", problem)
    except _NoJSON:
        return _result(0.0, "The response holds no valid JSON", "json_valid")
    return _result(1.0, "The response holds valid JSON", "json_valid")


def _result(score: float, reason: str, metric: str) -> EvaluateResult:
    return EvaluateResult(
        score=score,
        reason=reason,
        metrics={metric: MetricResult(score=score, reason=reason, success=score == 1.0)},
    )


@functools.lru_cache(maxsize=128)
def _validator(schema_json: str) -> Any:
    jsonschema = require(
        "jsonschema", package="jsonschema", extra="json", function="json_schema_reward"
    )
    schema = json.loads(schema_json)
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise ValueError(
            f"json_schema_reward: expected_schema is not a valid JSON Schema: {exc.message} "
            f"(at {'/'.join(map(str, exc.absolute_path)) or 'the root'})"
        ) from None
    return cls(schema)


def _schema_key(expected_schema: object, ground_truth: object) -> str:
    schema = expected_schema if expected_schema is not None else ground_truth
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except ValueError:
            raise ValueError(
                f"json_schema_reward: expected_schema is a string but not JSON: {schema!r:.80}"
            ) from None
    if not isinstance(schema, Mapping | bool):
        raise ValueError(
            "json_schema_reward needs expected_schema (or ground_truth), a JSON Schema as a "
            f'dict or a JSON string, e.g. {{"type": "object"}} (got {type(schema).__name__})'
        )
    return json.dumps(schema, sort_keys=True)


@reward_function
def json_schema_reward(
    messages: list[Message],
    ground_truth: Any = None,
    json_content: Any = None,
    expected_schema: Any = None,
    **kwargs: Any,
) -> EvaluateResult:
    """Does the response's JSON validate against `expected_schema`, with its properties?

    0.0 if the JSON breaks the schema (or there is none: the `error` metric says so).
    Otherwise 1.0, or, when the schema declares `properties`, the Jaccard similarity of
    the JSON's `(path, type)` properties to the declared ones (`schema_similarity`, as in
    reward-kit 0.4.1): missing optional properties and extra ones cost partial credit.

    Args:
        messages: The conversation; `messages[-1]` is the assistant's response.
        ground_truth: The schema, when `expected_schema` is not given.
        json_content: Check this (a string or an already parsed value) instead of the
            response.
        expected_schema: The JSON Schema, as a dict or a JSON string.
        **kwargs: Ignored (accepted for pipeline compatibility).

    Raises:
        ImportError: `jsonschema` is missing (install `rewardkit[json]`).
        ValueError: no schema was given, or it is not a valid JSON Schema.

    Example:
        >>> json_schema_reward(
        ...     [{"role": "assistant", "content": '{"name": "Ada", "age": 36}'}],
        ...     expected_schema={"type": "object", "required": ["name", "age"]},
        ... ).score
        1.0
    """
    schema_json = _schema_key(expected_schema, ground_truth)
    validator = _validator(schema_json)
    try:
        data = _load_json(json_content, messages)
    except NoResponse as problem:
        return no_response("schema_validity", problem)
    except _NoJSON:
        return _result(0.0, "Invalid JSON content: no JSON value could be parsed", "error")
    similarity = _similarity(json.loads(schema_json), data)
    errors = sorted(validator.iter_errors(data), key=lambda e: tuple(map(str, e.absolute_path)))
    if errors:
        shown = "; ".join(
            f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
            for e in errors[:_MAX_ERRORS_SHOWN]
        )
        extra = len(errors) - _MAX_ERRORS_SHOWN
        more = f" (+{extra} more)" if extra > 0 else ""
        reason, score = f"The JSON breaks the schema: {shown}{more}", 0.0
    elif similarity is None:
        reason, score = "The JSON satisfies the schema", 1.0
    else:
        reason, score = f"The JSON satisfies the schema; {similarity.reason}", similarity.score
    metrics = {
        "schema_validity": MetricResult(score=float(not errors), reason=reason, success=not errors)
    }
    if similarity is not None:
        metrics["schema_similarity"] = similarity
    return EvaluateResult(score=score, reason=reason, metrics=metrics)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list):
        return "array"
    return "null" if value is None else "string"


def _value_properties(value: Any, prefix: str = "") -> set[tuple[str, str]]:
    """The `(dotted path, JSON type)` of every key of a JSON object, nested ones included."""
    found: set[tuple[str, str]] = set()
    if isinstance(value, Mapping):
        for key, item in value.items():
            found.add((f"{prefix}{key}", _json_type(item)))
            found |= _value_properties(item, f"{prefix}{key}.")
    return found


def _similarity(schema: Any, data: Any) -> MetricResult | None:
    """How alike the JSON's properties are to those the schema declares (Jaccard of the
    `(path, type)` sets, `integer` counting as `number`); None when it declares none."""
    from rewardkit.functions.builtin.tools._call_schema import (
        calculate_jaccard_similarity,
        extract_schema_properties,
    )

    if not isinstance(schema, Mapping) or not isinstance(schema.get("properties"), Mapping):
        return None
    expected = {
        (p, "number" if t == "integer" else t) for p, t in extract_schema_properties(schema)
    }
    actual = _value_properties(data)
    score = calculate_jaccard_similarity(expected, actual)
    parts = [f"Matching properties: {len(expected & actual)} of {len(expected | actual)}"]
    if missing := sorted(p for p, _ in expected - actual):
        parts.append(f"Missing properties: {', '.join(missing)}")
    if extra := sorted(p for p, _ in actual - expected):
        parts.append(f"Extra properties: {', '.join(extra)}")
    return MetricResult(score=score, reason="; ".join(parts), success=score == 1.0)
