"""The trainer adapters, called exactly as TRL's GRPOTrainer and verl call them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import rewardkit as rk

SEEN: list[dict[str, Any]] = []


@rk.reward_function
def exact(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> float:
    SEEN.append({"messages": messages, "ground_truth": ground_truth, **kwargs})
    if ground_truth == "raise":
        raise ValueError("bad")
    return 1.0 if messages[-1]["content"] == ground_truth else 0.0


@rk.reward_function
def brief(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    return 1.0 if len(messages[-1]["content"]) < 5 else 0.0


def test_trl_keyword_call_with_columns_and_internal_kwargs() -> None:
    SEEN.clear()
    f = rk.load([exact]).trl_reward_func()
    # GRPOTrainer: reward_func(prompts=..., completions=..., completion_ids=..., **reward_kwargs)
    rewards = f(
        prompts=["2+2?", "3+3?", "1+1?"],
        completions=["4", "7", "2"],
        completion_ids=[[1], [2], [3]],
        ground_truth=["4", "6", "raise"],
        level=["easy", "hard", "easy"],
        trainer_state=object(),
    )
    assert rewards == [1.0, 0.0, None]
    assert f.__name__ == "exact"  # the config's name: the one function's
    assert SEEN[0]["messages"] == [
        {"role": "user", "content": "2+2?"},
        {"role": "assistant", "content": "4"},
    ]
    assert SEEN[0]["metadata"] == {"level": "easy"}  # completion_ids, trainer_state left out


def test_trl_positional_call_and_conversational_completions() -> None:
    SEEN.clear()
    f = rk.load([exact]).trl_reward_func(name="exact_answer")
    prompts = [[{"role": "user", "content": "2+2?"}]] * 2
    completions = [[{"role": "assistant", "content": "4"}], [{"role": "assistant", "content": "5"}]]
    assert f(prompts, completions, ground_truth=["4", "4"]) == [1.0, 0.0]
    assert f.__name__ == "exact_answer"
    assert SEEN[0]["messages"] == [*prompts[0], *completions[0]]


def test_trl_log_hook_sees_exactly_the_trained_reward() -> None:
    logged: list[dict[str, list[float | None]]] = []
    f = rk.load({"exact": exact, "brief": brief}).trl_reward_func(log=logged.append)
    rewards = f(prompts=["q", "q"], completions=["4", "a long answer"], ground_truth=["4", "4"])
    assert logged == [{"reward": rewards, "exact": [1.0, 0.0], "brief": [1.0, 0.0]}]
    assert rewards == [1.0, 0.0]


def test_trl_async_variant() -> None:
    logged: list[dict[str, list[float | None]]] = []
    f = rk.load([exact]).trl_async_reward_func(name="async_exact", log=logged.append)
    rewards = asyncio.run(f(prompts=["q"], completions=["4"], ground_truth=["4"]))
    assert rewards == [1.0]
    assert f.__name__ == "async_exact"
    assert logged[0]["exact"] == [1.0]


def test_verl_compute_score() -> None:
    SEEN.clear()
    compute_score = rk.load([exact]).verl_compute_score()
    # verl: compute_score(data_source, solution_str, ground_truth, extra_info)
    assert compute_score("gsm8k", "4", "4", {"split": "train", "prompt": "2+2?"}) == 1.0
    assert SEEN[0]["metadata"] == {"data_source": "gsm8k", "split": "train", "prompt": "2+2?"}
    assert SEEN[0]["messages"][0] == {"role": "user", "content": "2+2?"}
    assert compute_score(data_source="x", solution_str="5", ground_truth="4") == 0.0
    with pytest.warns(RuntimeWarning, match=r"invalid sample scored 0.0 for verl.*bad"):
        assert compute_score("x", "4", "raise", None) == 0.0  # verl needs a float
