"""Adapters where trainers run them: pickled (pickle and cloudpickle), in other processes and
threads, inside a running event loop, and with verl's calling conventions."""

from __future__ import annotations

import asyncio
import multiprocessing
import pickle
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from functools import partial
from typing import Any

import pytest

import rewardkit as rk
from rewardkit.batch import Scorer

cloudpickle = pytest.importorskip("cloudpickle")


@rk.reward_function
def exact(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> float:
    if ground_truth == "raise":
        raise ValueError("bad rollout")
    return 1.0 if messages[-1]["content"] == ground_truth else 0.0


@rk.reward_function
def brief(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    return 1.0 if len(messages[-1]["content"]) < 5 else 0.0


def _adapters(scorer: Scorer) -> dict[str, Any]:
    return {
        "trl": scorer.trl_reward_func(name="trl_sync"),
        "trl_async": scorer.trl_async_reward_func(name="trl_async"),
        "verl": scorer.verl_compute_score(),
    }


def _call(kind: str, adapter: Any) -> Any:
    """Each adapter as its trainer calls it; the results of a fixed small batch."""
    if kind == "verl":
        return [
            adapter("gsm8k", "4", "4"),
            adapter(data_source="x", solution_str="5", ground_truth="4"),
        ]
    batch = {"prompts": ["2+2?", "3+3?"], "completions": ["4", "7"], "ground_truth": ["4", "6"]}
    if kind == "trl_async":
        return asyncio.run(adapter(**batch))
    return adapter(**batch)


EXPECTED = {"trl": [1.0, 0.0], "trl_async": [1.0, 0.0], "verl": [1.0, 0.0]}


@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
@pytest.mark.parametrize("kind", ["trl", "trl_async", "verl"])
def test_every_adapter_pickles_and_scores_in_this_process(kind: str, dumps: Any) -> None:
    adapter = _adapters(rk.load([exact]))[kind]
    copy = pickle.loads(dumps(adapter))
    assert copy.scorer is adapter.scorer  # the same process finds its scorer again
    assert _call(kind, copy) == EXPECTED[kind]


def _unpickle_and_call(kind: str, frame: bytes) -> Any:
    return _call(kind, pickle.loads(frame))


@pytest.mark.parametrize("method", ["fork", "spawn"])
@pytest.mark.parametrize("dumps", [pickle.dumps, cloudpickle.dumps], ids=["pickle", "cloudpickle"])
def test_every_adapter_scores_in_another_process(method: str, dumps: Any) -> None:
    adapters = _adapters(rk.load({"exact": exact, "brief": brief}, reward={"judge": "exact"}))
    context = multiprocessing.get_context(method)
    with ProcessPoolExecutor(2, mp_context=context) as pool:
        futures = {k: pool.submit(_unpickle_and_call, k, dumps(a)) for k, a in adapters.items()}
        assert {k: f.result() for k, f in futures.items()} == EXPECTED


def test_cloudpickle_ships_a_reward_defined_in_a_function() -> None:
    @rk.reward_function
    def local(messages: list[dict[str, Any]], **kwargs: Any) -> float:
        return 0.25

    adapter = rk.load([local]).trl_reward_func()
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        pickle.dumps(adapter)  # by reference: a local function cannot travel
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as pool:
        assert pool.submit(_unpickle_and_call, "trl", cloudpickle.dumps(adapter)).result() == [
            0.25,
            0.25,
        ]


def test_a_process_loads_the_reward_once_however_often_it_unpickles() -> None:
    frame = pickle.dumps(rk.load([exact]).verl_compute_score())
    first, second = pickle.loads(frame), pickle.loads(frame)
    assert first.scorer is second.scorer


def test_sync_adapters_work_inside_a_running_event_loop() -> None:
    """A notebook kernel or an async trainer runs a loop: `asyncio.run` would refuse."""
    scorer = rk.load([exact])
    trl, verl = scorer.trl_reward_func(), scorer.verl_compute_score()

    async def inside() -> tuple[Any, ...]:
        asyncio.get_running_loop()  # we are in one
        batch = trl(prompts=["q"], completions=["4"], ground_truth=["4"])
        return batch, verl("s", "4", "4"), scorer.score({"completion": "4", "ground_truth": "4"})

    batch, single, result = asyncio.run(inside())
    assert (batch, single, result.reward) == ([1.0], 1.0, 1.0)


def test_adapters_score_from_many_threads_at_once() -> None:
    f = rk.load([exact], max_concurrent=2).trl_reward_func()
    call = partial(f, prompts=["q"] * 3, completions=["4", "5", "4"], ground_truth=["4"] * 3)
    with ThreadPoolExecutor(8) as threads:
        results = [future.result() for future in [threads.submit(call) for _ in range(16)]]
    assert results == [[1.0, 0.0, 1.0]] * 16


def test_verl_calling_conventions() -> None:
    compute_score = rk.load([exact]).verl_compute_score()
    # NaiveRewardManager: keyword call with extra_info
    assert (
        compute_score(
            data_source="gsm8k", solution_str="4", ground_truth="4", extra_info={"index": 3}
        )
        == 1.0
    )

    # the reward loop: the sync function in the loop's executor
    async def in_executor() -> float:
        loop = asyncio.get_running_loop()
        call = partial(compute_score, data_source="g", solution_str="4", ground_truth="4")
        return await loop.run_in_executor(None, call)

    assert asyncio.run(in_executor()) == 1.0
    # BatchRewardManager: the batch keyword call, one float per response
    scores = compute_score(
        data_sources=["a", "b", "c"],
        solution_strs=["4", "5", "6"],
        ground_truths=["4", "4", "6"],
        extra_infos=[None, {"prompt": "q"}, {}],
    )
    assert scores == [1.0, 0.0, 1.0]
    with pytest.raises(TypeError, match="solution_str"):
        compute_score(data_source="a")


def test_verl_invalid_sample_scores_the_chosen_value_and_warns_once() -> None:
    compute_score = rk.load([exact]).verl_compute_score(invalid=-1.0)
    with pytest.warns(RuntimeWarning, match=r"scored -1.0 for verl.*bad rollout"):
        assert compute_score("s", "4", "raise") == -1.0
    assert compute_score("s", "4", "raise") == -1.0  # reported once: no second warning


def test_adapter_name_defaults_to_the_config_and_duplicates_warn() -> None:
    scorer = rk.load([exact])
    first = scorer.trl_reward_func()
    assert first.__name__ == "exact"
    with pytest.warns(UserWarning, match="two rewardkit reward functions are named 'exact'"):
        scorer.trl_async_reward_func()
    assert rk.load([exact, brief]).trl_reward_func(name="other").__name__ == "other"
    assert rk.load([exact, brief]).name == "rewardkit"


def test_trl_log_metric_gets_each_judge_and_the_invalid_share() -> None:
    metrics: list[tuple[str, float]] = []
    f = rk.load({"exact": exact, "brief": brief}).trl_reward_func(name="rk")
    rewards = f(
        prompts=["q"] * 3,
        completions=["4", "a long answer", "4"],
        ground_truth=["4", "4", "raise"],
        log_metric=lambda name, value: metrics.append((name, value)),
    )
    assert rewards == [1.0, 0.0, None]
    assert dict(metrics) == {"rk/exact": 0.5, "rk/brief": 2 / 3, "rk/invalid": 1 / 3}


def test_a_scorer_built_by_hand_cannot_be_pickled() -> None:
    scorer = rk.load([exact])
    bare = Scorer(scorer.backend, deadline=None, max_concurrent=1)
    with pytest.raises(TypeError, match=r"rewardkit\.load"):
        pickle.dumps(bare)
