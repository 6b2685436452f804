"""`{{ inputs }}` in an eval.yaml judge prompt prints as the harness prints it.

The harness's `load_case_record` (`skills/eval-run/scripts/score.py`) stores `input.yaml` in
the record as text: each top-level key as a `**key**: value` paragraph, in the file's order, a
nested value as `yaml.safe_dump` of it; `_render_jinja2_template` gives that text to the
template as `inputs` (and it is `outputs.inputs` too). Ours keeps the mapping, so
`{{ inputs.question }}` works as well, and prints it as that text however it is printed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rewardkit.evalyaml._cases import case_record
from rewardkit.evalyaml._llm_judge import instructions
from rewardkit.evalyaml._suite import load_suite
from rewardkit.evalyaml._template import render

INPUT_YAML = """\
# What the agent is asked (this comment is not part of the input)
question: How do I change the default port?
product: acme-server   # kept in the file's order, not sorted
context:
  version: 2.4
  docs:
    - docs/setup.md
    - docs/config.md
strict: true
"""
INPUTS_TEXT = (
    "**question**: How do I change the default port?\n\n"
    "**product**: acme-server\n\n"
    "**context**: docs:\n- docs/setup.md\n- docs/config.md\nversion: 2.4\n\n"  # safe_dump
    "**strict**: True"
)
"""What the harness's record holds as `inputs` for `INPUT_YAML`."""


@pytest.fixture
def case(tmp_path: Path) -> Path:
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "input.yaml").write_text(INPUT_YAML)
    (case / "annotations.yaml").write_text("category: config\n")
    (case / "answer.md").write_text("Set PORT in acme.toml.")
    return case


def show(template: str, record: dict[str, Any], limit: int = 10_000) -> str:
    return render(template, record, {}, source="prompt", limit=limit)


@pytest.mark.parametrize(
    "template",
    [
        "{{ inputs }}",
        "{{ input }}",
        "{{ outputs.inputs }}",  # the harness's record holds the text
        "{{ outputs['inputs'] }}",
        "{{ outputs.get('inputs') }}",
        "{{ inputs | string }}",
        "{{ '%s' % inputs }}",
        "{{ '' ~ inputs }}",
        "{{ inputs | trim }}",
    ],
)
def test_inputs_print_as_the_harness_text(case: Path, template: str) -> None:
    assert show(template, case_record(case)) == INPUTS_TEXT


def test_one_input_is_still_reachable(case: Path) -> None:
    record = case_record(case)
    template = "{{ inputs.question }}|{{ input['product'] }}|{{ outputs.inputs.context.version }}"
    assert show(template, record) == "How do I change the default port?|acme-server|2.4"
    loop = "{% for key in inputs %}{{ key }} {% endfor %}"
    assert show(loop, record) == "question product context strict "


def test_annotations_and_outputs_print_as_their_text_however_printed(case: Path) -> None:
    record = case_record(case)
    assert show("{{ annotations | string }}", record) == "- **category**: config\n"
    files = show("{{ outputs | string }}", record)
    assert files == "<submission>\n### answer.md\n\nSet PORT in acme.toml.\n</submission>"
    # the harness's record keeps annotations a mapping: it prints as one there too
    assert show("{{ outputs.annotations }}", record) == "{'category': 'config'}"
    assert show("{{ outputs.annotations | string }}", record) == "{'category': 'config'}"


def test_the_inputs_are_the_authors_and_are_not_fenced(case: Path) -> None:
    text = show("{{ outputs.inputs }} / {{ outputs }}", case_record(case))
    assert text.startswith(INPUTS_TEXT + " / <submission>")
    assert text.count("<submission>") == 1


def test_long_inputs_are_capped_with_the_prompt(case: Path) -> None:
    (case / "input.yaml").write_text("question: " + "q" * 50_000 + "\n")
    text = show("Task: {{ inputs | string }} Answer: {{ outputs }}", case_record(case), 2_000)
    assert text.startswith("Task: **question**: qqq")
    assert text.endswith("[... cut: the rendered prompt is capped at 2,000 characters]")
    assert "Answer" not in text


def test_a_case_without_input_yaml_prints_nothing(case: Path) -> None:
    (case / "input.yaml").unlink()
    assert show("[{{ inputs }}][{{ outputs.inputs }}]", case_record(case)) == "[][]"


def test_an_eval_yaml_judge_prompt_shows_the_inputs(case: Path) -> None:
    eval_yaml = case.parent.parent / "eval.yaml"
    eval_yaml.write_text(
        "dataset: {path: cases}\n"
        "judges:\n"
        "  - name: answers_question\n"
        "    feedback_type: bool\n"
        "    prompt: |\n"
        "      The task:\n"
        "      {{ inputs }}\n"
        "      Does the answer address {{ inputs.question }}?\n"
        "      {{ outputs }}\n"
    )
    (judge,) = load_suite(eval_yaml).judges
    prompt = instructions(judge, case_record(case), eval_yaml.parent, numeric=False)
    assert prompt.startswith(f"The task:\n{INPUTS_TEXT}\nDoes the answer address How do I")
    assert "<submission>\n### answer.md\n\nSet PORT in acme.toml.\n</submission>" in prompt
