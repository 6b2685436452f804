"""No silent zeros in RL scoring: error policies, abstaining judges, ground truth for builtins,
the traps `check` and `load` warn about, and scoring in processes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk
from rewardkit.cli import main


@rk.reward_function
def exact(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> float:
    if ground_truth == "raise":
        raise ValueError("bad rollout")
    return 1.0 if messages[-1]["content"] == ground_truth else 0.0


@rk.reward_function
def half(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    return 0.5


def _eval(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "eval.yaml"
    path.write_text("name: rl\n" + textwrap.dedent(body))
    return path


@pytest.mark.parametrize(("on_error", "reward"), [("fail", None), ("zero", 0.25), ("omit", 0.5)])
def test_on_error_policies(on_error: str, reward: float | None) -> None:
    scorer = rk.load({"exact": exact, "half": half}, on_error=on_error)  # type: ignore[arg-type]
    result = scorer.score({"completion": "4", "ground_truth": "raise"})
    assert result.reward == reward
    assert result.outcomes[0].status == "error"  # kept in every policy
    assert (result.error is None) == (reward is not None)


def test_on_error_is_checked_at_load() -> None:
    with pytest.raises(rk.ConfigError, match="on_error must be one of fail, zero, omit"):
        rk.load([exact], on_error="ignore")  # type: ignore[arg-type]


def test_an_abstaining_judge_read_by_the_formula_makes_the_sample_invalid(
    tmp_path: Path,
) -> None:
    path = _eval(
        tmp_path,
        """
        judges:
          - name: ok
            check: "return True"
          - name: long_enough
            if: "annotations.get('long')"
            check: "return 1.0"
            score_range: [0, 1]
        reward:
          formula: 0.5 * ok + 0.5 * long_enough
        """,
    )
    with pytest.warns(UserWarning, match=r"reads 'long_enough', which abstains"):
        scorer = rk.load(path)
    assert scorer.score({"completion": "x", "ground_truth": {"long": True}}).reward == 1.0
    result = scorer.score({"completion": "x", "ground_truth": {"long": False}})
    assert result.reward is None
    assert "long_enough" in str(result.error)
    assert "Skipped" in str(result.error)


@pytest.mark.parametrize(
    ("reward", "expected"),
    [
        ("{formula: weighted, weights: {ok: 1, maybe: 1}}", 1.0),  # left out of both sums
        ("{formula: weighted, weights: {maybe: 1}}", None),  # nothing left to weigh
        ("{judge: maybe}", None),
        (None, 1.0),  # the default mean leaves it out
    ],
)
def test_the_abstention_rule_in_each_mode(
    tmp_path: Path, reward: str | None, expected: float | None
) -> None:
    block = f"reward: {reward}\n" if reward else ""
    path = _eval(
        tmp_path,
        """
        judges:
          - name: ok
            check: "return True"
          - name: maybe
            if: "False"
            check: "return 0.0"
            score_range: [0, 1]
        """
        + block,
    )
    trap = pytest.warns(UserWarning, match="reward.judge reads 'maybe'")
    with trap if reward == "{judge: maybe}" else nullcontext():
        scorer = rk.load(path)
    assert scorer.score({"completion": "x"}).reward == expected


def test_answer_matches_compares_with_the_samples_ground_truth(tmp_path: Path) -> None:
    path = _eval(
        tmp_path,
        """
        judges:
          - name: correct
            builtin: answer_matches
        """,
    )
    scorer = rk.load(path)
    assert scorer.score({"completion": "4", "ground_truth": "4"}).reward == 1.0
    assert scorer.score({"completion": "5", "ground_truth": "4"}).reward == 0.0
    missing = scorer.score({"completion": "4"})
    assert missing.reward == 0.0
    assert "'expected' (nor 'ground_truth') is not set" in str(missing.outcomes[0].reasoning)


def test_a_code_judge_below_the_default_range_warns_at_first_run(tmp_path: Path) -> None:
    path = _eval(
        tmp_path,
        """
        judges:
          - name: quality
            check: "return 0.8"
        """,
    )
    scorer = rk.load(path)
    with pytest.warns(RuntimeWarning, match=r"'quality' returned 0.8 and has no score_range"):
        assert scorer.score({"completion": "x"}).reward == 0.0
    assert scorer.score({"completion": "x"}).reward == 0.0  # once per judge


def test_check_prints_traps_as_warnings_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _eval(
        tmp_path,
        """
        judges:
          - name: quality
            check: "return 3"
          - name: format_ok
            builtin: stdout_contains
            arguments: {text: "<answer>"}
        reward:
          formula: 0.9 * quality + 0.1 * format_ok
        """,
    )
    assert main(["check", str(path)]) == 0
    err = capsys.readouterr().err
    assert "rewardkit: warning:" in err
    assert "'format_ok' (pass/fail) returning False makes the reward 0.0" in err
    assert "only 0.1 of the reward" in err


def test_a_gate_on_a_heavy_boolean_is_no_trap(tmp_path: Path) -> None:
    path = _eval(
        tmp_path,
        """
        judges:
          - name: quality
            check: "return 3"
          - name: correct
            builtin: stdout_contains
            arguments: {text: "4"}
        reward:
          formula: 0.3 * quality + 0.7 * correct
        """,
    )
    rk.load(path)  # no warning (warnings are errors here)


def test_score_batch_in_processes_matches_threads() -> None:
    samples = [{"completion": str(i % 3), "ground_truth": "1"} for i in range(30)]
    samples[4] = {"completion": "1", "ground_truth": "raise"}
    with rk.load({"exact": exact, "half": half}) as scorer:
        on_threads = scorer.score_batch(samples)
        in_processes = scorer.score_batch(samples, processes=2)
        again = scorer.score_batch(samples[:3], processes=2)  # the same processes
    assert [r.reward for r in in_processes] == [r.reward for r in on_threads]
    assert in_processes[4].reward is None
    assert "bad rollout" in str(in_processes[4].error)
    assert [r.reward for r in again] == [r.reward for r in on_threads[:3]]


def test_score_batch_processes_must_be_positive() -> None:
    with pytest.raises(rk.ConfigError, match="processes must be at least 1"):
        rk.load([exact]).score_batch([], processes=0)


def _lines(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_score_exit_1_on_invalid_then_retry_invalid_rescores_them(tmp_path: Path) -> None:
    config = _eval(
        tmp_path,
        """
        judges:
          - name: correct
            builtin: answer_matches
        """,
    )
    rollouts = _lines(
        tmp_path / "r.jsonl",
        [
            {"id": "a", "group": "p1", "completion": "4", "ground_truth": "4"},
            {"id": "b", "group": "p1", "completion": "4", "oops": 1},
        ],
    )
    out = tmp_path / "out.jsonl"
    argv = ["score", str(rollouts), "--config", str(config), "--out", str(out), "--no-progress"]
    assert main(argv) == 1  # one rollout has no valid reward
    rows = {r["id"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert rows["a"]["group"] == "p1"
    assert rows["a"]["valid"]
    assert not rows["b"]["valid"]
    assert main(argv) == 1  # resumed: the invalid result is still there
    _lines(
        rollouts,
        [
            {"id": "a", "group": "p1", "completion": "4", "ground_truth": "4"},
            {"id": "b", "group": "p1", "completion": "4", "ground_truth": "4"},
        ],
    )
    assert main(argv) == 1  # without --retry-invalid, nothing happens
    assert main([*argv, "--retry-invalid"]) == 0
    rows_after = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["valid"]) for r in rows_after] == [("a", True), ("b", True)]
    assert rows_after[1]["group"] == "p1"


def test_a_bad_group_is_a_malformed_line(tmp_path: Path) -> None:
    config = _eval(tmp_path, "judges:\n  - name: correct\n    builtin: answer_matches\n")
    rollouts = _lines(tmp_path / "r.jsonl", [{"group": [1], "completion": "4"}])
    out = tmp_path / "out.jsonl"
    assert main(["score", str(rollouts), "--config", str(config), "--out", str(out)]) == 3
    assert "'group' must be a string or an integer" in out.read_text()


def test_score_warns_once_from_the_driver_not_once_per_worker(tmp_path: Path) -> None:
    path = _eval(
        tmp_path,
        """
        judges:
          - name: quality
            check: "return 0.8"
        """,
    )
    rollouts = tmp_path / "r.jsonl"
    rollouts.write_text('{"completion": "x"}\n' * 40)
    out = tmp_path / "o.jsonl"
    argv = ["score", str(rollouts), "--config", str(path), "--out", str(out), "--workers", "4"]
    done = subprocess.run(
        [sys.executable, "-m", "rewardkit", *argv], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("'quality' returned 0.8 and has no score_range") == 1
    # and the end of the run flags the silent zero it caused, once
    assert done.stderr.count("warning: the reward is 0 on 40 of 40 scored rollouts") == 1
    again = [*argv, "--strict"]
    again[again.index(str(out))] = str(tmp_path / "o2.jsonl")
    strict = subprocess.run(
        [sys.executable, "-m", "rewardkit", *again],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert strict.returncode == 4, strict.stderr  # --strict: a run that warned fails


@pytest.mark.parametrize(
    "returned", [True, False, 0.0, 0.3, 1.0, 1.5, -0.2, float("nan"), 7, "text", None]
)
@pytest.mark.parametrize("on_error", ["fail", "zero", "omit"])
def test_one_function_gives_what_composition_gives(returned: Any, on_error: str) -> None:
    """One plain function with no reward= block skips composition when it can (a pass/fail,
    or a score on [0, 1]); every other value goes through it. Both must agree."""
    from rewardkit.batch._backends import FunctionsBackend
    from rewardkit.batch._compose import compose_sample
    from rewardkit.batch._sample import as_sample

    def judge(messages: Any, **kwargs: Any) -> Any:
        return returned

    backend = FunctionsBackend.build({"judge": judge}, None)
    sample = as_sample({"prompt": "q", "completion": "a"})
    fast = backend.score(sample, on_error)  # type: ignore[arg-type]
    slow = compose_sample(fast.outcomes, None, backend.info, on_error)  # type: ignore[arg-type]
    assert (fast.reward, fast.rewards, fast.error) == (slow.reward, slow.rewards, slow.error)


def test_score_batch_of_sync_functions_runs_in_the_callers_thread() -> None:
    import threading

    seen: set[str] = set()

    def judge(messages: Any, **kwargs: Any) -> float:
        seen.add(threading.current_thread().name)
        return 1.0

    results = rk.load({"judge": judge}).score_batch([{"completion": "a"}] * 50)
    assert [r.reward for r in results] == [1.0] * 50
    assert seen == {threading.current_thread().name}
