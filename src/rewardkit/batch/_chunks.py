"""Chunks of rollouts for the out-of-process backends (`--backend ray`, `--backend process`).

A worker loads the config once (`Loader`), then scores one chunk of `(key, sample)`
items per call and returns the result rows as plain dicts, cheap to pickle back to the driver.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Any

from rewardkit.batch._runner import Items, Key, Row, result_row
from rewardkit.batch._scorer import MEMORY_MIB

if TYPE_CHECKING:
    from rewardkit.batch._scorer import Scorer

__all__ = ["CHUNK_SIZE", "Chunk", "Loader", "chunks", "score_chunk"]

CHUNK_SIZE = 16
"""Samples sent to a worker at once: few round trips, yet an even spread over the workers."""
Chunk = list[tuple[Key, dict[str, Any]]]


@dataclass(frozen=True)
class Loader:
    """What a worker process or actor loads: picklable, unlike the scorer it builds."""

    config: str
    deadline: float | None = None
    max_concurrent: int = 8
    memory_mib: int = MEMORY_MIB

    def load(self) -> Scorer:
        from rewardkit.batch._load import load

        return load(
            self.config,
            deadline=self.deadline,
            max_concurrent=self.max_concurrent,
            memory_mib=self.memory_mib,
        )


def chunks(items: Items, size: int) -> Iterator[Chunk]:
    """`items` in lists of `size` (the last may be shorter), read as they are needed."""
    while chunk := list(islice(items, size)):
        yield chunk


def score_chunk(scorer: Scorer, chunk: Chunk) -> list[Row]:
    """The result rows of `chunk`, scored `scorer.max_concurrent` at once."""
    results = scorer.score_batch(sample for _, sample in chunk)
    return [result_row(*key, r) for (key, _), r in zip(chunk, results, strict=True)]
