"""Chunks of rollouts for the out-of-process backends (`--backend ray`, `--backend process`).

A worker loads the config once, then scores one chunk of `((id, line), sample)` items per
call and returns the result lines as plain dicts, cheap to pickle back to the driver.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import IO, TYPE_CHECKING, Any

from rewardkit.batch._runner import Items, result_row

if TYPE_CHECKING:
    from rewardkit.batch._scorer import Scorer

__all__ = ["CHUNK_SIZE", "Chunk", "Row", "chunks", "score_chunk", "write_rows"]

CHUNK_SIZE = 16
"""Samples sent to a worker at once: few round trips, yet an even spread over the workers."""
Chunk = list[tuple[tuple[Any, int], dict[str, Any]]]
Row = dict[str, Any]


def chunks(items: Items, size: int) -> Iterator[Chunk]:
    """`items` in lists of `size` (the last may be shorter), read as they are needed."""
    while chunk := list(islice(items, size)):
        yield chunk


def score_chunk(scorer: Scorer, chunk: Chunk) -> list[Row]:
    """The result lines of `chunk`, scored `scorer.max_concurrent` at once."""
    results = scorer.score_batch(sample for _, sample in chunk)
    return [result_row(i, line, r) for ((i, line), _), r in zip(chunk, results, strict=True)]


def write_rows(
    rows: Iterable[Row],
    sink: IO[str],
    counts: dict[str, int],
    on_result: Callable[[Row], None] | None,
) -> None:
    """The driver's side: append and flush each row as it arrives, and count it."""
    for row in rows:
        sink.write(json.dumps(row, ensure_ascii=False) + "\n")
        sink.flush()
        counts["scored" if row["valid"] else "invalid"] += 1
        if on_result is not None:
            on_result(row)
