"""An invalid grader file is one `ConfigError` line naming the file and the field's JSON path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk
from rewardkit.core._errors import ConfigError
from rewardkit.graders import load_grader

EXACT = {
    "type": "string_check",
    "name": "a",
    "operation": "eq",
    "input": "{{ sample.output_text }}",
    "reference": "{{ item.answer }}",
}
MODEL = {
    "type": "score_model",
    "name": "b",
    "model": "gpt-4o",
    "input": [{"role": "user", "content": "{{ sample.output_text }}"}],
}


def multi(**graders: Any) -> dict[str, Any]:
    return {"type": "multi", "name": "m", "graders": graders, "calculate_output": "a"}


INVALID = [
    (
        {**EXACT, "type": "regex"},
        "type: unknown 'regex'. Valid: string_check, text_similarity, score_model, label_model, python, multi",
    ),
    ({**EXACT, "type": "string_chek"}, "type: unknown 'string_chek'. Did you mean 'string_check'?"),
    ({k: v for k, v in EXACT.items() if k != "name"}, "name: is required"),
    (
        {**EXACT, "operation": "contains"},
        "operation: unknown 'contains'. Valid: eq, ne, like, ilike",
    ),
    (
        {**EXACT, "refernce": "x"},
        "refernce: unknown field of a string_check grader. Did you mean 'reference'?",
    ),
    (
        {**EXACT, "input": "{{ answer }}"},
        "input: unknown template root 'answer' in '{{ answer }}'. Roots: item, sample",
    ),
    (
        {**EXACT, "input": "{{ sample.output }}"},
        "input: unknown sample field 'output' in '{{ sample.output }}'. Did you mean 'output_text'?",
    ),
    (
        {**EXACT, "input": "{{ item.a b }}"},
        "input: '{{ item.a b }}' must be a namespace and a path, e.g. item.answer",
    ),
    ({**EXACT, "input": 3}, "input: must be a string (got 3)"),
    (
        multi(a=EXACT, b={**MODEL, "range": [5, 1]}),
        "graders.b.range: must be [min, max] with min < max (got [5, 1])",
    ),
    (
        multi(a=EXACT, b={**MODEL, "range": [0, "10"]}),
        "graders.b.range: must be [min, max] with min < max (got [0, '10'])",
    ),
    (
        {**multi(a=EXACT), "calculate_output": "a + c"},
        "calculate_output: unknown name 'c' (line 1, col 5); known names: 'a'.",
    ),
    (
        {**multi(a=EXACT), "calculate_output": "a ^ 2"},
        "calculate_output: '^' (a power) is not in rewardkit's formula language; write x * x",
    ),
    (
        {**multi(a=EXACT), "calculate_output": "sqrt(a)"},
        "calculate_output: calling 'sqrt' is not allowed (line 1, col 1); the functions are abs, len, max, mean, min, round, sum.",
    ),
    (
        {**multi(a=EXACT), "calculate_output": "__import__('os')"},
        "calculate_output: the name '__import__' (names starting with '_') is not allowed",
    ),
    (
        {"name": "x", "input": "y"},
        "type: is required: a grader's type is one of string_check, text_similarity, score_model",
    ),
    (
        multi(a={**EXACT, "graders": {}}),
        "graders.a.graders: unknown field of a string_check grader.",
    ),
    (multi(a={**EXACT, "input": "{{ x.y }}"}), "graders.a.input: unknown template root 'x'"),
    (
        {"type": "multi", "name": "m", "graders": {}, "calculate_output": "1"},
        "graders: must be a non-empty object (got {})",
    ),
    (
        {
            "type": "text_similarity",
            "name": "t",
            "input": "x",
            "reference": "y",
            "evaluation_metric": "meteor",
        },
        "evaluation_metric: 'meteor' is not supported: needs NLTK's WordNet data",
    ),
    (
        {
            "type": "text_similarity",
            "name": "t",
            "input": "x",
            "reference": "y",
            "evaluation_metric": "cosine",
        },
        "evaluation_metric: 'cosine' is not supported: needs an embeddings model",
    ),
    (
        {
            "type": "text_similarity",
            "name": "t",
            "input": "x",
            "reference": "y",
            "evaluation_metric": "rouge_6",
        },
        "evaluation_metric: unknown 'rouge_6'.",
    ),
    (
        {**MODEL, "type": "label_model", "labels": ["good", "bad"], "passing_labels": ["great"]},
        "passing_labels: 'great' is not one of labels ['good', 'bad']",
    ),
    ({**MODEL, "input": []}, "input: must be a non-empty list of messages {role, content}"),
    (
        {**MODEL, "input": [{"role": "tool", "content": "x"}]},
        "input.0.role: unknown 'tool'. Valid: system, developer, user, assistant",
    ),
    (
        {
            **MODEL,
            "input": [{"role": "user", "content": {"type": "input_image", "image_url": "x"}}],
        },
        "input.0.content: only text content is supported: input_text, output_text (got 'input_image')",
    ),
    (
        {
            **MODEL,
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "{{ sample.tools }}"}]}
            ],
        },
        "input.0.content.0.text: unknown sample field 'tools'",
    ),
    (
        {**MODEL, "sampling_params": {"temprature": 0}},
        "sampling_params.temprature: unknown field of sampling_params. Did you mean 'temperature'?",
    ),
    ({**MODEL, "pass_threshold": "high"}, "pass_threshold: must be a number (got 'high')"),
    (
        {"type": "python", "name": "p", "source": "def grade(sample, item)\n    return 1\n"},
        "source: is not valid Python (expected ':', line 1)",
    ),
    (
        {"type": "python", "name": "p", "source": "def score(sample, item):\n    return 1\n"},
        "source: must define a function grade(sample, item)",
    ),
    (
        {"type": "python", "name": "p", "source": "def grade(s, i):\n    return 1\n", "timeout": 0},
        "timeout: must be seconds in (0, 600] (got 0)",
    ),
    ([EXACT], "an OpenAI grader must be a JSON object (got list)"),
]


@pytest.mark.parametrize(("grader", "message"), INVALID, ids=[m[:40] for _, m in INVALID])
def test_an_invalid_grader_is_one_line_naming_the_field(
    tmp_path: Path, grader: object, message: str
) -> None:
    path = tmp_path / "grader.json"
    path.write_text(json.dumps(grader))
    with pytest.raises(ConfigError) as caught:
        load_grader(path)
    text = str(caught.value)
    assert "\n" not in text
    assert text.startswith(f"{path}: ")
    assert message in text, text


def test_a_file_that_is_not_json_says_so(tmp_path: Path) -> None:
    path = tmp_path / "grader.json"
    path.write_text("{'type': 'python'}")
    with pytest.raises(
        ConfigError, match=r"grader\.json: not valid JSON \(Expecting property name"
    ):
        load_grader(path)


def test_load_refuses_an_invalid_grader_before_scoring_anything(tmp_path: Path) -> None:
    path = tmp_path / "grader.json"
    path.write_text(json.dumps({**EXACT, "operation": "equals"}))
    with pytest.raises(ConfigError, match="operation: unknown 'equals'"):
        rk.load(path)


def test_a_grader_file_takes_no_reward_block(tmp_path: Path) -> None:
    path = tmp_path / "grader.json"
    path.write_text(json.dumps(EXACT))
    with pytest.raises(ConfigError, match="a file source has its own"):
        rk.load(path, reward={"formula": "a"})
