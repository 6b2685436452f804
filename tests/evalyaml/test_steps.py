"""`step:` judges of a multi-step run (`execution.steps`), as the harness specifies them.

The harness's multi-step examples (`specs/011-multi-step-execution/spec.md`, and the
"Multi-step pipelines" section of `website/reference/config/execution.md`) load; a run laid
out as the harness's executor writes one (`skills/eval-run/scripts/execute.py`,
`_run_multi_step_case`: `cases/<case>/steps/<id>/stdout.log` per step, the final step's logs
at the case's root, per-step metrics under `per_case.<case>.steps` of the run's
`run_result.json`) is scored end to end by `rewardkit eval`, each `step:` judge seeing its
step's record (`skills/eval-run/scripts/score.py`: `load_case_record`, `_step_scoped_record`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.conftest import write_tree

from rewardkit.core._errors import ConfigError
from rewardkit.evalyaml._cases import Layout, case_record, step_record
from rewardkit.evalyaml._suite import load_suite

# --- the harness's documented examples ----------------------------------------------------

CONFIG_SURFACE = """
execution:
  mode: case                      # steps run in case mode (v1)
  env: { COMMON: value }          # case-level env (base layer)
  steps:
    - id: create                  # REQUIRED: identity for {{ steps.create.* }},
                                  #   judge `step:` targeting, and the Harbor step name
      name: "Create strategy"     # optional display label
      skill: strategy-create      # skill XOR prompt, validated PER STEP
      arguments: "{{ input.rfe }}"
      env: { JIRA_TOKEN: $JIRA_TOKEN }   # merged OVER execution.env (step wins)
      timeout: 1800               # optional; falls back to execution.timeout
      max_budget_usd: 5.0         # optional; falls back to execution.max_budget_usd
      runner:                     # optional per-step runner override
        type: claude-code         #   parsed by the SAME _parse_runner_config as
        effort: high              #   the top-level runner and agent.runner
    - id: refine
      skill: strategy-refine
      arguments: "{{ steps.create.output }} {{ input.focus }}"   # ← prior-step output
    - id: review
      skill: strategy-review
      arguments: "{{ steps.refine.output }}"

judges:
  - name: refine_quality
    step: refine                  # OPTIONAL: score this step's sub-record;
                                  #   default (unset) = whole case / final workspace
    prompt_file: eval/prompts/refine.md
"""
"""spec.md §1 "Config surface"."""

STRAT_CREATOR = """
execution:
  mode: case
  steps:
    - id: refine
      skill: strategy-refine
      arguments: "STRAT-{{ input.id }} --dry-run --architecture-context .context/architecture-context"
    - id: review
      skill: strategy-review
      arguments: "STRAT-{{ input.id }} --dry-run --architecture-context .context/architecture-context"

hooks:
  before_each: [{ command: "python3 eval/stage_stub.py {{ input.id }}" }]

judges:
  - name: feasibility          # whole-case (final review artifact)
    prompt_file: eval/prompts/feasibility.md
  - name: refine_grounding     # scoped to the refine step's trace
    step: refine
    prompt_file: eval/prompts/grounding.md
"""
"""spec.md "Examples": strat-creator, create → refine → review."""

WIRING = """
execution:
  steps:
    - id: plan
      prompt: "Draft an implementation plan for: {{ input.task }}"
    - id: build
      skill: implement
      arguments: "Follow this plan:\\n{{ steps.plan.output }}"
"""
"""spec.md "Examples": wiring a prior step's output into a later prompt."""

MIGRATION = """
execution:
  mode: case
  steps:
    - { id: a, skill: my-skill, arguments: "{{ input.prompt }}" }
    - { id: b, skill: my-other-skill, arguments: "{{ steps.a.output }}" }
"""
"""spec.md "Migration", after."""

EXECUTION_MD = """
execution:
  mode: case
  steps:
    - id: refine                # required: unique; identifies the step
      skill: strategy-refine    # skill xor prompt, per step
      arguments: "STRAT-{{ input.id }}"
      env: { JIRA_TOKEN: $JIRA_TOKEN }   # merged over execution.env (step wins)
      timeout: 1800             # optional; falls back to execution.timeout
      max_budget_usd: 5.0       # optional; falls back to execution.max_budget_usd
      runner: { type: claude-code, effort: high }   # optional per-step override
    - id: review
      skill: strategy-review
      arguments: "{{ steps.refine.output }}"   # ← reference an earlier step
judges:
  - name: refine_grounding
    step: refine              # scored against the refine step's trace
    prompt_file: eval/prompts/grounding.md
  - name: feasibility        # whole case (final workspace)
    prompt_file: eval/prompts/feasibility.md
"""
"""website/reference/config/execution.md "Multi-step pipelines": its two snippets, the
pipeline and its judges, as one eval.yaml (each alone is checked by test_doc_snippets)."""

EXAMPLES = {
    "config-surface": (CONFIG_SURFACE, {"refine_quality": "refine"}),
    "strat-creator": (STRAT_CREATOR, {"feasibility": None, "refine_grounding": "refine"}),
    "wiring": (WIRING, {}),
    "migration": (MIGRATION, {}),
    "execution-md": (EXECUTION_MD, {"refine_grounding": "refine", "feasibility": None}),
}


def load_text(tmp_path: Path, text: str) -> Any:
    for prompt in ("refine", "feasibility", "grounding"):
        write_tree(tmp_path, {f"eval/prompts/{prompt}.md": "Rate it: {{ conversation }}"})
    path = tmp_path / "eval.yaml"
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an LLM judge without score_range warns
        return load_suite(path)


@pytest.fixture(autouse=True)
def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project root is the working directory, as in the harness."""
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_the_harness_multi_step_examples_load(tmp_path: Path, example: str) -> None:
    text, steps = EXAMPLES[example]
    suite = load_text(tmp_path, text)
    assert {j.name: j.step for j in suite.judges} == steps
    declared = yaml.safe_load(text)["execution"]["steps"]
    assert suite.steps == tuple(s["id"] for s in declared)


@pytest.mark.parametrize(
    ("steps", "key", "fragment"),
    [
        ("[{id: '../evil', skill: y}]", "execution.steps[0].id", "must be one path segment"),
        ("[{id: 'a/b', skill: y}]", "execution.steps[0].id", "must be one path segment"),
        ("[{id: '..', skill: y}]", "execution.steps[0].id", "must be one path segment"),
        ("[{skill: y}]", "execution.steps[0].id", "every step needs a non-empty 'id'"),
        ("[{id: a, skill: y}, {id: a, skill: z}]", "execution.steps[1].id", "must be unique"),
        ("[just-a-name]", "execution.steps[0]", "must be a mapping"),
        ("{id: a}", "execution.steps", "must be a list of steps"),
    ],
)
def test_step_ids_are_checked_as_the_harness_checks_them(
    tmp_path: Path, steps: str, key: str, fragment: str
) -> None:
    # agent_eval/config.py: ExecutionConfig.__post_init__ (_validate_path_segment, unique ids)
    with pytest.raises(ConfigError) as info:
        load_text(tmp_path, f"execution:\n  steps: {steps}\n")
    assert f"eval.yaml: {key}: " in str(info.value)
    assert fragment in str(info.value)


@pytest.mark.parametrize("step", ["[refine]", "{id: refine}", "true"])
def test_a_step_that_is_no_id_is_a_load_error(tmp_path: Path, step: str) -> None:
    text = f"execution: {{steps: [{{id: refine, skill: x}}]}}\njudges:\n  - {{name: j, check: 'return 1', step: {step}}}\n"
    with pytest.raises(ConfigError) as info:
        load_text(tmp_path, text)
    assert "judges[0] 'j' (line 3).step: must be the id of an execution.steps entry" in str(
        info.value
    )


# --- a recorded multi-step run, scored by `rewardkit eval` --------------------------------

EVAL = """
name: pipeline
dataset: {path: dataset}
outputs:
  - path: output
execution:
  mode: case
  steps:
    - {id: refine, skill: strategy-refine, arguments: "{{ input.id }}", on_failure: continue}
    - {id: review, skill: strategy-review, arguments: "{{ steps.refine.output }}"}
judges:
  - name: refine_transcript
    step: refine
    check: |
      text = outputs["conversation"]
      return "DRAFT" in text and "VERDICT" not in text, text
  - name: refine_budget
    step: refine
    builtin: efficiency/cost_budget
    arguments: {max_cost_usd: 0.5}
  - name: refine_turns
    step: refine
    if: "outputs['exit_code'] == 0"
    check: "return outputs['num_turns']"
    score_range: [0, 10]
  - name: review_stdout
    step: review
    if: "outputs['exit_code'] == 0"
    check: |
      return "VERDICT" in outputs["stdout"] and "DRAFT" not in outputs["stdout"], outputs["stdout"]
  - name: review_sees_files
    step: review
    check: "return outputs['files']['output/strategy.md'] == 'the strategy', outputs['_scoped_step']"
  - name: whole_case
    check: |
      return "VERDICT" in outputs["conversation"] and outputs["cost_usd"] > 0.5, outputs["conversation"]
thresholds:
  refine_transcript: {min_pass_rate: 1.0}
  review_stdout: {min_pass_rate: 1.0}
  refine_turns: {min_mean: 2}
"""


def stream(text: str, cost: float, turns: int) -> str:
    """A Claude Code stream-json transcript saying `text` (what a step's stdout.log holds)."""
    lines = [
        {"type": "system", "subtype": "init", "model": "claude-x"},
        {"type": "assistant", "message": {"content": [{"type": "text", "text": text}]}},
        {"type": "result", "total_cost_usd": cost, "num_turns": turns},
    ]
    return "".join(json.dumps(line) + "\n" for line in lines)


def metrics(exit_code: int, cost: float, turns: int) -> dict[str, Any]:
    return {"exit_code": exit_code, "duration_s": 3.0, "cost_usd": cost, "num_turns": turns}


def recorded_run(root: Path, *, reached_review: bool = True) -> Path:
    """A project with a harness run of EVAL over two cases: c1 ran both steps cleanly; in c2
    the refine step failed (exit 1, `on_failure: continue`) and review ran, unless not
    `reached_review` (the pipeline stopped after refine)."""
    steps = {
        "c1": {"refine": (0, 0.25, 3, "DRAFT one"), "review": (0, 0.5, 2, "VERDICT one")},
        "c2": {"refine": (1, 0.75, 5, "DRAFT two"), "review": (0, 0.5, 1, "VERDICT two")},
    }
    if not reached_review:
        del steps["c2"]["review"]
    run = root / "runs" / "pipeline" / "run-1"
    files = {"eval.yaml": EVAL}
    per_case = {}
    for case, done in steps.items():
        files[f"dataset/{case}/input.yaml"] = f"id: {case}\n"
        files[f"{run}/cases/{case}/output/strategy.md"] = "the strategy"
        for step, (_code, cost, turns, text) in done.items():
            files[f"{run}/cases/{case}/steps/{step}/stdout.log"] = stream(text, cost, turns)
        last = list(done.values())[-1]
        files[f"{run}/cases/{case}/stdout.log"] = stream(last[3], last[1], last[2])
        per_case[case] = {
            "exit_code": next((d[0] for d in done.values() if d[0]), 0),
            "cost_usd": sum(d[1] for d in done.values()),
            "num_turns": sum(d[2] for d in done.values()),
            "steps": {s: metrics(*d[:3]) for s, d in done.items()},
        }
    files[f"{run}/run_result.json"] = json.dumps({"per_case": per_case})
    write_tree(root, files)
    return run


def rewardkit(project: Path, *args: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("REWARDKIT_")}
    return subprocess.run(
        [sys.executable, "-m", "rewardkit", *map(str, args)],
        capture_output=True,
        text=True,
        check=False,
        cwd=project,
        env=env,
    )


def judged(out: Path) -> dict[str, dict[str, Any]]:
    summary = json.loads((out / "summary.json").read_text())
    return {
        f"{case}.{name}": entry
        for case, result in summary["per_case"].items()
        for name, entry in result["judges"].items()
    }


def test_a_multi_step_run_is_scored_per_step(tmp_path: Path) -> None:
    run = recorded_run(tmp_path)
    done = rewardkit(tmp_path, "eval", "eval.yaml", "--cases", run / "cases", "--out", "out")
    assert done.returncode == 0, done.stdout + done.stderr
    got = {k: (v["status"], v["value"]) for k, v in judged(tmp_path / "out").items()}
    assert got == {
        # each step judge sees its own step's transcript ...
        "c1.refine_transcript": ("scored", True),
        "c2.refine_transcript": ("scored", True),
        # ... its metrics (c2's refine cost 0.75 of its 1.25; c1's 0.25 of 0.75) ...
        "c1.refine_budget": ("scored", True),
        "c2.refine_budget": ("scored", False),
        # ... its `if:` (c2's refine exited 1, its review 0; the case's exit code is 1) ...
        "c1.refine_turns": ("scored", 3),
        "c2.refine_turns": ("skipped", None),
        "c1.review_stdout": ("scored", True),
        "c2.review_stdout": ("scored", True),
        # ... and the case's files (the steps share one workspace)
        "c1.review_sees_files": ("scored", True),
        "c2.review_sees_files": ("scored", True),
        # a judge without `step:` scores the whole case: the final step's transcript
        "c1.whole_case": ("scored", True),
        "c2.whole_case": ("scored", True),
    }
    entries = judged(tmp_path / "out")
    assert entries["c1.refine_turns"]["step"] == "refine"  # per_case shows the step, as the harness
    assert "step" not in entries["c1.whole_case"]
    assert entries["c1.review_sees_files"]["rationale"] == "review"
    assert "DRAFT one" in entries["c1.refine_transcript"]["rationale"]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["judges"]["refine_turns"]["mean"] == 3
    assert summary["judges"]["refine_budget"]["pass_rate"] == 0.5
    assert summary["regressions"] == []
    plan = rewardkit(tmp_path, "check", "eval.yaml").stdout
    assert "step: refine" in plan
    assert "multi-step run: steps " in plan


def test_thresholds_apply_to_step_judges(tmp_path: Path) -> None:
    run = recorded_run(tmp_path)
    text = (tmp_path / "eval.yaml").read_text().replace("{min_mean: 2}", "{min_mean: 4}")
    (tmp_path / "eval.yaml").write_text(text)
    done = rewardkit(tmp_path, "eval", "eval.yaml", "--cases", run, "--out", "out")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[refine_turns] mean: >= 4.0 -> 3.0" in done.stdout
    (regression,) = json.loads((tmp_path / "out" / "summary.json").read_text())["regressions"]
    assert regression["judge"] == "refine_turns"


def test_a_step_the_run_did_not_reach_is_an_error(tmp_path: Path) -> None:
    # The harness scores the whole case instead (score.py `_step_scoped_record` falls back),
    # which would judge the review step on refine's transcript: here it is an error.
    run = recorded_run(tmp_path, reached_review=False)
    done = rewardkit(tmp_path, "eval", "eval.yaml", "--cases", run / "cases", "--out", "out")
    assert done.returncode == 3, done.stdout + done.stderr
    entries = judged(tmp_path / "out")
    for name in ("review_stdout", "review_sees_files"):
        assert entries[f"c2.{name}"]["status"] == "error"
        assert entries[f"c2.{name}"]["error"] == (
            f"step 'review' has no record in this case: {run}/cases/c2/steps/review/ does "
            f"not exist (the run stopped before that step, or is not a multi-step run)"
        )
        assert entries[f"c1.{name}"]["status"] == "scored"
    assert entries["c2.refine_transcript"]["value"] is True
    assert entries["c2.whole_case"]["value"] is False  # the final step was refine


def test_a_step_no_pipeline_declares_is_a_load_error(tmp_path: Path) -> None:
    run = recorded_run(tmp_path)
    text = (tmp_path / "eval.yaml").read_text().replace("step: review", "step: reveiw", 1)
    (tmp_path / "eval.yaml").write_text(text)
    done = rewardkit(tmp_path, "eval", "eval.yaml", "--cases", run / "cases", "--out", "out")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "rewardkit eval: error: eval.yaml: judges[3] 'review_stdout' (line 25).step: 'step: reveiw' "
        "matches no execution.steps id (the steps: refine, review). Did you mean 'review'?"
    ]
    assert not (tmp_path / "out" / "summary.json").exists()


# --- the step record ----------------------------------------------------------------------


def layout_of(project: Path) -> Layout:
    suite = load_suite(project / "eval.yaml")
    return Layout(dataset=project / "dataset", outputs=("output",), steps=suite.steps)


def test_the_step_record_replaces_the_run_data_only(tmp_path: Path) -> None:
    run = recorded_run(tmp_path)
    layout = replace(layout_of(tmp_path), run=run)
    record = case_record(run / "cases" / "c2", layout=layout)
    assert sorted(record["steps"]) == ["refine", "review"]
    refine = step_record(record, "refine")
    assert refine is not None
    assert refine["exit_code"] == 1
    assert record["exit_code"] == 1
    assert (refine["cost_usd"], record["cost_usd"]) == (0.75, 1.25)
    assert refine["conversation"] == "DRAFT two"
    assert [e["type"] for e in refine["events"]] == ["system", "assistant", "result"]
    assert refine["stderr"] is None
    for shared in ("files", "inputs", "annotations", "case_id", "steps", "output_content"):
        assert refine[shared] == record[shared]
    assert step_record(record, "deploy") is None


def test_only_declared_steps_are_read(tmp_path: Path) -> None:
    run = recorded_run(tmp_path)
    write_tree(run / "cases" / "c1", {"steps/extra/stdout.log": "not a declared step"})
    record = case_record(run / "cases" / "c1", layout=layout_of(tmp_path))
    assert sorted(record["steps"]) == ["refine", "review"]


def test_merged_cases_take_step_metrics_from_their_own_run_result(tmp_path: Path) -> None:
    # In the merged layout a case's run_result.json is the one the executor writes into the
    # case directory (execute.py: `case_result["steps"] = step_metrics`).
    case = write_tree(
        tmp_path / "cases" / "c1",
        {
            "run_result.json": json.dumps({"cost_usd": 2.0, "steps": {"a": metrics(0, 1.5, 4)}}),
            "steps/a/stdout.log": "plain text, no stream-json",
        },
    )
    record = case_record(case, layout=Layout(steps=("a", "b")))
    step = step_record(record, "a")
    assert step is not None
    assert (step["cost_usd"], step["num_turns"], record["cost_usd"]) == (1.5, 4, 2.0)
    assert step["conversation"] == "plain text, no stream-json"  # no events: the raw log
    assert step_record(record, "b") is None


def test_a_step_directory_leading_out_of_the_case_fails_the_case(tmp_path: Path) -> None:
    run = recorded_run(tmp_path)
    outside = write_tree(tmp_path / "elsewhere", {"stdout.log": "secret"})
    review = run / "cases" / "c1" / "steps" / "review"
    for child in review.iterdir():
        child.unlink()
    review.rmdir()
    review.symlink_to(outside, target_is_directory=True)
    done = rewardkit(tmp_path, "eval", "eval.yaml", "--cases", run / "cases", "--out", "out")
    assert done.returncode == 1  # the thresholds miss c1 (a regression wins over an error)
    entries = judged(tmp_path / "out")
    assert "secret" not in json.dumps(entries)
    error = entries["c1.whole_case"]["error"]
    assert error.startswith(f"case could not be read: {review}: leads outside")
    assert entries["c2.whole_case"]["status"] == "scored"


def test_traces_left_out_are_left_out_of_the_steps_too(tmp_path: Path) -> None:
    run = recorded_run(tmp_path)
    layout = replace(layout_of(tmp_path), run=run, traces=frozenset({"stdout"}))
    record = case_record(run / "cases" / "c1", layout=layout)
    step = step_record(record, "refine")
    assert step is not None
    assert step["events"] == []
    assert "cost_usd" not in step
    assert "exit_code" not in step
    assert step["stdout"] == stream("DRAFT one", 0.25, 3)
