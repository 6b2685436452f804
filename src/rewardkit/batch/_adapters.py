"""Trainer adapters: TRL `GRPOTrainer` reward functions and verl's `compute_score`.

Both score through the same `Scorer`, so the reward a trainer sees is the reward
`rewardkit score` writes and the log hook reports.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rewardkit.batch._result import SampleResult

if TYPE_CHECKING:
    from rewardkit.batch._scorer import Scorer

__all__ = [
    "LogHook",
    "TrlAsyncRewardFunc",
    "TrlRewardFunc",
    "VerlComputeScore",
    "trl_async_reward_func",
    "trl_reward_func",
    "verl_compute_score",
]

TrlRewardFunc = Callable[..., list[float | None]]
TrlAsyncRewardFunc = Callable[..., Coroutine[Any, Any, list[float | None]]]
VerlComputeScore = Callable[..., float]
LogHook = Callable[[dict[str, list[float | None]]], None]
"""Receives, per batch, `{"reward": [...], <judge>: [...]}`: one value per completion."""

# Keyword arguments TRL passes that are not dataset columns.
_TRL_INTERNAL = frozenset({"completion_ids", "trainer_state", "log_extra", "log_metric"})
_FIELDS = ("ground_truth", "workspace", "trajectory", "metadata")


def trl_reward_func(
    scorer: Scorer, *, name: str = "rewardkit", log: LogHook | None = None
) -> TrlRewardFunc:
    """A reward function for TRL's `GRPOTrainer(reward_funcs=[...])`.

    TRL calls it as `f(prompts=..., completions=..., **columns)`: prompts and completions are
    strings, or lists of messages for conversational datasets; every other dataset column
    arrives as a list with one item per completion. `ground_truth`, `workspace`,
    `trajectory` and `metadata` columns fill those sample fields; the other columns go into
    `metadata`. An invalid sample scores `None`, which TRL leaves out of the reward.

    Example:
        >>> from rewardkit import load, reward_function
        >>> @reward_function
        ... def exact(messages, ground_truth=None, **kwargs):
        ...     return messages[-1]["content"] == ground_truth
        >>> f = trl_reward_func(load([exact]))
        >>> f(prompts=["2+2?", "3+3?"], completions=["4", "7"], ground_truth=["4", "6"])
        [1.0, 0.0]
    """

    def reward_func(
        prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float | None]:
        results = scorer.score_batch(_samples(prompts, completions, kwargs))
        return _rewards(results, log)

    reward_func.__name__ = reward_func.__qualname__ = name
    return reward_func


def trl_async_reward_func(
    scorer: Scorer, *, name: str = "rewardkit", log: LogHook | None = None
) -> TrlAsyncRewardFunc:
    """The `async def` form of `trl_reward_func`, for trainers that await reward functions."""

    async def reward_func(
        prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float | None]:
        results = await scorer.score_batch_async(_samples(prompts, completions, kwargs))
        return _rewards(results, log)

    reward_func.__name__ = reward_func.__qualname__ = name
    return reward_func


def verl_compute_score(scorer: Scorer) -> VerlComputeScore:
    """A verl `compute_score(data_source, solution_str, ground_truth, extra_info=None)`.

    verl needs a float for every response, so an invalid sample scores 0.0 here (use the TRL
    adapter or `score_batch` to see invalid samples as `None`). `extra_info` goes into the
    sample's `metadata` with `data_source`; its `prompt`, `workspace` and `trajectory` keys,
    when present, fill those sample fields.

    Example:
        >>> from rewardkit import load, reward_function
        >>> @reward_function
        ... def exact(messages, ground_truth=None, **kwargs):
        ...     return messages[-1]["content"] == ground_truth
        >>> verl_compute_score(load([exact]))("gsm8k", "4", "4")
        1.0
    """

    def compute_score(
        data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any = None, **_: Any
    ) -> float:
        extra = dict(extra_info) if isinstance(extra_info, Mapping) else {}
        sample: dict[str, Any] = {
            "completion": solution_str,
            "ground_truth": ground_truth,
            "metadata": {"data_source": data_source, **extra},
        }
        for key in ("prompt", "workspace", "trajectory"):
            if extra.get(key) is not None:
                sample[key] = extra[key]
        result = scorer.score(sample)
        return 0.0 if result.reward is None else result.reward

    compute_score.__name__ = "compute_score"
    return compute_score


def _samples(
    prompts: Sequence[Any], completions: Sequence[Any], kwargs: Mapping[str, Any]
) -> list[dict[str, Any]]:
    n = len(completions)
    columns = {
        k: v
        for k, v in kwargs.items()
        if k not in _TRL_INTERNAL
        and isinstance(v, Sequence)
        and not isinstance(v, str)
        and len(v) == n
    }
    samples = []
    for i in range(n):
        sample: dict[str, Any] = {"prompt": prompts[i] if i < len(prompts) else None}
        sample["completion"] = completions[i]
        metadata = {k: v[i] for k, v in columns.items() if k not in _FIELDS}
        for key in _FIELDS:
            if key in columns and columns[key][i] is not None:
                sample[key] = columns[key][i]
        if isinstance(sample.get("metadata"), Mapping):
            metadata = {**metadata, **sample["metadata"]}
        sample["metadata"] = metadata
        samples.append(sample)
    return samples


def _rewards(results: list[SampleResult], log: LogHook | None) -> list[float | None]:
    rewards = [r.reward for r in results]
    if log is not None:
        logged: dict[str, list[float | None]] = {"reward": list(rewards)}
        names = dict.fromkeys(o.name for r in results for o in r.outcomes)
        for judge in names:
            logged[judge] = [r.judges.get(judge) for r in results]
        log(logged)
    return rewards
