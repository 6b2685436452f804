"""Batch scoring for RL: `load` a reward once, score many samples, plug into trainers."""

from rewardkit.batch._adapters import (
    LogHook,
    trl_async_reward_func,
    trl_reward_func,
    verl_compute_score,
)
from rewardkit.batch._load import load
from rewardkit.batch._result import SampleResult
from rewardkit.batch._sample import FIELDS, Sample, SampleError, as_sample
from rewardkit.batch._scorer import SampleLike, Scorer

__all__ = [
    "FIELDS",
    "LogHook",
    "Sample",
    "SampleError",
    "SampleLike",
    "SampleResult",
    "Scorer",
    "as_sample",
    "load",
    "trl_async_reward_func",
    "trl_reward_func",
    "verl_compute_score",
]
