"""`Scorer.verifiers_rubric`, scored the way verifiers 0.4 scores a rollout.

Rollouts are built as `vf.Rollout` builds them (a `vf.Trace` of the task, each model turn
committed into its message graph) and scored with `Task.score(trace)`, the entry point a
closing rollout awaits; errors are recorded as the rollout records them. No model runs: an
env rollout would start the chat program with `uv` in a runtime, which needs the network.
"""

from __future__ import annotations

import asyncio
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

import rewardkit as rk

try:
    import verifiers.v1 as vf
    from verifiers.v1.graph import prepare_turn
except ImportError:  # pragma: no cover - the extra is optional
    vf = None

needs_verifiers = pytest.mark.skipif(
    vf is None, reason="verifiers is not installed (pip install verifiers)"
)
CALLS: list[str] = []


def exact(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> bool:
    CALLS.append("exact")
    if ground_truth == "raise":
        raise ValueError("no reference")
    return bool(messages[-1]["content"] == ground_truth)


def brief(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    CALLS.append("brief")
    return 1.0 if len(messages[-1]["content"]) < 3 else 0.25


async def polite(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    CALLS.append("polite")
    await asyncio.sleep(0)
    return 0.5 if "please" in messages[0]["content"] else 0.1


FUNCTIONS = {"exact": exact, "brief": brief, "polite": polite}
WEIGHTED = {"formula": "weighted", "weights": {"exact": 6, "brief": 3, "polite": 1}, "gate": False}
REPLIES = ["4", "four", "5", "4 (sure)", ""]

if vf is not None:

    class MathData(vf.TaskData):
        answer: str
        level: str = "easy"

    def math_tasks(rubric: type[Any]) -> list[Any]:
        """A small taskset of tasks scored by `rubric`, iterated as verifiers iterates one."""

        class MathTask(rubric, vf.Task[MathData]):
            pass

        class MathTaskset(vf.Taskset[MathTask, vf.TasksetConfig]):
            def load(self) -> list[MathTask]:
                rows = [("2+2?", "4", "easy"), ("please, 3+3?", "6", "hard"), ("1+1?", "raise", "")]
                return [MathTask(MathData(prompt=p, answer=a, level=lv)) for p, a, lv in rows]

        return list(MathTaskset(vf.TasksetConfig()))


def rollout(task: Any, *replies: str) -> Any:
    """A trace as `vf.Rollout` makes one: the task recorded on it, each reply committed."""
    trace = vf.Trace(
        task=vf.TraceTask(type=type(task).__name__, data=task.data, key=task.key, hash=task.hash),
        agent=vf.AgentInfo(config=vf.AgentConfig()),
    )
    prompt: list[Any] = [vf.UserMessage(content=task.data.prompt)]
    for i, reply in enumerate(replies):
        message = vf.AssistantMessage(content=reply)
        response = vf.Response(
            id=f"r{i}", created=int(time.time()), model="m", message=message, finish_reason="stop"
        )
        prepare_turn(trace, prompt).commit(response)
        prompt = [*prompt, message, vf.UserMessage(content="again")]
    return trace


def score(task: Any, trace: Any) -> Any:
    """`Task.score` as a closing rollout awaits it, recording an error as the rollout does."""
    try:
        asyncio.run(task.score(trace))
    except vf.RolloutError as exc:
        trace.record_error(exc)
    return trace


def ours(scorer: rk.Scorer, task: Any, reply: str) -> rk.SampleResult:
    data = task.data
    return scorer.score({"prompt": data.prompt, "completion": reply, "ground_truth": data.answer})


@needs_verifiers
def test_weighted_mean_is_one_reward_per_judge_with_its_share_of_the_weights() -> None:
    scorer = rk.load(FUNCTIONS, reward=WEIGHTED)
    for task in math_tasks(scorer.verifiers_rubric())[:2]:
        for reply in REPLIES:
            trace = score(task, rollout(task, reply))
            expected = ours(scorer, task, reply)
            assert trace.errors == []
            assert trace.reward == pytest.approx(expected.reward, abs=1e-12)
            assert {k: r.weight for k, r in trace.rewards.items()} == {
                "exact": 0.6,
                "brief": 0.3,
                "polite": 0.1,
            }
            assert {k: r.score for k, r in trace.rewards.items()} == expected.judges
            assert trace.metrics == {"rewardkit/invalid": 0.0}  # every judge is a reward


@needs_verifiers
def test_a_formula_is_our_reward_exactly_and_judges_are_metrics() -> None:
    scorer = rk.load(
        FUNCTIONS,
        reward={"formula": "exact * (0.7 + 0.3 * brief) * (0.7 + 0.3 * brief) + polite / 7"},
    )
    Rubric = scorer.verifiers_rubric(name="arith")
    for task in math_tasks(Rubric)[:2]:
        for reply in REPLIES:
            trace = score(task, rollout(task, reply))
            expected = ours(scorer, task, reply)
            assert trace.reward == expected.reward  # exactly, not approximately
            assert list(trace.rewards) == ["arith"]
            assert trace.rewards["arith"].weight == 1.0
            assert trace.metrics == {**expected.judges, "arith/invalid": 0.0}


@pytest.mark.parametrize(
    "reward",
    [
        None,  # the default mean (a `True` is not counted in it)
        {"formula": "weighted", "weights": {"exact": 1, "brief": 1}},  # gated by `exact`
        {"formula": "weighted", "weights": {"exact": 1, "brief": 1}, "gate": False, "raw": "brief"},
    ],
)
@needs_verifiers
def test_compositions_a_sum_cannot_make_are_one_composed_reward(reward: Any) -> None:
    scorer = rk.load({"exact": exact, "brief": brief}, reward=reward)
    (task, *_) = math_tasks(scorer.verifiers_rubric())
    split = reward is not None and reward.get("gate") is False
    for reply in REPLIES:
        trace = score(task, rollout(task, reply))
        expected = ours(scorer, task, reply)
        if split:
            assert trace.reward == pytest.approx(expected.reward, abs=1e-12)
            assert set(trace.rewards) == {"exact", "brief"}
        else:
            assert trace.reward == expected.reward
            assert set(trace.rewards) == {"rewardkit"}
    if not split:  # a gate (or the default mean) zeroes what a weighted sum would not
        trace = score(task, rollout(task, "four"))
        assert trace.reward == 0.0
        assert trace.metrics["brief"] == 0.25


@needs_verifiers
def test_one_function_and_single_judge_mode_are_named_by_the_judge() -> None:
    (task, *_) = math_tasks(rk.load([exact]).verifiers_rubric())
    trace = score(task, rollout(task, "4"))
    assert {k: (r.score, r.weight) for k, r in trace.rewards.items()} == {"exact": (1.0, 1.0)}
    scorer = rk.load({"exact": exact, "brief": brief}, reward={"judge": "brief"})
    (task, *_) = math_tasks(scorer.verifiers_rubric())
    trace = score(task, rollout(task, "four"))
    assert {k: (r.score, r.weight) for k, r in trace.rewards.items()} == {"brief": (0.25, 1.0)}
    assert trace.metrics == {"exact": 0.0, "rewardkit/invalid": 0.0}  # weight 0: a metric


@needs_verifiers
def test_each_rollout_is_scored_once_however_many_judges() -> None:
    scorer = rk.load(FUNCTIONS, reward=WEIGHTED)
    tasks = math_tasks(scorer.verifiers_rubric())
    CALLS.clear()
    traces = [score(task, rollout(task, reply)) for task in tasks[:2] for reply in ("4", "6")]
    assert sorted(CALLS) == sorted(["exact", "brief", "polite"] * 4)
    assert len({t.id for t in traces}) == 4


@needs_verifiers
def test_concurrent_rollouts_of_one_task_keep_their_own_results() -> None:
    scorer = rk.load(FUNCTIONS, reward=WEIGHTED)
    (task, *_) = math_tasks(scorer.verifiers_rubric())
    traces = [rollout(task, reply) for reply in REPLIES * 4]

    async def group() -> None:  # a GRPO group: one task, its rollouts scored at once
        await asyncio.gather(*(task.score(trace) for trace in traces))

    asyncio.run(group())
    for trace, reply in zip(traces, REPLIES * 4, strict=True):
        assert trace.reward == pytest.approx(ours(scorer, task, reply).reward, abs=1e-12)


@needs_verifiers
def test_a_rollout_becomes_a_sample() -> None:
    seen: dict[str, Any] = {}

    def spy(messages: Any, ground_truth: Any = None, metadata: Any = None, **kw: Any) -> float:
        seen.update(messages=messages, ground_truth=ground_truth, metadata=metadata)
        return 1.0

    (_, task, _) = math_tasks(rk.load([spy]).verifiers_rubric())
    trace = score(task, rollout(task, "7", "6"))
    assert trace.reward == 1.0
    assert seen["messages"] == [
        {"role": "user", "content": "please, 3+3?"},
        {"role": "assistant", "content": "7"},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": "6"},
    ]
    assert seen["ground_truth"] == "6"
    assert seen["metadata"] == {"idx": 1, "level": "hard"}  # the row, not the runtime knobs

    class Row(vf.TaskData):
        solution: str

    class Task(rk.load([exact]).verifiers_rubric(ground_truth="solution"), vf.Task[Row]):
        pass

    task = Task(Row(prompt="2+2?", solution="4"))
    assert score(task, rollout(task, "4")).reward == 1.0


@needs_verifiers
def test_an_invalid_sample_fails_the_rollout_by_default() -> None:
    scorer = rk.load(FUNCTIONS, reward=WEIGHTED)
    *_, task = math_tasks(scorer.verifiers_rubric())  # its answer makes `exact` raise
    trace = score(task, rollout(task, "2"))
    assert trace.ok is False
    assert trace.stop_condition == "task_error"
    (error,) = trace.errors
    assert error.type == "TaskError"
    assert "invalid sample (exact raised ValueError: no reference)" in error.message
    assert trace.reward == 0.0  # verifiers' sum over rewards that did not run
    assert set(trace.rewards.values()) == {None}
    assert trace.metrics == {"rewardkit/invalid": 1.0}  # metrics run first


@needs_verifiers
def test_invalid_float_scores_it_and_warns_once() -> None:
    scorer = rk.load(FUNCTIONS, reward={"formula": "exact * brief"})
    *_, task = math_tasks(scorer.verifiers_rubric(invalid=0.0))
    with pytest.warns(RuntimeWarning, match=r"invalid sample scored 0\.0 .*no reference"):
        trace = score(task, rollout(task, "2"))
    assert trace.errors == []
    assert trace.reward == 0.0
    assert trace.metrics == {"brief": 1.0, "polite": 0.1, "rewardkit/invalid": 1.0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert score(task, rollout(task, "22")).reward == 0.0  # not reported again

    split = rk.load(FUNCTIONS, reward=WEIGHTED).verifiers_rubric(invalid=0.0)
    *_, task = math_tasks(split)
    with pytest.warns(RuntimeWarning):
        trace = score(task, rollout(task, "2"))
    assert trace.reward == 0.0
    assert {r.score for r in trace.rewards.values()} == {0.0}


@needs_verifiers
def test_a_judge_without_a_value_makes_a_split_reward_invalid_not_wrong() -> None:
    def nan(messages: Any, **kwargs: Any) -> float:
        return float("nan")  # no value: our mean leaves it out, a fixed weight cannot

    scorer = rk.load(
        {"exact": exact, "nan": nan}, reward={**WEIGHTED, "weights": {"exact": 1, "nan": 1}}
    )
    assert ours(scorer, math_tasks(scorer.verifiers_rubric())[0], "4").reward == 1.0
    (task, *_) = math_tasks(scorer.verifiers_rubric(invalid=0.5))
    with pytest.warns(RuntimeWarning, match="a weighted judge has no value"):
        trace = score(task, rollout(task, "4"))
    assert trace.reward == pytest.approx(0.5)


@pytest.mark.parametrize("on_error", ["zero", "omit"])
@needs_verifiers
def test_error_policies(on_error: Any) -> None:
    scorer = rk.load(
        {"exact": exact, "brief": brief},
        reward=WEIGHTED | {"weights": {"exact": 1, "brief": 3}},
        on_error=on_error,
    )
    *_, task = math_tasks(scorer.verifiers_rubric())
    trace = score(task, rollout(task, "2"))
    assert trace.errors == []
    assert trace.reward == pytest.approx(0.75 if on_error == "zero" else 1.0, abs=1e-12)
    names = {"exact", "brief"} if on_error == "zero" else {"rewardkit"}  # omit renormalizes
    assert set(trace.rewards) == names


@needs_verifiers
def test_an_eval_yaml_with_weights_is_split_by_judge(tmp_path: Path) -> None:
    (tmp_path / "eval.yaml").write_text(
        "name: arith\n"
        "judges:\n"
        "  - name: correct\n"
        "    builtin: answer_matches\n"
        "  - name: short\n"
        "    check: |\n"
        "      return 1.0 if len(outputs['stdout'] or '') < 3 else 0.5\n"
        "    score_range: [0, 1]\n"
        "  - name: polite\n"
        "    if: \"annotations.get('ground_truth') == '6'\"\n"
        "    check: return 1.0\n"
        "    score_range: [0, 1]\n"
        "reward:\n"
        "  formula: weighted\n"
        "  weights: {correct: 3, short: 1}\n"
        "  gate: false\n"
    )
    scorer = rk.load(tmp_path / "eval.yaml")
    tasks = math_tasks(scorer.verifiers_rubric())
    for task, reply in [(tasks[0], "4"), (tasks[0], "5"), (tasks[1], "6 is it")]:
        trace = score(task, rollout(task, reply))
        assert trace.reward == pytest.approx(ours(scorer, task, reply).reward, abs=1e-12)
        assert {k: r.weight for k, r in trace.rewards.items()} == {"correct": 0.75, "short": 0.25}
    trace = score(tasks[0], rollout(tasks[0], "5"))
    assert trace.reward == pytest.approx(0.25)
    assert "polite" not in trace.metrics  # skipped by its `if:` on the first task: no value
    assert score(tasks[1], rollout(tasks[1], "6")).metrics == {"polite": 1.0, "arith/invalid": 0.0}


@needs_verifiers
def test_with_a_deadline_samples_are_scored_in_worker_processes() -> None:
    with rk.load(FUNCTIONS, reward=WEIGHTED, deadline=30, max_concurrent=2) as scorer:
        (task, *_) = math_tasks(scorer.verifiers_rubric())
        trace = score(task, rollout(task, "4"))
    assert trace.reward == pytest.approx(1.0 * 0.6 + 1.0 * 0.3 + 0.1 * 0.1)


@needs_verifiers
def test_verifiers_own_weight_override_and_deferred_scoring() -> None:
    scorer = rk.load(FUNCTIONS, reward=WEIGHTED)
    Rubric = scorer.verifiers_rubric()

    class Task(Rubric, vf.Task[MathData]):
        pass

    config = vf.TaskConfig(rewards={"polite": vf.RewardFunctionConfig(weight=0.0)})
    task = Task(MathData(prompt="2+2?", answer="4"), config)
    trace = score(task, rollout(task, "4"))
    assert trace.rewards["polite"].weight == 0.0  # `--env.taskset.task.rewards.polite.weight`
    assert trace.reward == pytest.approx(0.9)
    CALLS.clear()
    assert score(task.defer_scoring(), rollout(task, "4")).rewards == {}
    assert CALLS == []


@needs_verifiers
def test_a_method_called_alone_scores_its_rollout() -> None:
    (task, *_) = math_tasks(rk.load(FUNCTIONS, reward=WEIGHTED).verifiers_rubric())
    hooks = {hook.__name__: hook for hook in task.hooks("reward")}
    assert set(hooks) == {"exact", "brief", "polite"}
    assert asyncio.run(hooks["polite"](task.data, rollout(task, "4"))) == 0.1


def test_without_verifiers_the_error_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "verifiers.v1", None)  # what a missing package reads as
    with pytest.raises(ImportError, match="pip install verifiers"):
        rk.load([exact]).verifiers_rubric()
