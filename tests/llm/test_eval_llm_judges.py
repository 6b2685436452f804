"""eval.yaml LLM judges on the shared transport, against the local chat server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from server import KEY, ChatServer, Reply, ok

from rewardkit._evaluate import score_cases
from rewardkit.sources.eval_yaml import load_suite

EVAL = """
dataset: {path: cases}
judges:
  - name: quality
    llm_rubric: "Is the answer to {{ input.question }} well explained?"
    score_range: [1, 5]
    model: MODEL
  - name: correct
    prompt: "Does the answer equal {{ annotations.expected }}?"
    model: MODEL
    samples: 3
  - name: only_math
    prompt: "Check it."
    model: MODEL
    if: "annotations.get('topic') == 'math'"
reward:
  formula: "0.5 * quality + 0.5 * correct"
"""


@pytest.fixture
def suite(
    tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch, structured: str
) -> Path:
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    (tmp_path / "eval.yaml").write_text(EVAL.replace("MODEL", structured))
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "input.yaml").write_text("question: what is 6 x 7\n")
    (case / "annotations.yaml").write_text("expected: '42'\ntopic: history\n")
    (case / "answer.txt").write_text("42, because six sevens are forty-two")
    return tmp_path / "eval.yaml"


def by_schema(numeric: Any, boolean: Any) -> Any:
    def respond(body: dict[str, Any]) -> Reply:
        kind = body["response_format"]["json_schema"]["schema"]["properties"]["score"]["type"]
        value = numeric() if kind == "number" else boolean()
        return ok(json.dumps({"score": value, "rationale": "because"}))

    return respond


def run(path: Path) -> dict[str, Any]:
    suite = load_suite(path)
    (result,) = score_cases(suite, sorted((path.parent / "cases").iterdir()))
    return {"reward": result.reward, **{o.name: o for o in result.outcomes}}


def test_llm_judges_score_render_and_combine_samples(suite: Path, server: ChatServer) -> None:
    votes = iter([True, False, True])
    server.respond_with(by_schema(lambda: 4, lambda: next(votes)))
    got = run(suite)
    assert (got["quality"].status, got["quality"].raw) == ("scored", 4)
    assert got["correct"].raw is True  # 2 of 3 samples passed: strict majority
    assert got["only_math"].status == "skipped"  # `if:` is false: no call made
    assert got["reward"] == pytest.approx(0.5 * 0.75 + 0.5 * 1.0)
    assert server.count == 4
    prompts = [json.dumps(r["messages"]) for r in server.requests]
    assert any("what is 6 x 7" in p for p in prompts)  # {{ input.question }} rendered
    assert all("<submission>" in p and "forty-two" in p for p in prompts)


def test_an_off_scale_reply_is_asked_again_then_recorded(suite: Path, server: ChatServer) -> None:
    server.respond_with(by_schema(lambda: 9, lambda: True))
    with pytest.warns(RuntimeWarning, match="name 'quality' is not defined"):
        got = run(suite)  # the formula needs `quality`, which has no value: 0.0, as the seed says
    assert got["quality"].status == "error"
    assert "outside [1, 5]" in str(got["quality"].error)
    assert got["correct"].status == "scored"
    assert server.count == 3 + 3  # three asks for quality, three samples for correct
