"""A `@reward_function` is a judge like any other: in eval.yaml and in a tests dir."""

from __future__ import annotations

import json
from pathlib import Path

import rewardkit as rk
from rewardkit._evaluate import score_cases
from rewardkit.outputs.summary import summarize
from rewardkit.sources.eval_yaml import load_suite

JUDGES = """
from rewardkit import EvaluateResult, MetricResult, reward_function


@reward_function
def mentions_answer(messages, ground_truth=None, **kwargs):
    answer = messages[-1]["content"] if isinstance(messages[-1], dict) else messages[-1].content
    hit = str(ground_truth) in answer
    return EvaluateResult(
        score=1.0 if hit else 0.0,
        reason="found" if hit else "missing",
        metrics={"hit": MetricResult(score=float(hit), reason="substring", success=hit)},
    )


@reward_function
async def length_ok(messages, **kwargs):
    return 0.5


@reward_function
def broken(messages, **kwargs):
    raise RuntimeError("reward function crashed")
"""


def make_suite(tmp_path: Path) -> Path:
    (tmp_path / "rfjudges.py").write_text(JUDGES)
    (tmp_path / "eval.yaml").write_text(
        "dataset: {path: cases}\n"
        "judges:\n"
        "  - {name: answer, module: rfjudges, function: mentions_answer}\n"
        "  - {name: length, module: rfjudges, function: length_ok}\n"
        "  - {name: broken, module: rfjudges, function: broken}\n"
    )
    conversation = [
        {"role": "user", "content": "What is 6 x 7?"},
        {"role": "assistant", "content": "It is 42."},
    ]
    case = tmp_path / "cases" / "c1"
    case.mkdir(parents=True)
    (case / "conversation.json").write_text(json.dumps(conversation))
    (case / "annotations.yaml").write_text("ground_truth: 42\n")
    (tmp_path / "cases" / "c2").mkdir()  # no conversation: the reward functions error
    return tmp_path / "eval.yaml"


def test_reward_functions_in_eval_yaml(tmp_path: Path) -> None:
    suite = load_suite(make_suite(tmp_path))
    first, second = score_cases(suite, sorted((tmp_path / "cases").iterdir()))
    answer, length, broken = first.outcomes
    assert (answer.status, answer.value, answer.reasoning) == ("scored", 1.0, "found")
    assert answer.extra["metrics"] == {
        "hit": {"score": 1.0, "reason": "substring", "success": True}
    }
    assert (length.status, length.value) == ("scored", 0.5)  # async def works
    assert broken.status == "error"
    assert broken.error == "RuntimeError: reward function crashed (rfjudges.py:23)"
    assert all(o.status == "error" for o in second.outcomes)
    assert "needs the case's messages" in str(second.outcomes[0].error)
    summary = summarize(suite, [first, second])
    assert summary["per_case"]["c1"]["judges"]["answer"]["metrics"]["hit"]["success"] is True


def test_a_reward_function_result_is_a_criterion_result(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "checks.py": """
            import json
            from rewardkit import EvaluateResult, criterion, reward_function

            @reward_function
            def polite(messages, **kwargs):
                return EvaluateResult(score=0.75, reason="mostly polite")

            @criterion
            def transcript_is_polite(workspace):
                return polite(messages=json.loads((workspace / "chat.json").read_text()))
            """
        },
        {"chat.json": json.dumps([{"role": "assistant", "content": "Thanks!"}])},
    )
    out = tmp_path / "out" / "reward.json"
    assert rk.run(tests, workspace=ws, output=out) == {"reward": 0.75}
    (detail,) = json.loads(out.with_name("reward-details.json").read_text())["reward"]["criteria"]
    assert detail["reasoning"] == "mostly polite"


def test_a_reward_function_reporting_an_error_is_an_error_outcome(task, tmp_path: Path) -> None:
    tests, ws = task(
        {
            "checks.py": """
            from rewardkit import EvaluateResult, criterion

            @criterion
            def failing(workspace):
                return EvaluateResult(score=0.0, reason="n/a", error="sandbox unavailable")
            """
        }
    )
    out = tmp_path / "out" / "reward.json"
    assert rk.run(tests, workspace=ws, output=out) == {"reward": 0.0}
    (detail,) = json.loads(out.with_name("reward-details.json").read_text())["reward"]["criteria"]
    assert detail["status"] == "error"
    assert "sandbox unavailable" in detail["error"]
