"""eval.yaml `agent:` judges against the fake `claude` / `codex` on PATH."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from rewardkit.core._errors import ConfigError
from rewardkit.core._outcome import Outcome
from rewardkit.evalyaml._score import score_cases, score_records
from rewardkit.evalyaml._suite import load_suite

from .agent_fakes import FakeAgents


def suite(tmp_path: Path, judges: str, cases: int = 1) -> Path:
    (tmp_path / "eval.yaml").write_text(
        "dataset: {path: cases}\njudges:\n" + textwrap.indent(textwrap.dedent(judges), "  ")
    )
    for i in range(cases):
        case = tmp_path / "cases" / f"c{i}"
        case.mkdir(parents=True)
        (case / "input.yaml").write_text("question: What is 2 + 2?\n")
        (case / "answer.txt").write_text("4\n")
    return tmp_path / "eval.yaml"


def run(path: Path, max_concurrent: int = 8) -> list[Outcome]:
    cases = sorted((path.parent / "cases").iterdir())
    results = score_cases(load_suite(path), cases, max_concurrent=max_concurrent)
    return [o for r in results for o in r.outcomes]


def test_a_pass_fail_agent_judge_runs_claude_in_a_staged_copy(
    agents: FakeAgents, tmp_path: Path
) -> None:
    path = suite(
        tmp_path,
        '- {name: right, llm_rubric: "Is {{ input.question }} answered?", feedback_type: bool, agent: {}}',
    )
    (outcome,) = run(path)
    assert (outcome.status, outcome.raw, outcome.value) == ("scored", True, 1.0)
    assert outcome.reasoning == "explored the case"
    assert outcome.model == "claude-code"
    (call,) = agents.runs
    assert Path(call["cwd"]).resolve() != (tmp_path / "cases" / "c0").resolve()
    assert "answer.txt" in call["listing"]
    assert "input.yaml" not in call["listing"]  # the given half is never staged as the work
    assert "Is What is 2 + 2? answered?" in call["prompt"]
    assert "output/score.json" in call["prompt"]
    argv = call["argv"]
    assert argv[argv.index("--allowedTools") + 1] == "Read Grep Glob"
    assert not (tmp_path / "cases" / "c0" / "output").exists()  # the case is never changed
    assert all(Path(p).is_file() for p in outcome.extra["judge_logs"])


def test_score_json_wins_over_the_final_answer_and_tools_model_pass_through(
    agents: FakeAgents, tmp_path: Path
) -> None:
    agents.script({"value": 2, "score_file": {"score": 5, "rationale": "from the file"}})
    path = suite(
        tmp_path,
        """
        - name: quality
          prompt: Rate the answer.
          score_range: [1, 5]
          model: anthropic/claude-sonnet-4-5
          agent: {runner: {type: claude-code, effort: high}, allowed_tools: [Read, Bash]}
        """,
    )
    (outcome,) = run(path)
    assert (outcome.status, outcome.value, outcome.reasoning) == ("scored", 5.0, "from the file")
    argv = agents.runs[0]["argv"]
    assert argv[argv.index("--effort") + 1] == "high"  # runner.effort reaches the CLI
    assert argv[argv.index("--allowedTools") + 1] == "Read Bash"
    assert argv[argv.index("--model") + 1] == "claude-sonnet-4-5"
    assert "scale from 1 to 5" in agents.runs[0]["prompt"]


def test_an_off_scale_score_is_retried_then_an_error_never_clamped(
    agents: FakeAgents, tmp_path: Path
) -> None:
    agents.script({"value": 9})
    path = suite(tmp_path, "- {name: q, prompt: Rate it., score_range: [1, 5], agent: {}}")
    (outcome,) = run(path)
    assert outcome.status == "error"
    assert len(agents.runs) == 3
    assert "failed after 3 attempts" in str(outcome.error)
    assert "outside [1, 5]" in str(outcome.error)


def test_a_failing_cli_is_retried(agents: FakeAgents, tmp_path: Path) -> None:
    agents.script({"exit": 3, "stderr": "boom"}, {})
    (outcome,) = run(
        suite(tmp_path, "- {name: q, prompt: 'Is it right?', feedback_type: bool, agent: {}}")
    )
    assert (outcome.status, outcome.raw) == ("scored", True)
    assert len(agents.runs) == 2


def test_a_timeout_is_a_timeout_outcome_and_not_retried(agents: FakeAgents, tmp_path: Path) -> None:
    agents.script({"hang": True})
    path = suite(
        tmp_path, "- {name: q, prompt: 'Is it right?', feedback_type: bool, agent: {timeout: 1}}"
    )
    (outcome,) = run(path)
    assert outcome.status == "timeout"
    assert "timed out after 1s" in str(outcome.error)
    assert len(agents.runs) == 1


def test_codex_runner_and_samples_take_the_lower_median(
    agents: FakeAgents, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789")
    agents.script({"value": 2}, {"value": 5}, {"value": 3})
    path = suite(
        tmp_path,
        """
        - {name: q, prompt: Rate it., feedback_type: int, score_range: [1, 5],
           samples: 3, agent: {runner: codex}}
        """,
    )
    (outcome,) = run(path)
    assert (outcome.status, outcome.value, outcome.model) == ("scored", 3.0, "codex")
    assert len(agents.runs) == 3
    assert all(r["env"]["CODEX_API_KEY"] == "sk-test-0123456789" for r in agents.runs)


def test_codex_without_auth_is_an_error_outcome(
    agents: FakeAgents, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = suite(
        tmp_path, "- {name: q, prompt: 'Is it right?', feedback_type: bool, agent: {runner: codex}}"
    )
    (outcome,) = run(path)
    assert outcome.status == "error"
    assert "OPENAI_API_KEY" in str(outcome.error)
    assert agents.runs == []


def test_a_missing_cli_says_how_to_install_it(
    agents: FakeAgents, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    (outcome,) = run(
        suite(tmp_path, "- {name: q, prompt: 'Is it right?', feedback_type: bool, agent: {}}")
    )
    assert outcome.status == "error"
    assert "`claude` CLI was not found on PATH" in str(outcome.error)
    assert "npm install -g @anthropic-ai/claude-code" in str(outcome.error)


def test_if_false_skips_without_a_call(agents: FakeAgents, tmp_path: Path) -> None:
    path = suite(
        tmp_path, "- {name: q, prompt: 'Is it right?', feedback_type: bool, if: 'False', agent: {}}"
    )
    (outcome,) = run(path)
    assert outcome.status == "skipped"
    assert agents.runs == []


def test_a_record_without_a_case_directory_stages_its_files(
    agents: FakeAgents, tmp_path: Path
) -> None:
    path = suite(
        tmp_path, "- {name: q, prompt: 'Is it right?', feedback_type: bool, agent: {}}", cases=0
    )
    record: dict[str, Any] = {
        "case_id": "s",
        "files": {"src/app.py": "print(1)\n", "../escape.txt": "no"},
    }
    (result,) = score_records(load_suite(path), [("s", record)])
    assert result.outcomes[0].status == "scored"
    assert agents.runs[0]["listing"] == ["src/app.py"]
    assert not (tmp_path / "escape.txt").exists()


def test_agent_calls_are_bounded_by_max_concurrent(agents: FakeAgents, tmp_path: Path) -> None:
    agents.script({"sleep": 0.4})
    path = suite(
        tmp_path, "- {name: q, prompt: 'Is it right?', feedback_type: bool, agent: {}}", cases=4
    )
    outcomes = run(path, max_concurrent=2)
    assert [o.status for o in outcomes] == ["scored"] * 4
    assert _peak(agents.root / "spans.jsonl") == 2


@pytest.mark.parametrize(
    ("agent", "message"),
    [
        ("{runner: claud-code}", "Did you mean 'claude-code'?"),
        ("{timeout: -1}", "agent.timeout: must be a positive number"),
        ("{allowed_tools: Read}", "must be a list of tool names"),
        ("{budget: 3}", "unknown key 'budget'"),
    ],
)
def test_agent_fields_are_checked_at_load(tmp_path: Path, agent: str, message: str) -> None:
    path = suite(
        tmp_path, f"- {{name: q, prompt: 'Is it right?', feedback_type: bool, agent: {agent}}}"
    )
    with pytest.raises((ConfigError, ExceptionGroup)) as info:
        load_suite(path)
    assert message in _text(info.value)


def _peak(spans_file: Path) -> int:
    spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    events = sorted([(s["start"], 1) for s in spans] + [(s["end"], -1) for s in spans])
    running = peak = 0
    for _, delta in events:
        running += delta
        peak = max(peak, running)
    return peak


def _text(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "\n".join(_text(e) for e in exc.exceptions)
    return str(exc)


def test_agent_context_is_staged_under_dot_context(
    agents: FakeAgents, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # reference/config/judges.md, "The agent: block": `context` stages dirs/files read-only
    # under ./.context/<name> for the agent to consult.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs" / "api").mkdir(parents=True)
    (tmp_path / "docs" / "api" / "ref.md").write_text("the API")
    (tmp_path / "guide.md").write_text("the guide")
    path = suite(
        tmp_path,
        "- {name: q, prompt: 'Right?', feedback_type: bool, "
        "agent: {context: [docs/api, guide.md]}}",
    )
    (outcome,) = run(path)
    assert outcome.status == "scored"
    (call,) = agents.runs
    assert {".context/api/ref.md", ".context/guide.md"} <= set(call["listing"])
    assert "Reference material is under ./.context/ (api, guide.md)" in call["prompt"]


def test_agent_context_that_does_not_exist_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = suite(tmp_path, "- {name: q, prompt: x, feedback_type: bool, agent: {context: [gone]}}")
    with pytest.warns(UserWarning, match=r"agent\.context: 'gone' not in .*; skipped"):
        suite_ = load_suite(path)
    assert suite_.judges[0].config["agent"]["context"] == []


def test_a_reference_answer_beside_the_case_is_not_staged(
    agents: FakeAgents, tmp_path: Path
) -> None:
    path = suite(tmp_path, "- {name: q, prompt: 'Right?', feedback_type: bool, agent: {}}")
    case = tmp_path / "cases" / "c0"
    (case / "annotations.yaml").write_text("expected: reference.txt\n")
    (case / "reference.txt").write_text("the answer key")
    (outcome,) = run(path)
    assert outcome.status == "scored"
    listing = set(agents.runs[0]["listing"])
    assert "answer.txt" in listing
    assert not listing & {"annotations.yaml", "reference.txt", "input.yaml"}
