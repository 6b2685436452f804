"""eval.yaml loading as the harness's documentation specifies, one behaviour per test.

Each case names the harness doc it comes from (under `agent-eval-harness/website/`).
"""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import pytest

from rewardkit.core._errors import ConfigError
from rewardkit.evalyaml._suite import EvalSuite, load_suite
from rewardkit.outputs.plan import describe_suite

LLM = "{name: q, prompt: 'Rate it. {{ conversation }}'"


def load(tmp_path: Path, text: str) -> tuple[EvalSuite, list[str]]:
    path = tmp_path / "eval.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        suite = load_suite(path)
    return suite, [str(w.message) for w in caught]


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    return str(info.value)


@pytest.fixture(autouse=True)
def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The project root is the working directory, as in the harness."""
    monkeypatch.chdir(tmp_path)


# --- judge value types: reference/config/judges.md "Field reference" ---------------------


def test_an_llm_judge_without_feedback_type_or_range_is_numeric_and_warns(tmp_path: Path) -> None:
    # feedback_type: "anything else — including omitting it — selects a numeric score";
    # score_range omitted: "LLM/agent judges are told [1, 5] but nothing is checked".
    suite, caught = load(tmp_path, f"judges:\n  - {LLM}}}\n")
    (judge,) = suite.judges
    assert judge.feedback_type is None
    assert judge.score_range is None
    assert any("[1, 5]" in m and "score_range" in m for m in caught)


@pytest.mark.parametrize(
    ("fields", "warns"),
    [
        ("feedback_type: bool", False),
        ("score_range: [0, 10]", False),
        ("feedback_type: int", True),
        ("feedback_type: float", True),
    ],
)
def test_the_numeric_default_warning_is_silenced_only_by_a_scale(
    tmp_path: Path, fields: str, warns: bool
) -> None:
    _, caught = load(tmp_path, f"judges:\n  - {LLM}, {fields}}}\n")
    assert any("[1, 5]" in m for m in caught) is warns


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        # "`bool` + `score_range`, and `int` + fractional bounds, are rejected at load on any
        # judge type."
        ("feedback_type: bool, score_range: [0, 1]", "has no meaning with 'feedback_type: bool'"),
        ("feedback_type: int, score_range: [0, 2.5]", "use 'feedback_type: float'"),
        ("feedback_type: str", "must be one of bool, int, float"),
    ],
)
def test_ranges_are_checked_against_the_feedback_type(
    tmp_path: Path, fields: str, fragment: str
) -> None:
    for judge in (LLM, "{name: q, check: 'return 1, \"\"'"):
        message = error(tmp_path, f"judges:\n  - {judge}, {fields}}}\n")
        assert fragment in message
        assert "judges[0] 'q'" in message


def test_an_int_judge_with_whole_bounds_loads(tmp_path: Path) -> None:
    suite, _ = load(tmp_path, f"judges:\n  - {LLM}, feedback_type: int, score_range: [0, 2]}}\n")
    assert suite.judges[0].score_range == (0.0, 2.0)


# --- step: reference/config/execution.md (multi-step), config.py validation ---------------


def test_step_without_a_pipeline_is_a_load_error(tmp_path: Path) -> None:
    message = error(tmp_path, f"judges:\n  - {LLM}, step: refine}}\n")
    assert "'step: refine' requires an execution.steps pipeline" in message


def test_step_naming_no_step_suggests_one(tmp_path: Path) -> None:
    text = f"""\
        execution:
          steps: [{{id: draft, prompt: x}}, {{id: refine, prompt: y}}]
        judges:
          - {LLM}, step: refin}}
    """
    assert "Did you mean 'refine'?" in error(tmp_path, text)


def test_a_valid_step_scopes_the_judge_to_that_step(tmp_path: Path) -> None:
    text = f"""\
        execution:
          steps: [{{id: refine, prompt: y}}]
        judges:
          - {LLM}, step: refine}}
    """
    suite, _ = load(tmp_path, text)
    assert suite.judges[0].step == "refine"
    assert suite.steps == ("refine",)


@pytest.mark.parametrize("field", ["effort", "consequence"])
def test_unreleased_judge_fields_get_a_clear_message(tmp_path: Path, field: str) -> None:
    message = error(tmp_path, f"judges:\n  - {LLM}, {field}: high}}\n")
    assert f"judges[0] 'q' (line 2).{field}: is not part of the released eval.yaml" in message


# --- model: reference/config/models.md, reference/config/judges.md "Model resolution" -----


def test_models_judge_is_the_default_judge_model(tmp_path: Path) -> None:
    text = f"""\
        models: {{judge: claude-opus-4-6, skill: sonnet}}
        judges:
          - {LLM}, score_range: [1, 5]}}
          - {{name: own, prompt: x, model: gpt-5, feedback_type: bool}}
    """
    suite, _ = load(tmp_path, text)
    assert suite.judge_model == "claude-opus-4-6"
    assert [j.config["model"] for j in suite.judges] == ["claude-opus-4-6", "gpt-5"]


def test_eval_judge_model_comes_after_the_eval_yaml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rewardkit.evalyaml._llm_judge import judge_model

    monkeypatch.delenv("REWARDKIT_JUDGE", raising=False)
    monkeypatch.setenv("EVAL_JUDGE_MODEL", "env-model")
    suite, _ = load(tmp_path, f"judges:\n  - {LLM}, score_range: [1, 5]}}\n")
    assert judge_model(suite.judges[0]) == "env-model"
    suite, _ = load(tmp_path, f"models: {{judge: m}}\njudges:\n  - {LLM}, score_range: [1, 5]}}\n")
    assert judge_model(suite.judges[0]) == "m"


def test_models_must_be_a_mapping(tmp_path: Path) -> None:
    assert "models: must be a mapping" in error(tmp_path, "models: opus\n")


# --- paths: reference/config/judges.md (`prompt_file` "relative to project root") ---------


def test_prompt_file_and_context_resolve_from_the_project_root(tmp_path: Path) -> None:
    (tmp_path / "eval" / "prompts").mkdir(parents=True)
    (tmp_path / "eval" / "prompts" / "q.md").write_text("Judge {{ conversation }}")
    (tmp_path / "eval" / "prompts" / "guide.md").write_text("Be strict.")
    (tmp_path / "eval" / "demo").mkdir()
    text = """\
        judges:
          - name: q
            prompt_file: eval/prompts/q.md
            context: [eval/prompts/guide.md, eval/prompts/missing.md]
            feedback_type: bool
    """
    path = tmp_path / "eval" / "demo" / "eval.yaml"
    path.write_text(textwrap.dedent(text))
    with pytest.warns(UserWarning, match="missing.md' not found; skipped"):
        suite = load_suite(path)
    config = suite.judges[0].config
    assert config["prompt_file"] == str(tmp_path / "eval" / "prompts" / "q.md")
    # "Files appended to the prompt as `## Context: <name>` sections."
    assert config["context"] == "## Context: guide.md\n\nBe strict."


def test_a_prompt_file_beside_the_eval_yaml_still_loads(tmp_path: Path) -> None:
    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "p.md").write_text("x")
    path = tmp_path / "suite" / "eval.yaml"
    path.write_text("judges:\n  - {name: q, prompt_file: p.md, feedback_type: bool}\n")
    assert load_suite(path).judges[0].config["prompt_file"] == str(tmp_path / "suite" / "p.md")


def test_a_missing_prompt_file_names_both_places_looked(tmp_path: Path) -> None:
    message = error(tmp_path, "judges:\n  - {name: q, prompt_file: nope.md}\n")
    assert "prompt_file: file not found (got 'nope.md'; looked in" in message


def test_module_imports_from_the_project_root(tmp_path: Path) -> None:
    (tmp_path / "judges_pkg").mkdir()
    (tmp_path / "judges_pkg" / "__init__.py").write_text("")
    (tmp_path / "judges_pkg" / "rm_parity.py").write_text(
        "def score(outputs, **kw):\n    return 0.5, 'half'\n"
    )
    (tmp_path / "evals").mkdir()
    path = tmp_path / "evals" / "eval.yaml"
    path.write_text(
        "judges:\n  - {name: rm, module: judges_pkg.rm_parity, function: score, "
        "score_range: [0, 1]}\n"
    )
    assert load_suite(path).judges[0].fn is not None


# --- agent judges: reference/config/judges.md "The agent: block", config/runner.md --------


def test_agent_runner_is_a_mapping_like_the_top_level_runner(tmp_path: Path) -> None:
    text = f"judges:\n  - {LLM}, feedback_type: bool, agent: {{runner: {{type: codex, effort: high}}}}}}\n"
    suite, _ = load(tmp_path, text)
    agent = suite.judges[0].config["agent"]
    assert agent["runner"] == "codex"
    assert agent["effort"] == "high"


@pytest.mark.parametrize(
    ("runner", "fragment"),
    [
        ("{type: claude-code, workspace_mode: repo}", "drop workspace_mode"),
        ("{type: cli}", "agent.runner.command: is required for a cli runner"),
        ("{type: codex, efort: high}", "unknown key 'efort'"),
    ],
)
def test_agent_runner_problems(tmp_path: Path, runner: str, fragment: str) -> None:
    text = f"judges:\n  - {LLM}, feedback_type: bool, agent: {{runner: {runner}}}}}\n"
    assert fragment in error(tmp_path, text)


# --- the pairwise judge: reference/config/judges.md "The reserved pairwise judge" ---------


def test_the_pairwise_judge_is_kept_apart(tmp_path: Path) -> None:
    text = f"""\
        judges:
          - {LLM}, score_range: [1, 5]}}
          - {{name: pairwise, prompt: "Which is better, A or B?"}}
        thresholds:
          pairwise: {{min_win_rate: 0.6}}
    """
    suite, _ = load(tmp_path, text)
    assert [j.name for j in suite.judges] == ["q"]
    assert suite.pairwise is not None
    assert suite.pairwise.config["prompt"].startswith("Which")
    assert suite.thresholds == {"pairwise": {"min_win_rate": 0.6}}
    assert "pairwise: compares with --baseline RUN" in describe_suite(suite)


def test_a_pairwise_judge_needs_a_prompt(tmp_path: Path) -> None:
    text = "judges:\n  - {name: pairwise, check: 'return True, \"\"'}\n"
    assert "give it a prompt" in error(tmp_path, text)


# --- thresholds: reference/config/thresholds.md -------------------------------------------


def test_min_mean_on_a_boolean_judge_is_accepted(tmp_path: Path) -> None:
    # "booleans ... `min_pass_rate` (or `min_mean`)"
    text = (
        "judges:\n  - {name: ok, check: 'return True, \"\"'}\nthresholds:\n  ok: {min_mean: 1.0}\n"
    )
    suite, _ = load(tmp_path, text)
    assert suite.thresholds == {"ok": {"min_mean": 1.0}}


def test_a_threshold_on_no_judge_warns_that_it_will_regress(tmp_path: Path) -> None:
    # "A `None` metric is flagged as a regression — never skipped"
    text = (
        "judges:\n  - {name: ok, check: 'return True, \"\"'}\nthresholds:\n  okk: {min_mean: 1}\n"
    )
    suite, caught = load(tmp_path, text)
    assert any("thresholds.okk names no judge" in m and "Did you mean 'ok'?" in m for m in caught)
    assert suite.thresholds == {"okk": {"min_mean": 1.0}}


def test_an_unsupported_limit_names_the_four_keys(tmp_path: Path) -> None:
    text = (
        "judges:\n  - {name: ok, check: 'return True, \"\"'}\nthresholds:\n  ok: {min_alpha: 0.7}\n"
    )
    message = error(tmp_path, text)
    assert "unknown limit 'min_alpha'; rewardkit checks min_mean, min_pass_rate" in message


# --- top-level keys: reference/eval-yaml.md "Top-level keys" ------------------------------


def test_keys_for_parts_rewardkit_does_not_run_are_accepted_and_listed(tmp_path: Path) -> None:
    text = """\
        name: demo
        skill: my-skill
        execution: {mode: case, timeout: 600}
        runner: {type: claude-code, effort: high}
        mlflow: {experiment: demo}
        hooks: {before_all: [{command: make}]}
        traces: {events: true}
        matrix: {factors: {model: [a, b]}}
        judges:
          - {name: ok, check: 'return True, ""'}
    """
    suite, caught = load(tmp_path, text)
    assert not caught
    assert suite.not_used == ("execution", "runner", "mlflow", "hooks", "skill", "matrix")
    assert "not used by rewardkit (agent execution etc.): execution, runner" in describe_suite(
        suite
    )


def test_a_truly_unknown_key_warns_with_a_suggestion(tmp_path: Path) -> None:
    _, caught = load(tmp_path, "judge: []\n")
    assert any("unknown top-level key 'judge'" in m and "'judges'" in m for m in caught)


def test_outputs_paths_stay_inside_the_case(tmp_path: Path) -> None:
    suite, _ = load(tmp_path, "outputs:\n  - {path: report.md}\n  - {tool: Write}\n")
    assert suite.outputs == ({"path": "report.md"}, {"tool": "Write"})
    assert "outputs[0].path: must be a relative path" in error(
        tmp_path, "outputs: [{path: ../x}]\n"
    )


# --- reward: the seed ("Load-time vs run-time errors") ------------------------------------


def test_an_undeclared_name_in_a_formula_loads_with_a_warning(tmp_path: Path) -> None:
    text = "judges:\n  - {name: quality, check: 'return 3, \"\"'}\nreward: {formula: 'qualty'}\n"
    suite, caught = load(tmp_path, text)
    assert suite.reward is not None
    assert any("'qualty', which is not a declared judge" in m for m in caught)


# --- traces: reference/config/traces.md, reference/runs-directory.md ----------------------


def test_traces_gate_what_the_record_loads(tmp_path: Path) -> None:
    from rewardkit.evalyaml._cases import Layout, case_record

    suite, caught = load(tmp_path, "traces: {stdout: false, metrics: false}\n")
    assert suite.traces == {"stderr", "events"}
    assert not caught
    assert "traces" not in suite.not_used
    case = tmp_path / "c1"
    case.mkdir()
    (case / "stdout.log").write_text("the agent said things")
    (case / "stderr.log").write_text("warning")
    (case / "run_result.json").write_text('{"cost_usd": 0.5, "num_turns": 3}')
    (case / "events.json").write_text("[]")
    record = case_record(case, layout=Layout(traces=suite.traces))
    assert record["stdout"] is None
    assert record["stderr"] == "warning"
    assert "cost_usd" not in record
    assert "num_turns" not in record
    full = case_record(case)
    assert full["stdout"] == "the agent said things"
    assert full["cost_usd"] == 0.5


@pytest.mark.parametrize(
    ("traces", "fragment"),
    [("{stdot: false}", "traces.stdot: unknown key"), ("{events: 0}", "must be true or false")],
)
def test_bad_traces(tmp_path: Path, traces: str, fragment: str) -> None:
    assert fragment in error(tmp_path, f"traces: {traces}\n")
