"""json_schema_reward_with_llm_judge, with a fake `openai` module (no network)."""

from __future__ import annotations

import sys
import types
from typing import Any, ClassVar

import pytest

from rewardkit.functions.builtin import json_schema_reward_with_llm_judge as reward

SCHEMA = {"type": "object", "properties": {"age": {"type": "number"}}, "required": ["age"]}


class FakeOpenAI:
    """Stands in for `openai.OpenAI`: records each request, answers with `reply`."""

    reply: Any = "SCORE: 0.8\nEXPLANATION: fine"
    requests: ClassVar[list[dict[str, Any]]] = []
    keys: ClassVar[list[str | None]] = []

    def __init__(self, api_key: str | None = None) -> None:
        self.keys.append(api_key)
        completions = types.SimpleNamespace(create=self.create)
        self.chat = types.SimpleNamespace(completions=completions)

    def create(self, **request: Any) -> Any:
        self.requests.append(request)
        if isinstance(self.reply, Exception):
            raise self.reply
        message = types.SimpleNamespace(content=self.reply)
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


@pytest.fixture
def openai(monkeypatch: pytest.MonkeyPatch) -> type[FakeOpenAI]:
    monkeypatch.setitem(sys.modules, "openai", types.SimpleNamespace(OpenAI=FakeOpenAI))
    monkeypatch.setattr(FakeOpenAI, "requests", [])
    monkeypatch.setattr(FakeOpenAI, "keys", [])
    return FakeOpenAI


def said(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": "Your age?"}, {"role": "assistant", "content": text}]


def test_blends_schema_and_llm_scores(openai: type[FakeOpenAI]) -> None:
    result = reward(
        said('{"age": 41}'), expected_schema=SCHEMA, expected_behavior="an age", openai_api_key="k"
    )
    assert result.score == pytest.approx(0.7 * 1.0 + 0.3 * 0.8)
    assert result.metrics["llm_score"].score == 0.8
    assert result.metrics["weights"].reason == "Weights: schema 0.70, llm 0.30"
    (request,) = openai.requests
    assert request["model"] == "gpt-4o-mini"
    assert '"age": 41' in request["messages"][1]["content"]
    assert "an age" in request["messages"][1]["content"]
    assert openai.keys == ["k"]


def test_custom_weights_are_normalised(openai: type[FakeOpenAI]) -> None:
    result = reward(said('{"age": 41}'), expected_schema=SCHEMA, weights={"schema": 1, "llm": 3})
    assert result.score == pytest.approx(0.25 + 0.75 * 0.8)


def test_json_content_replaces_the_response(openai: type[FakeOpenAI]) -> None:
    result = reward(said("no JSON here"), json_content={"age": "old"}, expected_schema=SCHEMA)
    assert result.metrics["schema_score"].score == 0.0
    assert '"age": "old"' in openai.requests[0]["messages"][1]["content"]


def test_weight_zero_skips_the_llm(openai: type[FakeOpenAI]) -> None:
    result = reward(said('{"age": 1}'), expected_schema=SCHEMA, weights={"llm": 0})
    assert result.score == 1.0
    assert openai.requests == []
    assert result.metrics["llm_score"].reason == "Not asked (weight 0)"


@pytest.mark.parametrize(
    ("reply", "why"),
    [(RuntimeError("no network"), "RuntimeError: no network"), ("I like it", "no 'SCORE")],
)
def test_a_failed_judge_counts_zero_and_says_why(
    openai: type[FakeOpenAI], monkeypatch: pytest.MonkeyPatch, reply: Any, why: str
) -> None:
    monkeypatch.setattr(FakeOpenAI, "reply", reply)
    result = reward(said('{"age": 41}'), expected_schema=SCHEMA)
    assert result.score == pytest.approx(0.7)
    assert result.metrics["llm_score"].success is False
    assert why in (result.metrics["llm_score"].reason or "")


def test_scores_outside_the_range_are_clamped(
    openai: type[FakeOpenAI], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(FakeOpenAI, "reply", "SCORE: 7")
    assert reward(said('{"age": 41}'), expected_schema=SCHEMA).metrics["llm_score"].score == 1.0


def test_huge_json_is_cut_for_the_judge(openai: type[FakeOpenAI]) -> None:
    reward(said('{"age": 1, "pad": "' + "x" * 50_000 + '"}'), expected_schema=SCHEMA)
    prompt = openai.requests[0]["messages"][1]["content"]
    assert len(prompt) < 21_000
    assert "(cut at 20000 characters)" in prompt


def test_no_response_scores_zero(openai: type[FakeOpenAI]) -> None:
    assert reward([], expected_schema=SCHEMA).score == 0.0


@pytest.mark.parametrize("weights", [{"schema": -1}, {"schema": 0, "llm": 0}, {"judge": 1}])
def test_bad_weights_raise(weights: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="weights must be"):
        reward(said("{}"), expected_schema=SCHEMA, weights=weights)


def test_missing_openai_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(ImportError, match=r"rewardkit\[llm\]"):
        reward(said('{"age": 1}'), expected_schema=SCHEMA)
