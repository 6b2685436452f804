"""`Scorer.inspect_scorer`: real Inspect AI evals (Python API and `inspect eval` CLI) scored
by rewardkit, offline on `mockllm/model`; the log's scores equal `Scorer.score`'s.

Skipped unless `inspect_ai` is installed (`pip install inspect-ai`). The stand-in model's
outputs carry their token usage, so that mockllm counts no tokens (which would download a
tokenizer).
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk
from rewardkit.batch import Scorer

inspect_ai = pytest.importorskip("inspect_ai", reason="needs inspect-ai: pip install inspect-ai")

from inspect_ai import Task  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import EvalLog, read_eval_log  # noqa: E402
from inspect_ai.model import (  # noqa: E402
    ChatMessageUser,
    ModelName,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.scorer import Score, Target  # noqa: E402
from inspect_ai.solver import TaskState, generate  # noqa: E402

from rewardkit.batch._inspect import inspect_sample  # noqa: E402

pytestmark = [  # inspect_ai 0.3.285's own warnings, not ours to fix:
    pytest.mark.filterwarnings("ignore:The .initial. parameter is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:Unclosed <MemoryObject:ResourceWarning"),
]

QUESTIONS = {"2+2?": ("4", "4"), "3+3?": ("6", "7"), "5+5?": ("10", "boom"), "1+1?": ("2", " 2")}
"""Each prompt's target and the stand-in model's answer: right, wrong, a judge error, close."""


@rk.reward_function
def exact(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> bool:
    return bool(messages[-1]["content"] == ground_truth)


@rk.reward_function
def no_boom(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    if messages[-1]["content"] == "boom":
        raise RuntimeError("kaput")
    return 1.0


def _answer(messages: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
    output = ModelOutput.from_content("mockllm/model", QUESTIONS[messages[-1].text][1])
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def _eval(scorer: Any, tmp_path: Path, fail_on_error: bool = True, **sample: Any) -> EvalLog:
    task = Task(
        dataset=[
            Sample(input=q, target=t, id=i, **sample)
            for i, (q, (t, _)) in enumerate(QUESTIONS.items())
        ],
        solver=generate(),
        scorer=scorer,
    )
    model = get_model("mockllm/model", custom_outputs=_answer)
    logs = str(tmp_path / "logs")
    (log,) = inspect_ai.eval(
        task, model=model, log_dir=logs, display="none", fail_on_error=fail_on_error
    )
    assert log.status == "success", log.error
    return read_eval_log(log.location)  # what was written, not what is in memory


def _expected(scorer: Scorer, **fields: Any) -> list[float | None]:
    samples = [
        {"prompt": q, "completion": a, "ground_truth": t, **fields}
        for q, (t, a) in QUESTIONS.items()
    ]
    return [r.reward for r in scorer.score_batch(samples)]


def _scores(log: EvalLog, name: str) -> dict[Any, Score]:
    """Each sample's score by `name`, by sample id."""
    assert log.samples is not None
    return {sample.id: (sample.scores or {})[name] for sample in log.samples}


def _logged(log: EvalLog, name: str) -> list[float | None]:
    """The logged rewards in sample order, `None` for unscored (NaN)."""
    scores = _scores(log, name)
    values = [scores[i].as_float() for i in sorted(scores)]
    return [None if math.isnan(v) else v for v in values]


def _mean(values: list[float | None]) -> float:
    valid = [v for v in values if v is not None]
    return sum(valid) / len(valid)


def test_reward_functions_in_a_python_api_eval(tmp_path: Path) -> None:
    scorer = rk.load([exact, no_boom])
    log = _eval(scorer.inspect_scorer(), tmp_path)
    expected = _expected(scorer)
    assert expected == [1.0, 0.5, None, 0.5]
    assert _logged(log, "rewardkit") == expected
    assert log.results is not None
    (scores,) = log.results.scores
    assert scores.name == "rewardkit"
    assert scores.metrics["mean"].value == pytest.approx(_mean(expected))
    assert "stderr" in scores.metrics
    assert (scores.scored_samples, scores.unscored_samples) == (3, 1)
    assert log.eval.scorers is not None
    assert log.eval.scorers[0].name == "rewardkit"  # registered as rewardkit/rewardkit
    options = log.eval.scorers[0].options or {}
    assert options["on_error"] == "fail"  # our arguments are in the log
    assert "exact" in options["source"]


def test_explanation_metadata_and_a_failing_judge(tmp_path: Path) -> None:
    log = _eval(rk.load([exact, no_boom]).inspect_scorer(), tmp_path)
    scores = _scores(log, "rewardkit")
    wrong, broken = scores[1], scores[2]
    assert wrong.explanation == "exact=0; no_boom=1"
    assert wrong.metadata == {
        "reward": 0.5,
        "valid": True,
        "error": None,
        "rewards": {"reward": 0.5},
        "judges": {
            "exact": {"value": 0.0, "status": "scored", "reason": None, "error": None},
            "no_boom": {"value": 1.0, "status": "scored", "reason": None, "error": None},
        },
    }
    # Invalid: unscored (NaN, out of the metrics), the error as explanation, never a silent 0.
    assert broken.as_float() != broken.as_float()  # NaN
    assert broken.reason == "scoring_failed"
    assert "kaput" in (broken.explanation or "")
    assert broken.metadata is not None
    assert broken.metadata["valid"] is False
    assert broken.metadata["judges"]["no_boom"]["status"] == "error"
    assert "kaput" in broken.metadata["judges"]["no_boom"]["error"]


def test_invalid_can_score_a_value(tmp_path: Path) -> None:
    log = _eval(rk.load([exact, no_boom]).inspect_scorer(name="arith", invalid=0.0), tmp_path)
    assert _logged(log, "arith") == [1.0, 0.5, 0.0, 0.5]
    assert log.results is not None
    assert log.results.scores[0].metrics["mean"].value == pytest.approx(0.5)
    assert log.results.scores[0].unscored_samples == 0


def test_invalid_raise_is_an_inspect_sample_error(tmp_path: Path) -> None:
    scorer = rk.load([exact, no_boom]).inspect_scorer(invalid="raise")
    log = _eval(scorer, tmp_path, fail_on_error=False)
    assert log.samples is not None
    (failed,) = [s for s in log.samples if s.error is not None]
    assert failed.id == 2
    assert "rewardkit could not score this sample: no_boom raised" in failed.error.message
    assert log.results is not None
    assert log.results.scores[0].metrics["mean"].value == pytest.approx(2 / 3)


def test_invalid_must_be_a_number_none_or_raise() -> None:
    with pytest.raises(rk.ConfigError, match="must be a number, None or 'raise'"):
        rk.load([exact]).inspect_scorer(invalid="zero")


def test_judges_are_values_with_their_own_metrics(tmp_path: Path) -> None:
    log = _eval(rk.load([exact, no_boom]).inspect_scorer(judges=True), tmp_path)
    assert log.results is not None
    means = {s.name: s.metrics["mean"].value for s in log.results.scores}
    # The invalid sample keeps its judges' values; only its reward is unscored.
    assert means == pytest.approx({"reward": 2 / 3, "exact": 0.25, "no_boom": 1.0})
    unscored = {s.name: s.unscored_samples for s in log.results.scores}
    assert unscored == {"reward": 1, "exact": 0, "no_boom": 1}
    assert _scores(log, "rewardkit")[0].value == {"reward": 1.0, "exact": 1.0, "no_boom": 1.0}


def _eval_yaml(tmp_path: Path) -> Path:
    path = tmp_path / "eval.yaml"
    path.write_text(
        textwrap.dedent(
            """\
            name: arith
            judges:
              - name: correct
                check: |
                  got = (outputs.get("stdout") or "")
                  if got == "boom":
                      raise ValueError("kaput")
                  return got.strip() == outputs["annotations"]["ground_truth"], f"answered {got.strip()}"
            """
        )
    )
    return path


def test_eval_yaml_in_a_python_api_eval(tmp_path: Path) -> None:
    scorer = rk.load(_eval_yaml(tmp_path))
    log = _eval(scorer.inspect_scorer(), tmp_path)
    expected = _expected(scorer)
    assert expected == [1.0, 0.0, None, 1.0]
    assert _logged(log, "arith") == expected
    assert log.results is not None
    assert log.results.scores[0].metrics["mean"].value == pytest.approx(2 / 3)
    assert _scores(log, "arith")[0].explanation == "correct=1: answered 4"


def test_tests_dir_scores_the_workspace_in_metadata(tmp_path: Path) -> None:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "checks.py").write_text("import rewardkit as rk\nrk.file_exists('a.txt')\n")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.txt").write_text("x")
    scorer = rk.load(tests)
    log = _eval(
        scorer.inspect_scorer(name="files"), tmp_path, metadata={"workspace": str(workspace)}
    )
    assert _logged(log, "files") == _expected(scorer, workspace=workspace) == [1.0] * 4


CLI_TASK = """\
from pathlib import Path

import rewardkit as rk
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import generate

QUESTIONS = {questions!r}


def answer(messages, tools, tool_choice, config):
    output = ModelOutput.from_content("mockllm/model", QUESTIONS[messages[-1].text][1])
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


@task
def arith():
    return Task(
        dataset=[Sample(input=q, target=t, id=i) for i, (q, (t, _)) in enumerate(QUESTIONS.items())],
        solver=generate(),
        scorer=rk.load(Path(__file__).parent / "eval.yaml").inspect_scorer(),
        model=get_model("mockllm/model", custom_outputs=answer),
    )
"""


def test_inspect_eval_cli(tmp_path: Path) -> None:
    scorer = rk.load(_eval_yaml(tmp_path))
    (tmp_path / "task.py").write_text(CLI_TASK.format(questions=QUESTIONS))
    inspect = Path(sys.executable).parent / "inspect"
    run = subprocess.run(
        [str(inspect), "eval", "task.py", "--model", "mockllm/model", "--log-dir", "logs"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": str(inspect.parent), "HOME": str(tmp_path), "NO_COLOR": "1"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    (path,) = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success"
    assert _logged(log, "arith") == _expected(scorer) == [1.0, 0.0, None, 1.0]
    assert log.results is not None
    assert log.results.scores[0].metrics["mean"].value == pytest.approx(2 / 3)
    assert log.results.scores[0].unscored_samples == 1


def test_task_state_becomes_a_sample() -> None:
    state = TaskState(
        model=ModelName("mockllm/model"),
        sample_id=1,
        epoch=1,
        input=[ChatMessageUser(content="2+2?")],
        messages=[ChatMessageUser(content="2+2?")],
        metadata={"workspace": "/tmp/ws", "source": "gsm8k"},
    )
    state.output = ModelOutput.from_content("mockllm/model", "4")
    sample = inspect_sample(state, Target(["4", "four"]))
    assert sample["prompt"] == [{"role": "user", "content": "2+2?"}]
    assert sample["completion"] == "4"
    assert sample["ground_truth"] == ["4", "four"]
    assert sample["workspace"] == "/tmp/ws"
    assert sample["metadata"] == {"workspace": "/tmp/ws", "source": "gsm8k"}
    assert inspect_sample(state, Target(""))["ground_truth"] is None
    assert inspect_sample(state, Target("4"))["ground_truth"] == "4"


def test_without_inspect_ai_the_error_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "inspect_ai.scorer", None)
    with pytest.raises(ImportError, match="pip install inspect-ai"):
        rk.load([exact]).inspect_scorer()


def test_a_deadline_scores_in_worker_processes(tmp_path: Path) -> None:
    with rk.load([exact, no_boom], deadline=30, max_concurrent=2) as scorer:
        log = _eval(scorer.inspect_scorer(), tmp_path)
        assert _logged(log, "rewardkit") == [1.0, 0.5, None, 0.5]


def test_with_judges_a_sample_without_outcomes_is_unscored_as_a_whole() -> None:
    from rewardkit.batch import SampleResult
    from rewardkit.batch._inspect import _score

    late = SampleResult(reward=None, error="deadline of 1s exceeded")
    for invalid in (None, 0.0):
        score = _score(late, judges=True, invalid=invalid)
        assert math.isnan(score.as_float())
        assert score.explanation == "deadline of 1s exceeded"
    assert _score(late, judges=False, invalid=0.0).value == 0.0
