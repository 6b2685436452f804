"""A `@reward_function` is a judge like any other: in eval.yaml and in a tests dir."""

from __future__ import annotations

import json
from pathlib import Path

import rewardkit as rk
from rewardkit.evalyaml._score import score_cases
from rewardkit.evalyaml._suite import load_suite
from rewardkit.evalyaml._summary import case_entry

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
    assert case_entry(first)["judges"]["answer"]["metrics"]["hit"]["success"] is True


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


EXACT = """
from rewardkit import EvaluateResult, reward_function


@reward_function
def exact(messages, ground_truth=None, **kwargs):
    same = messages[-1]["content"].strip() == str(ground_truth)
    return EvaluateResult(score=1.0 if same else 0.0, reason="exact")


@reward_function
def penalty(messages, **kwargs):
    return EvaluateResult(score=-0.5, reason="below its range")
"""


def test_a_reward_function_judge_is_read_on_its_own_scale(tmp_path: Path) -> None:
    """Without a score_range, a @reward_function's 1.0 is a full score (never read on the
    [1, 5] fallback as 0.0), through `rewardkit score`, `check` and the Python API; a score
    outside [0, 1] is clamped, not an error, since the range was not declared."""
    import subprocess
    import sys

    (tmp_path / "rf.py").write_text(EXACT)
    (tmp_path / "eval.yaml").write_text(
        "judges:\n  - {name: right, module: rf, function: exact}\n"
        "  - {name: low, module: rf, function: penalty}\n"
        "reward: {formula: right}\n"
    )
    rows = [
        {"id": f"s{i}", "messages": [{"role": "assistant", "content": str(i)}],
         "ground_truth": str(i if i < 3 else -1)}
        for i in range(4)
    ]  # fmt: skip
    rollouts = tmp_path / "rollouts.jsonl"
    rollouts.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "results.jsonl"
    command = [sys.executable, "-m", "rewardkit", "score", str(rollouts), "--config",
               str(tmp_path / "eval.yaml"), "--out", str(out), "--no-progress"]  # fmt: skip
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "[1, 5]" not in done.stderr
    results = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert [results[f"s{i}"]["reward"] for i in range(4)] == [1.0, 1.0, 1.0, 0.0]
    check = subprocess.run(
        [sys.executable, "-m", "rewardkit", "check", str(tmp_path / "eval.yaml")],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "numbers normalized from [0, 1] (a @reward_function's score)" in check.stdout
    scorer = rk.load(tmp_path / "eval.yaml")
    (result,) = scorer.score_batch([{k: v for k, v in rows[0].items() if k != "id"}])
    assert result.reward == 1.0
    low = next(o for o in result.outcomes if o.name == "low")
    assert (low.status, low.value) == ("scored", -0.5)
