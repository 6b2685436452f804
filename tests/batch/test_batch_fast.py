"""The batch fast paths give exactly `score_sample`'s results (timings aside)."""

from __future__ import annotations

import functools
import math
import textwrap
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rewardkit as rk
from rewardkit.batch import Sample
from rewardkit.batch._backends import EvalBackend, FunctionsBackend, score_sample
from rewardkit.batch._fast import fast_eval_scorer, fast_scorer
from rewardkit.batch._result import SampleResult
from rewardkit.functions._decorator import plain_call
from rewardkit.types import EvaluateResult, Message, MetricResult

RETURNS: dict[str, Any] = {
    "yes": True,
    "no": False,
    "one": 1,
    "three": 3,
    "half": 0.5,
    "negative": -0.5,
    "nan": math.nan,
    "inf": math.inf,
    "none": None,
    "text": "0.5",
    "np_float": np.float64(0.25),
    "np_int": np.int64(1),
    "np_bool": np.bool_(True),
    "dict": {"score": 0.5, "reason": "half"},
    "bad_dict": {"reason": "no score"},
    "metrics": EvaluateResult(
        score=0.75, reason="good", metrics={"m": MetricResult(score=1.0, reason="ok")}
    ),
    "marked": EvaluateResult(score=0.5, error="judge broke"),
    "invalid": EvaluateResult(score=0.5, is_score_valid=False),
    "above": EvaluateResult(score=2.0),
}
"""What the reward function returns, by the sample's ground truth."""


@rk.reward_function
def varied(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> Any:
    if ground_truth == "raise":
        raise ValueError("bad rollout")
    if ground_truth == "exit":
        raise SystemExit(3)
    if ground_truth == "echo":
        return messages[-1]["content"] == kwargs.get("metadata", {}).get("want")
    return RETURNS.get(ground_truth, messages[-1]["content"] == ground_truth)


@rk.reward_function
def typed(messages: list[Message], ground_truth: str | None = None) -> float:
    return float(messages[-1].content == ground_truth)


@rk.reward_function
def bare(messages: Any) -> bool:
    return len(messages) == 2


SAMPLES: list[Any] = [
    *({"prompt": "2+2?", "completion": "4", "ground_truth": truth} for truth in RETURNS),
    {"prompt": "2+2?", "completion": "4", "ground_truth": "4"},
    {"completion": "4", "ground_truth": "4"},
    {"prompt": "2+2?", "completion": "4", "ground_truth": "raise"},
    {"prompt": "2+2?", "completion": "4", "ground_truth": "exit"},
    {"prompt": "q", "completion": "4", "ground_truth": "echo", "metadata": {"want": "4"}},
    {"prompt": "q", "completion": "4", "ground_truth": "4", "metadata": None, "trajectory": [1]},
    {"messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": "4"}]},
    {"prompt": [{"role": "user", "content": "q"}], "completion": "4", "ground_truth": "4"},
    {"prompt": "q", "completion": [{"role": "assistant", "content": "4"}]},
    {"prompt": "q", "completion": None},
    {"prompt": "q"},
    {"prompt": 3, "completion": "4"},
    {"prompt": "q", "completion": "4", "metadata": [1]},
    {"prompt": "q", "completion": "4", "answer": "4"},
    {"prompt": "q", "completion": "4", "workspace": "."},
    Sample(prompt="q", completion="4", ground_truth="4"),
    ["not", "a", "sample"],
]


def _timeless(result: SampleResult) -> SampleResult:
    outcomes = tuple(replace(o, duration_ms=0.0) for o in result.outcomes)
    return replace(result, outcomes=outcomes, duration_s=0.0)


@pytest.mark.parametrize("on_error", ["fail", "zero", "omit"])
@pytest.mark.parametrize("fn", [varied, typed, bare])
def test_fast_path_gives_the_slow_paths_results(fn: Any, on_error: Any) -> None:
    backend = FunctionsBackend.build({"judge": fn}, None)
    fast = fast_scorer(backend, on_error)
    assert fast is not None
    slow = partial(score_sample, backend, on_error=on_error)
    for sample in SAMPLES:
        expected = slow(sample)
        got = fast(sample)
        assert _timeless(got) == _timeless(expected), sample
        assert [type(o.raw) for o in got.outcomes] == [type(o.raw) for o in expected.outcomes]
        assert got.duration_s > 0


def test_load_uses_the_fast_path() -> None:
    scorer = rk.load([varied])
    assert scorer._inline.__qualname__.startswith("fast_scorer")
    results = scorer.score_batch(SAMPLES[:4])
    assert [r.reward for r in results] == [1.0, 0.0, 1.0, 1.0]


def test_no_fast_path_for_other_rewards() -> None:
    async def later(messages: Any, **kwargs: Any) -> float:
        return 1.0

    def undecorated(messages: Any, **kwargs: Any) -> float:
        return 1.0

    for functions, reward in [
        ({"a": varied, "b": bare}, None),
        ({"a": varied}, {"judge": "a"}),
        ({"a": rk.reward_function(later)}, None),
        ({"a": undecorated}, None),
    ]:
        assert fast_scorer(FunctionsBackend.build(functions, reward), "fail") is None


def test_plain_call_is_the_wrappers_own() -> None:
    @functools.wraps(varied)
    def copied(*args: Any, **kwargs: Any) -> Any:
        return varied(*args, **kwargs)

    assert plain_call(copied) is None  # it copied the attribute, but is another function
    assert plain_call(varied.__wrapped__) is None  # type: ignore[attr-defined]
    call = plain_call(varied)
    assert call is not None
    messages = [{"role": "assistant", "content": "4"}]
    assert call({"messages": messages, "ground_truth": "yes"}) == 1.0
    assert call({"messages": messages, "ground_truth": "metrics"}) == RETURNS["metrics"]


def _eval_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge: str) -> EvalBackend:
    (tmp_path / "fast_judges.py").write_text(
        textwrap.dedent(
            """
            import math
            from rewardkit import reward_function
            from rewardkit.types import EvaluateResult, MetricResult

            @reward_function
            def varied(messages, ground_truth=None, **kwargs):
                if ground_truth == "raise":
                    raise ValueError("bad rollout")
                if ground_truth == "nan":
                    return math.nan
                if ground_truth == "metrics":
                    metrics = {"m": MetricResult(score=1.0, reason="ok")}
                    return EvaluateResult(score=0.75, reason="good", metrics=metrics)
                if ground_truth == "marked":
                    return EvaluateResult(score=0.5, error="judge broke")
                if ground_truth == "above":
                    return 2.0
                return messages[-1]["content"] == ground_truth

            def outputs_judge(outputs):
                return True
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "eval.yaml"
    path.write_text(f"judges:\n  - {judge}\n")
    backend = rk.load(path).backend
    assert isinstance(backend, EvalBackend)
    return backend


@pytest.mark.parametrize("on_error", ["fail", "zero", "omit"])
@pytest.mark.parametrize(
    "judge",
    [
        "{name: varied, module: fast_judges, function: varied}",
        "{name: varied, module: fast_judges, function: varied, score_range: [0, 10]}",
        "{name: varied, module: fast_judges, function: varied, description: d, arguments: {x: 1}}",
    ],
)
def test_eval_fast_path_gives_the_slow_paths_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, judge: str, on_error: Any
) -> None:
    backend = _eval_backend(tmp_path, monkeypatch, judge)
    fast = fast_eval_scorer(backend, on_error)
    assert fast is not None
    slow = partial(score_sample, backend, on_error=on_error)
    truths = ["4", "5", None, "raise", "nan", "metrics", "marked", "above"]
    samples = [{"prompt": "q", "completion": "4", "ground_truth": t} for t in truths]
    samples += [{"completion": "4", "ground_truth": {"ground_truth": "4", "x": 1}}]
    samples += SAMPLES[-12:]
    for inline in (True, False):  # in a worker process, and not
        for module in ("rewardkit.batch._fast", "rewardkit.batch._backends"):
            monkeypatch.setattr(f"{module}.runs_inline", lambda inline=inline: inline)
        for sample in samples:
            assert _timeless(fast(sample)) == _timeless(slow(sample)), sample


def test_no_eval_fast_path_for_other_judges(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for judge in [
        "{name: o, module: fast_judges, function: outputs_judge}",
        "{name: v, module: fast_judges, function: varied, if: 'annotations'}",
    ]:
        assert fast_eval_scorer(_eval_backend(tmp_path, monkeypatch, judge), "fail") is None


def test_results_pickle_and_copy_as_they_were() -> None:
    import copy
    import pickle

    from rewardkit.core._outcome import Outcome

    backend = FunctionsBackend.build({"judge": varied}, None)
    results = [score_sample(backend, sample, on_error="zero") for sample in SAMPLES]
    one = Outcome(name="j", status="scored", value=1.0, raw=1.0)
    results += [
        SampleResult(reward=1.0, outcomes=(replace(one, weight=1),), rewards={"reward": 1.0}),
        SampleResult(reward=1.0, outcomes=(replace(one, raw=True),), rewards={"reward": 1.0}),
        SampleResult(reward=1.0, outcomes=(replace(one, reasoning="r"),), rewards={"reward": 1.0}),
        SampleResult(reward=1.0, outcomes=(one,), rewards={"reward": 1.0, "x": 1.0}),
        SampleResult(reward=1.0, outcomes=(one, one), rewards={"reward": 1.0}),
    ]
    for result in results:
        for again in (pickle.loads(pickle.dumps(result)), copy.copy(result), copy.deepcopy(result)):
            assert again == result
            assert [type(v) for o in again.outcomes for v in vars(o).values()] == [
                type(v) for o in result.outcomes for v in vars(o).values()
            ]
    compact = pickle.dumps(SampleResult(reward=1.0, outcomes=(one,), rewards={"reward": 1.0}))
    assert len(compact) < 150


@pytest.mark.parametrize("on_error", ["fail", "zero", "omit"])
def test_compose_one_is_compose_sample(on_error: Any) -> None:
    from rewardkit.batch._compose import compose_one, compose_sample
    from rewardkit.compose import JudgeInfo
    from rewardkit.core._outcome import Outcome

    outcomes = [
        Outcome(name="j", status="scored", value=v, raw=raw)
        for v, raw in [(1.0, True), (0.0, False), (0.5, 0.5), (1.0, 1), (0.0, 0), (3.0, 3.0)]
    ]
    outcomes += [
        Outcome(name="j", status="scored", value=-1.0, raw=-1.0),
        Outcome(name="j", status="skipped", reasoning="if: false"),
        Outcome(name="j", status="error", error="boom"),
        Outcome(name="j", status="timeout"),
        Outcome(name="other", status="scored", value=0.5, raw=0.5),
    ]
    for score_range in [(0.0, 1.0), (0, 1), (1.0, 5.0), None, (0.0, 10.0)]:
        judges = {"j": JudgeInfo(name="j", score_range=score_range)}
        for outcome in outcomes:
            expected = compose_sample((outcome,), None, judges, on_error)
            assert compose_one(outcome, judges, on_error) == expected, (score_range, outcome)


def test_a_judged_result_is_one_tracked_object_and_the_result_it_stands_for() -> None:
    import copy
    import gc
    import pickle

    from rewardkit.batch._result import judged
    from rewardkit.core._outcome import Outcome

    eager = SampleResult(
        reward=0.5,
        outcomes=(Outcome(name="j", status="scored", value=0.5, raw=0.5, duration_ms=1.5),),
        rewards={"reward": 0.5},
        duration_s=0.25,
    )
    lazy = judged(0.5, "j", 1.5, 0.25)
    # nothing the garbage collector must traverse hangs off it until `outcomes` is read
    assert not [o for o in gc.get_referents(lazy) if gc.is_tracked(o) and not isinstance(o, type)]
    assert len(pickle.dumps(lazy)) < 150
    for again in (pickle.loads(pickle.dumps(lazy)), copy.copy(lazy), copy.deepcopy(lazy), lazy):
        assert again == eager
        assert repr(again) == repr(eager)
    assert lazy.outcomes is lazy.outcomes  # built once
    assert lazy.judges == {"j": 0.5}
    assert lazy.reason is None
    with pytest.raises(AttributeError, match="has no attribute 'outcome'"):
        lazy.outcome  # noqa: B018
    assert SampleResult(reward=None).outcomes == ()
