"""Trainer adapters: TRL `GRPOTrainer` reward functions and verl's `compute_score`.

All score through the same `Scorer`, so the reward a trainer sees is the reward
`rewardkit score` writes and the log hook reports. Each adapter is an instance of a
module-level class holding its scorer: `pickle` and `cloudpickle` ship it to another process,
where the scorer is loaded again from its source, once per process (see `Scorer`). They work
from threads, processes, and inside a running event loop (a notebook kernel's).
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, overload

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

LogHook = Callable[[dict[str, list[float | None]]], None]
"""Receives, per batch, `{"reward": [...], <judge>: [...]}`: one value per completion."""

# Keyword arguments TRL passes that are not dataset columns.
_TRL_INTERNAL = frozenset(
    {"completion_ids", "trainer_state", "log_extra", "log_metric", "environments"}
)
_FIELDS = ("ground_truth", "workspace", "trajectory", "metadata")
_NAMED: weakref.WeakValueDictionary[str, _Trl] = weakref.WeakValueDictionary()
"""The live TRL adapters by name: TRL merges the logs of two reward functions of one name."""


class _Trl:
    """What both TRL forms share: a scorer, a name, and how results become rewards and logs."""

    def __init__(self, scorer: Scorer, *, name: str | None, log: LogHook | None) -> None:
        self.scorer = scorer
        self.__name__ = name or scorer.name
        """TRL's name for the reward function (its logs and metrics use it)."""
        self.log = log
        other = _NAMED.get(self.__name__)
        if other is not None and other is not self:
            warnings.warn(
                f"two rewardkit reward functions are named {self.__name__!r}; TRL would log "
                "the mean of both under that name. Pass name= to tell them apart.",
                stacklevel=4,
            )
        _NAMED[self.__name__] = self

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.__name__!r}, {self.scorer!r})"

    def _rewards(
        self, results: list[SampleResult], kwargs: Mapping[str, Any]
    ) -> list[float | None]:
        rewards = [r.reward for r in results]
        judges = dict.fromkeys(o.name for r in results for o in r.outcomes)
        if self.log is not None:
            logged: dict[str, list[float | None]] = {"reward": list(rewards)}
            for judge in judges:
                logged[judge] = [r.judges.get(judge) for r in results]
            self.log(logged)
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):  # TRL ≥ 1.16: scalars, averaged over each logging step
            for judge in judges:
                values = [v for r in results if (v := r.judges.get(judge)) is not None]
                if values:
                    log_metric(f"{self.__name__}/{judge}", sum(values) / len(values))
            invalid = sum(r.reward is None for r in results) / max(len(results), 1)
            log_metric(f"{self.__name__}/invalid", invalid)
        return rewards


class TrlRewardFunc(_Trl):
    """A TRL reward function; build it with `trl_reward_func`."""

    def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float | None]:
        results = self.scorer.score_batch(_samples(prompts, completions, kwargs))
        return self._rewards(results, kwargs)


class TrlAsyncRewardFunc(_Trl):
    """A TRL `async` reward function; build it with `trl_async_reward_func`."""

    async def __call__(
        self, prompts: Sequence[Any], completions: Sequence[Any], **kwargs: Any
    ) -> list[float | None]:
        results = await self.scorer.score_batch_async(_samples(prompts, completions, kwargs))
        return self._rewards(results, kwargs)


def trl_reward_func(
    scorer: Scorer, *, name: str | None = None, log: LogHook | None = None
) -> TrlRewardFunc:
    """A reward function for TRL's `GRPOTrainer(reward_funcs=[...])`.

    TRL calls it as `f(prompts=..., completions=..., **columns)`: prompts and completions are
    strings, or lists of messages for conversational datasets; every other dataset column
    arrives as a list with one item per completion. `ground_truth`, `workspace`,
    `trajectory` and `metadata` columns fill those sample fields; the other columns go into
    `metadata`. An invalid sample scores `None`, which TRL leaves out of the reward.

    Args:
        name: TRL's name for it (default: `scorer.name`, from the config). Two live adapters
            of one name warn, as TRL would merge their logs.
        log: called per batch with every reward and every judge's values.

    When TRL passes `log_metric` (TRL 1.16), each judge's batch mean is logged as
    `<name>/<judge>`, and the share of invalid samples as `<name>/invalid`.

    Example:
        >>> from rewardkit import load, reward_function
        >>> @reward_function
        ... def exact(messages, ground_truth=None, **kwargs):
        ...     return messages[-1]["content"] == ground_truth
        >>> f = trl_reward_func(load([exact]))
        >>> f(prompts=["2+2?", "3+3?"], completions=["4", "7"], ground_truth=["4", "6"])
        [1.0, 0.0]
    """
    return TrlRewardFunc(scorer, name=name, log=log)


def trl_async_reward_func(
    scorer: Scorer, *, name: str | None = None, log: LogHook | None = None
) -> TrlAsyncRewardFunc:
    """The `async def` form of `trl_reward_func`, for trainers that await reward functions."""
    return TrlAsyncRewardFunc(scorer, name=name, log=log)


class VerlComputeScore:
    """verl's `compute_score`, one sample or a batch; build it with `verl_compute_score`."""

    __name__ = "compute_score"

    def __init__(self, scorer: Scorer, *, invalid: float) -> None:
        self.scorer = scorer
        self.invalid = invalid
        """What an invalid sample scores (verl needs a float)."""
        self.warned = False

    def __repr__(self) -> str:
        return f"VerlComputeScore({self.scorer!r}, invalid={self.invalid})"

    @overload
    def __call__(
        self,
        data_source: Any,
        solution_str: str,
        ground_truth: Any,
        extra_info: Any = None,
        **kwargs: Any,
    ) -> float: ...

    @overload
    def __call__(
        self,
        *,
        data_sources: Sequence[Any],
        solution_strs: Sequence[str],
        ground_truths: Sequence[Any],
        extra_infos: Sequence[Any] | None = None,
        **kwargs: Any,
    ) -> list[float]: ...

    def __call__(
        self,
        data_source: Any = None,
        solution_str: str | None = None,
        ground_truth: Any = None,
        extra_info: Any = None,
        *,
        data_sources: Sequence[Any] | None = None,
        solution_strs: Sequence[str] | None = None,
        ground_truths: Sequence[Any] | None = None,
        extra_infos: Sequence[Any] | None = None,
        **_: Any,
    ) -> float | list[float]:
        if solution_strs is not None:  # BatchRewardManager's keyword call
            n = len(solution_strs)
            sources = list(data_sources) if data_sources is not None else [None] * n
            truths = list(ground_truths) if ground_truths is not None else [None] * n
            extras = list(extra_infos) if extra_infos is not None else [None] * n
            samples = [
                _verl_sample(*item)
                for item in zip(sources, solution_strs, truths, extras, strict=True)
            ]
            return [self._reward(r) for r in self.scorer.score_batch(samples)]
        if solution_str is None:
            raise TypeError(
                "compute_score needs solution_str (one sample) or solution_strs (a batch)"
            )
        sample = _verl_sample(data_source, solution_str, ground_truth, extra_info)
        return self._reward(self.scorer.score(sample))

    def _reward(self, result: SampleResult) -> float:
        if result.reward is not None:
            return result.reward
        if not self.warned:
            self.warned = True
            warnings.warn(
                f"rewardkit: an invalid sample scored {self.invalid} for verl, which needs a "
                f"float ({result.error}); later ones are not reported. See SampleResult.error "
                "with Scorer.score_batch.",
                RuntimeWarning,
                stacklevel=3,
            )
        return self.invalid


def verl_compute_score(scorer: Scorer, *, invalid: float = 0.0) -> VerlComputeScore:
    """verl's `compute_score(data_source, solution_str, ground_truth, extra_info=None)`.

    The same object takes verl's batch call, `compute_score(data_sources=...,
    solution_strs=..., ground_truths=..., extra_infos=...)` (`reward_manager: batch`), and
    returns a list. verl needs a float for every response, so an invalid sample scores
    `invalid` (0.0), with a `RuntimeWarning` the first time (use the TRL adapter or
    `score_batch` to see invalid samples as `None`). `extra_info` goes into the sample's
    `metadata` with `data_source`; its `prompt`, `workspace` and `trajectory` keys, when
    present, fill those sample fields.

    Example:
        >>> from rewardkit import load, reward_function
        >>> @reward_function
        ... def exact(messages, ground_truth=None, **kwargs):
        ...     return messages[-1]["content"] == ground_truth
        >>> verl_compute_score(load([exact]))("gsm8k", "4", "4")
        1.0
    """
    return VerlComputeScore(scorer, invalid=invalid)


def _verl_sample(
    data_source: Any, solution_str: str, ground_truth: Any, extra_info: Any
) -> dict[str, Any]:
    extra = dict(extra_info) if isinstance(extra_info, Mapping) else {}
    sample: dict[str, Any] = {
        "completion": solution_str,
        "ground_truth": ground_truth,
        "metadata": {"data_source": data_source, **extra},
    }
    for key in ("prompt", "workspace", "trajectory"):
        if extra.get(key) is not None:
            sample[key] = extra[key]
    return sample


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
