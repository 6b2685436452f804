"""`score_model` and `label_model` on our model transport, against a real chat server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server import KEY, ChatServer, error, ok, schema_of

import rewardkit as rk

CASES = Path(__file__).with_name("cases")
GIVEN = {"prompt": "Capital of France?", "completion": "Paris", "ground_truth": "Paris"}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    with ChatServer() as chat:
        monkeypatch.setenv("REWARDKIT_API_BASE", chat.url)
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        yield chat


def score(case: str, **given: Any) -> rk.SampleResult:
    with rk.load(CASES / f"{case}.json") as scorer:
        return scorer.score({**GIVEN, "metadata": {"question": "Capital of France?"}, **given})


def test_score_model_maps_its_range_and_notes_the_pass_threshold(server: ChatServer) -> None:
    server.script(ok('{"reasoning": "right city", "result": 8}'))
    result = score("score_model")
    assert result.reward == pytest.approx(0.8)  # 8 on [0, 10]
    (outcome,) = result.outcomes
    assert outcome.reasoning == "8; passed pass_threshold 7: right city"
    (body,) = server.requests
    assert body["model"] == "test-model"  # OpenAI's bare name, sent to the OpenAI protocol
    assert [m["role"] for m in body["messages"]] == ["system", "system", "user"]
    assert "from 0 to 10" in body["messages"][0]["content"]
    assert body["messages"][2]["content"] == "Question: Capital of France?\nAnswer: Paris"


def test_score_model_clips_to_its_range(server: ChatServer) -> None:
    server.script(ok('{"reasoning": "generous", "result": 12}'))
    result = score("score_model")
    assert result.reward == 1.0
    assert result.outcomes[0].reasoning == "10 (clipped from 12); passed pass_threshold 7: generous"


def test_score_model_below_the_threshold_fails_it(server: ChatServer) -> None:
    server.script(ok("3"))  # a bare number, as a model without JSON output says it
    result = score("score_model")
    assert result.reward == pytest.approx(0.3)
    assert result.outcomes[0].reasoning == "3; failed pass_threshold 7"


def test_non_numeric_model_output_scores_zero_with_the_reply_kept(server: ChatServer) -> None:
    server.script(ok("A fine answer, I would say."))
    result = score("score_model")
    assert result.reward == 0.0
    assert result.outcomes[0].status == "scored"
    assert (
        result.outcomes[0].reasoning
        == "non-numeric model output, scored 0: 'A fine answer, I would say.'"
    )


def test_a_failed_model_call_is_an_error_never_a_zero(server: ChatServer) -> None:
    server.script(error(401, "bad key"))
    result = score("score_model")
    assert result.reward is None
    assert "judge: model call failed" in (result.error or "")


def test_structured_output_and_sampling_params_are_sent(server: ChatServer) -> None:
    server.script(ok('{"reasoning": "ok", "result": 0.9}'))
    result = score("score_model_default_range")
    assert result.reward == pytest.approx(0.9)
    (body,) = server.requests
    assert schema_of(body)["required"] == ["reasoning", "result"]
    assert body["temperature"] == 0
    assert body["seed"] == 7
    assert body["max_completion_tokens"] == 300


@pytest.mark.parametrize(
    ("reply", "reward", "reason"),
    [
        ('{"label": "polite"}', 1.0, "label 'polite'"),
        ("neutral", 1.0, "label 'neutral'"),
        ('{"label": "rude"}', 0.0, "label 'rude'"),
        ("sarcastic", 0.0, "the model gave no known label, scored 0: 'sarcastic'"),
    ],
)
def test_label_model_passes_only_passing_labels(
    server: ChatServer, reply: str, reward: float, reason: str
) -> None:
    server.script(ok(reply))
    result = score("label_model")
    assert result.reward == reward
    assert result.outcomes[0].reasoning == reason
    (body,) = server.requests
    assert '["polite", "neutral", "rude"]' in body["messages"][0]["content"]


def test_a_multi_formula_reads_the_score_model_on_its_own_scale(server: ChatServer) -> None:
    server.script(ok('{"reasoning": "close", "result": 6}'))
    result = score("multi_with_model", completion="paris")
    assert result.reward == pytest.approx(0.5 * 1 + 0.5 * 6 / 10)
    assert "judge=6 (6: close)" in (result.outcomes[0].reasoning or "")


def test_model_calls_are_cached_when_asked(
    server: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REWARDKIT_CACHE_DIR", str(tmp_path / "cache"))
    server.script(ok('{"reasoning": "a", "result": 9}'))
    first, again = score("score_model"), score("score_model")
    assert first.reward == again.reward == pytest.approx(0.9)
    assert server.count == 1


def test_the_reward_function_also_runs_a_model_grader_when_called_directly(
    server: ChatServer,
) -> None:
    from rewardkit.graders import load_reward

    server.script(ok('{"label": "rude"}'))
    reward = load_reward(CASES / "label_model.json")
    result = reward([{"role": "assistant", "content": "Go away."}], metadata={"question": "Hi?"})
    assert (result.score, result.reason) == (0.0, "label 'rude'")
