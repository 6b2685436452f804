"""`load`: one reward definition (a tests directory, an eval.yaml, reward functions) loaded
once, as a `Scorer` for many samples."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rewardkit.batch._backends import (
    Backend,
    EvalBackend,
    FunctionsBackend,
    TestsDirBackend,
    load_backend,
)
from rewardkit.batch._scorer import MEMORY_MIB, ON_ERROR, Recipe, Scorer
from rewardkit.core._errors import ConfigError
from rewardkit.core._outcome import ErrorPolicy

__all__ = ["Source", "load"]

Source = str | Path | Sequence[Callable[..., Any]] | Mapping[str, Callable[..., Any]]
"""What `load` reads: a tests directory, an eval.yaml, or reward functions."""


def load(
    source: Source,
    *,
    reward: Mapping[str, Any] | None = None,
    deadline: float | None = None,
    max_concurrent: int = 8,
    memory_mib: int = MEMORY_MIB,
    on_error: ErrorPolicy = "fail",
) -> Scorer:
    """Load a reward once; return a `Scorer` for many samples.

    Args:
        source: a tests directory, an eval.yaml (or its directory), `@reward_function`s as a
            list or a `{judge name: function}` dict, or one as a `"module:function"` string
            (imported with the working directory on `sys.path`).
        reward: for functions only, an eval.yaml-style `reward:` mapping composing them (the
            default composition otherwise: the mean of their scores).
        deadline: seconds one sample may take; past it the sample is invalid. With a
            deadline, samples run in forked worker processes that the deadline kills.
        max_concurrent: samples scored at once in `score_batch`.
        memory_mib: with a deadline, how many MiB a worker process may grow by (its
            `RLIMIT_AS`, on Linux); a sample that needs more is invalid.
        on_error: how a judge that errors or times out counts: `fail` (the sample is
            invalid), `zero` (the judge scores its lowest value) or `omit` (it is left out,
            like a judge that abstains).

    Raises:
        ConfigError: the source, `reward` or an option is wrong (before anything is scored).

    Warns:
        UserWarning: the eval.yaml's `reward:` block has a silent-zero trap (see
            `rewardkit check`).

    Example:
        >>> from rewardkit import reward_function
        >>> @reward_function
        ... def exact(messages, ground_truth=None, **kwargs):
        ...     return messages[-1]["content"] == ground_truth
        >>> load([exact]).score({"prompt": "2+2?", "completion": "4", "ground_truth": "4"}).reward
        1.0
    """
    if max_concurrent < 1:
        raise ConfigError(f"max_concurrent must be at least 1 (got {max_concurrent})")
    if deadline is not None and not deadline > 0:
        raise ConfigError(f"deadline must be a positive number of seconds (got {deadline})")
    if memory_mib < 1:
        raise ConfigError(f"memory_mib must be at least 1 (got {memory_mib})")
    if on_error not in ON_ERROR:
        raise ConfigError(f"on_error must be one of {', '.join(ON_ERROR)} (got {on_error!r})")
    backend = load_backend(source, reward)
    recipe = Recipe(
        source=_portable_source(backend, source),
        reward=reward,
        deadline=deadline,
        max_concurrent=max_concurrent,
        memory_mib=memory_mib,
        on_error=on_error,
        token=uuid.uuid4().hex,
    )
    return recipe.build(backend)


def _portable_source(
    backend: Backend, source: object
) -> str | tuple[tuple[str, Callable[..., Any]], ...]:
    if isinstance(source, str) and isinstance(backend, FunctionsBackend):  # module:function
        return source
    if isinstance(backend, EvalBackend):
        return str(backend.suite.path.resolve())
    if isinstance(backend, TestsDirBackend):
        return str(Path(str(source)).resolve())
    return tuple((name, fn) for name, fn, _ in backend.functions)
