"""json_valid_reward and json_schema_reward."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rewardkit.functions.builtin import json_schema_reward, json_valid_reward
from rewardkit.functions.builtin.json._json import extract_json


def said(content: Any) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": content}]


PERSON = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
    "required": ["name", "age"],
}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ("```json\n[1, 2]\n```", [1, 2]),
        ('```\n{"b": true}\n```', {"b": True}),
        ('Result: {"a": {"b": [1]}} done. {"c": 2}', {"a": {"b": [1]}}),
        ("Use [x] then [1, 2]", [1, 2]),
        ("42", 42),
    ],
)
def test_extract_json(text: str, value: Any) -> None:
    assert extract_json(text) == value


def test_extract_json_none() -> None:
    with pytest.raises(ValueError, match="no JSON value"):
        extract_json("{not: json}")


def test_json_valid() -> None:
    assert json_valid_reward(said('{"a": 1}')).score == 1.0
    bad = json_valid_reward(said("{'a': 1}"))
    assert bad.score == 0.0
    assert bad.metrics["json_valid"].success is False
    assert json_valid_reward(said("ignored"), json_content='{"x": 1}').score == 1.0
    assert json_valid_reward([]).score == 0.0


def test_schema_valid() -> None:
    result = json_schema_reward(said('{"name": "Ada", "age": 36}'), expected_schema=PERSON)
    assert result.score == 1.0
    assert result.metrics["schema_validity"].success is True


def test_schema_wrong_type_scores_zero() -> None:
    # reward-kit 0.4.1 compared inferred property sets (Jaccard) rather than validating,
    # so a string where an integer is required still earned partial credit.
    result = json_schema_reward(said('{"name": "Ada", "age": "36"}'), expected_schema=PERSON)
    assert result.score == 0.0
    assert "age: '36' is not of type 'integer'" in (result.reason or "")


def test_schema_errors_listed_and_capped() -> None:
    schema = {"type": "object", "properties": {k: {"type": "integer"} for k in "abcde"}}
    data = json.dumps(dict.fromkeys("abcde", "x"))
    result = json_schema_reward(said(data), expected_schema=schema)
    assert "(+2 more)" in (result.reason or "")
    missing = json_schema_reward(said('{"name": "Ada"}'), expected_schema=PERSON)
    assert "(root): 'age' is a required property" in (missing.reason or "")


def test_schema_sources() -> None:
    assert (
        json_schema_reward(
            said('{"name": "A", "age": 1}'), expected_schema=json.dumps(PERSON)
        ).score
        == 1.0
    )
    assert json_schema_reward(said('{"name": "A", "age": 1}'), PERSON).score == 1.0  # ground_truth
    assert (
        json_schema_reward(
            said("x"), json_content={"name": "A", "age": 1}, expected_schema=PERSON
        ).score
        == 1.0
    )
    assert json_schema_reward(said("no json here"), expected_schema=PERSON).score == 0.0
    assert json_schema_reward(said("x"), expected_schema=False).score == 0.0  # boolean schema
    assert json_schema_reward([], expected_schema=PERSON).score == 0.0


def test_schema_draft_is_respected() -> None:
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "number",
        "exclusiveMaximum": True,
        "maximum": 5,
    }
    assert json_schema_reward(said("5"), expected_schema=draft4).score == 0.0
    assert json_schema_reward(said("4"), expected_schema=draft4).score == 1.0


def test_bad_schema_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="needs expected_schema"):
        json_schema_reward(said("{}"))
    with pytest.raises(ValueError, match="is a string but not JSON"):
        json_schema_reward(said("{}"), expected_schema="{oops")
    with pytest.raises(ValueError, match="not a valid JSON Schema: 'strin' is not valid"):
        json_schema_reward(said("{}"), expected_schema={"type": "strin"})


def test_missing_jsonschema_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from rewardkit.functions.builtin.json import _json

    _json._validator.cache_clear()
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    with pytest.raises(ImportError, match=r"pip install 'rewardkit\[json\]'"):
        json_schema_reward(said("{}"), expected_schema={"type": "object", "title": "uncached"})
