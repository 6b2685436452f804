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
    """1.0 if the response's JSON validates against `expected_schema`, else 0.0.

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
    validator = _validator(_schema_key(expected_schema, ground_truth))
    try:
        data = _load_json(json_content, messages)
    except NoResponse as problem:
        return no_response("schema_validity", problem)
    except _NoJSON:
        return _result(0.0, "The response holds no valid JSON", "schema_validity")
    errors = sorted(validator.iter_errors(data), key=lambda e: tuple(map(str, e.absolute_path)))
    if not errors:
        return _result(1.0, "The JSON satisfies the schema", "schema_validity")
    shown = "; ".join(
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
        for e in errors[:_MAX_ERRORS_SHOWN]
    )
    more = f" (+{len(errors) - _MAX_ERRORS_SHOWN} more)" if len(errors) > _MAX_ERRORS_SHOWN else ""
    return _result(0.0, f"The JSON breaks the schema: {shown}{more}", "schema_validity")
