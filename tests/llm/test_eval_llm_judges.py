"""eval.yaml LLM judges on the shared transport, against the local chat server (for each
provider: the same verdicts natively and through LiteLLM)."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

import pytest
from server import KEY, PROVIDERS, ChatServer, Reply, ok, schema_of

from rewardkit.evalyaml._llm_judge import (
    MAX_FILE_CHARS,
    MAX_PROMPT_CHARS,
    MAX_SUBMISSION_CHARS,
    instructions,
)
from rewardkit.evalyaml._score import score_cases
from rewardkit.evalyaml._suite import load_suite

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
    feedback_type: bool
    samples: 3
  - name: only_math
    prompt: "Check it."
    model: MODEL
    feedback_type: bool
    if: "annotations.get('topic') == 'math'"
reward:
  formula: "0.5 * quality + 0.5 * correct"
"""


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def suite(
    tmp_path: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch, structured: str
) -> Path:
    monkeypatch.setenv("REWARDKIT_API_BASE", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    (tmp_path / "eval.yaml").write_text(EVAL.replace("MODEL", structured))
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "input.yaml").write_text("question: what is 6 x 7\n")
    (case / "annotations.yaml").write_text("expected: '42'\ntopic: history\n")
    (case / "answer.txt").write_text("42, because six sevens are forty-two")
    return tmp_path / "eval.yaml"


def by_schema(numeric: Any, boolean: Any) -> Any:
    def respond(body: dict[str, Any]) -> Reply:
        kind = schema_of(body)["properties"]["score"]["type"]
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
    # concepts/pairwise-and-sampling.md, "The stability block": not stable, so each sample's
    # rationale is recorded; a judge asked once carries no block.
    stability = got["correct"].extra["stability"]
    assert stability == {
        "samples": 3, "min": 0.0, "max": 1.0, "mean": 2 / 3,
        "values": [True, False, True], "stable": False,
    }  # fmt: skip
    assert [s["value"] for s in got["correct"].extra["sample_rationales"]] == [True, False, True]
    assert "stability" not in got["quality"].extra
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


def test_a_huge_case_renders_into_a_bounded_prompt(tmp_path: Path) -> None:
    judge = load_suite(
        write_eval(tmp_path, "Grade {{ inputs.rows }} and {{ annotations.note }}")
    ).judges[0]
    shared = ["x" * 1000] * 1000  # one list used a million times: a gigabyte as text
    record = {"inputs": {"rows": [shared] * 1000}, "annotations": {"note": "n" * 10**6}}
    text = instructions(judge, record, tmp_path, numeric=False)
    assert text.startswith("Grade [['xxx")
    cut = f"[... cut: the rendered prompt is capped at {MAX_PROMPT_CHARS:,} characters]"
    assert cut in text
    assert len(text) < MAX_PROMPT_CHARS + 1000


def test_placeholders_render_like_str_and_inputs_like_the_harness(tmp_path: Path) -> None:
    judge = load_suite(
        write_eval(tmp_path, "{{ inputs.n }}|{{ inputs.s }}|{{ inputs.d }}|{{ inputs.l }}")
    ).judges[0]
    day = datetime.date(2026, 12, 1)  # YAML reads dates as such
    inputs = {"n": 1.5, "s": "it's", "l": [None, True, {"k": ("t",), "u": (1, 2)}], "d": day}
    text = instructions(judge, {"inputs": inputs}, tmp_path, numeric=False)
    assert text.split("\n\n")[0] == f"1.5|it's|2026-12-01|{inputs['l']}"
    # bare {{ inputs }}: `**key**: value` paragraphs, nested values as YAML (score.py)
    judge = load_suite(write_eval(tmp_path, "{{ inputs }}")).judges[0]
    text = instructions(judge, {"inputs": {"q": "why?", "tags": ["a", "b"]}}, tmp_path, False)
    assert text.startswith("**q**: why?\n\n**tags**: - a\n- b\n\nAnswer true")


def test_the_submission_is_capped_with_a_note(
    suite: Path, server: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = suite.parent / "cases" / "c1"
    for i in range(30):
        (case / f"part{i:02}.txt").write_text(f"{i}" * (MAX_FILE_CHARS + 10))
    server.respond_with(by_schema(lambda: 4, lambda: True))
    run(suite)
    user = server.requests[0]["messages"][-1]["content"]
    text = "".join(block["text"] for block in user if block["type"] == "text")
    assert f"[... cut: each file is capped at {MAX_FILE_CHARS:,} characters]" in text
    assert "more part(s) not shown: the submission is capped at 200,000 characters]" in text
    assert len(text) < MAX_SUBMISSION_CHARS + 10_000


def write_eval(tmp_path: Path, prompt: str) -> Path:
    path = tmp_path / "eval.yaml"
    path.write_text(
        f"judges:\n  - name: j\n    prompt: {json.dumps(prompt)}\n    feedback_type: bool\n"
    )
    return path
