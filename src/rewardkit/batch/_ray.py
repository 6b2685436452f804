"""`rewardkit score --backend ray`: the JSONL runner with samples scored by Ray actors.

The driver keeps everything the local runner does (resume, line checks and reports, the
progress bar, one flushed line per sample) through `run_jsonl`; only the scoring moves. A pool
of `workers` actors each `load()` the config once and score chunks of samples, returning the
result lines as plain dicts. At most two chunks per actor are in flight, so a long input is
never held in memory and no actor waits on the driver.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit._errors import ConfigError
from rewardkit.batch._chunks import CHUNK_SIZE, Chunk, Loader, chunks, score_chunk
from rewardkit.batch._runner import (
    MAX_LINE_BYTES,
    BadLine,
    Emit,
    Items,
    Row,
    RunCounts,
    run_jsonl,
)
from rewardkit.batch._scorer import MEMORY_MIB

if TYPE_CHECKING:
    from rewardkit.batch._scorer import Scorer

__all__ = ["INSTALL", "RayMissing", "require_ray", "score_jsonl_ray"]

INSTALL = "pip install 'rewardkit[ray]'"


class RayMissing(ConfigError):
    """`--backend ray` without Ray installed."""

    def __init__(self) -> None:
        super().__init__(f"--backend ray needs Ray. Install it with: {INSTALL}")


def require_ray() -> Any:
    """The `ray` module.

    Raises:
        RayMissing: Ray is not installed.
    """
    try:  # by name: mypy and the import stay optional, like the extra
        return importlib.import_module("ray")
    except ImportError:
        raise RayMissing() from None


class ChunkScorer:
    """A Ray actor's body: the config loaded once, then chunks of samples scored on threads."""

    def __init__(self, loader: Loader) -> None:
        self.scorer: Scorer = loader.load()

    def score(self, chunk: Chunk) -> list[Row]:
        return score_chunk(self.scorer, chunk)


def score_jsonl_ray(
    config: Path,
    rollouts: Path,
    out: Path,
    *,
    workers: int,
    deadline: float | None = None,
    max_concurrent: int = 8,
    memory_mib: int = MEMORY_MIB,
    chunk_size: int = CHUNK_SIZE,
    on_bad_line: BadLine,
    on_result: Emit | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> RunCounts:
    """`score_jsonl` on a Ray cluster: `workers` actors, each scoring `max_concurrent` at once.

    Unless Ray is already initialized, connects with `ray.init()` (so `RAY_ADDRESS` picks a
    cluster; a local instance otherwise) once there is something to score, and shuts down at
    the end. `config` must be readable at the same path on every node.

    Raises:
        RayMissing: Ray is not installed.
        ConfigError: two rollouts share an id, or an actor could not load `config` (e.g. the
            path is missing on its node).
    """
    ray = require_ray()
    started = False
    actors: list[Any] = []

    loader = Loader(str(config.resolve()), deadline, max_concurrent, memory_mib)

    def write(items: Items, emit: Emit) -> None:
        nonlocal started
        pending = chunks(items, chunk_size)
        if (first := next(pending, None)) is None:
            return  # nothing left to score (e.g. a finished run resumed): Ray is not needed
        if not ray.is_initialized():
            ray.init()
            started = True
        remote = ray.remote(ChunkScorer).options(scheduling_strategy="SPREAD")
        actors.extend(remote.remote(loader) for _ in range(workers))
        for row in _scored(ray, actors, chain([first], pending)):
            emit(row)

    try:
        return run_jsonl(
            write,
            rollouts,
            out,
            on_bad_line=on_bad_line,
            on_result=on_result,
            max_line_bytes=max_line_bytes,
        )
    except ray.exceptions.RayActorError as exc:
        raise ConfigError(
            f"a Ray worker could not load the config ({exc.__class__.__name__}). "
            "Make it readable at the same path on every node.",
            path=config,
        ) from exc
    finally:
        for actor in actors:
            ray.kill(actor)
        if started:  # a local instance (or connection) of our own: close it with the run
            ray.shutdown()


def _scored(ray: Any, actors: list[Any], todo: Iterator[Chunk]) -> Iterator[Row]:
    """Rows as chunks finish; each actor has at most two chunks in flight."""
    owner: dict[Any, Any] = {}

    def submit(actor: Any) -> None:
        if (chunk := next(todo, None)) is not None:
            owner[actor.score.remote(chunk)] = actor

    for actor in actors * 2:
        submit(actor)
    while owner:
        [ready], _ = ray.wait(list(owner), num_returns=1)
        actor = owner.pop(ready)
        submit(actor)
        yield from ray.get(ready)
