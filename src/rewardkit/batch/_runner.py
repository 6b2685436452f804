"""The JSONL runner behind `rewardkit score`: rollouts in, one result line per sample out.

Each rollout line is a JSON object of sample fields plus an optional `id` (default: its line
number). Each result line is `{"id", "line", "reward", "valid", "judges", "error"?}`, written
and flushed as soon as its sample finishes, so a killed run resumes where it stopped:
samples whose `id` is already in the results file are skipped.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from rewardkit.batch._result import SampleResult
from rewardkit.batch._scorer import Scorer

__all__ = ["RunCounts", "done_ids", "result_line", "result_row", "run_jsonl", "score_jsonl"]

BadLine = Callable[[int, str], None]
"""Called with the line number and the problem of each malformed rollout line."""
Items = Iterator[tuple[tuple[Any, int], dict[str, Any]]]
"""`((id, line number), sample fields)` for each rollout left to score."""
Writer = Callable[[Items, IO[str], dict[str, int]], None]
"""Scores `Items`, appends their result lines to the sink and counts them (a backend)."""


@dataclass(frozen=True)
class RunCounts:
    """What one `score_jsonl` call did."""

    scored: int
    invalid: int
    skipped: int
    """Already in the results file."""
    malformed: int


def done_ids(out: Path) -> set[str]:
    """The ids (as JSON text, so `1` and `"1"` differ) already in the results file."""
    if not out.is_file():
        return set()
    ids = set()
    with out.open(encoding="utf-8") as lines:
        for line in lines:
            try:
                ids.add(json.dumps(json.loads(line)["id"]))
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a crash: that sample is scored again
    return ids


def result_row(sample_id: Any, line: int, result: SampleResult) -> dict[str, Any]:
    """One results-file line as a plain dict (picklable, for remote workers)."""
    row: dict[str, Any] = {"id": sample_id, "line": line, "reward": result.reward}
    row |= {"valid": result.valid, "judges": result.judges}
    if result.error is not None:
        row["error"] = result.error
    return row


def result_line(sample_id: Any, line: int, result: SampleResult) -> str:
    """One results-file line (no newline)."""
    return json.dumps(result_row(sample_id, line, result), ensure_ascii=False)


def score_jsonl(
    scorer: Scorer,
    rollouts: Path,
    out: Path,
    *,
    on_bad_line: BadLine,
    on_result: Callable[[SampleResult], None] | None = None,
) -> RunCounts:
    """Score every rollout of `rollouts` not yet in `out`; append a line per sample to `out`."""

    def write(items: Items, sink: IO[str], counts: dict[str, int]) -> None:
        asyncio.run(_write(scorer, items, sink, counts, on_result))

    return run_jsonl(write, rollouts, out, on_bad_line=on_bad_line)


def run_jsonl(write: Writer, rollouts: Path, out: Path, *, on_bad_line: BadLine) -> RunCounts:
    """Resume, read and check the rollouts, and let `write` score those left (any backend)."""
    skip = done_ids(out)
    counts = {"scored": 0, "invalid": 0, "skipped": 0, "malformed": 0}

    def bad(number: int, problem: str) -> None:
        counts["malformed"] += 1
        on_bad_line(number, problem)

    out.parent.mkdir(parents=True, exist_ok=True)
    _end_with_newline(out)
    with rollouts.open(encoding="utf-8") as source, out.open("a", encoding="utf-8") as sink:
        write(_read(source, skip, bad, counts), sink, counts)
    return RunCounts(**counts)


async def _write(
    scorer: Scorer,
    items: Items,
    sink: IO[str],
    counts: dict[str, int],
    on_result: Callable[[SampleResult], None] | None,
) -> None:
    async for (sample_id, number), result in scorer.stream(items):
        sink.write(result_line(sample_id, number, result) + "\n")
        sink.flush()
        counts["scored" if result.valid else "invalid"] += 1
        if on_result is not None:
            on_result(result)


def _read(source: IO[str], skip: set[str], bad: BadLine, counts: dict[str, int]) -> Items:
    for number, line in enumerate(source, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as exc:
            bad(number, f"not valid JSON ({exc})")
            continue
        if not isinstance(data, dict):
            bad(number, f"must be a JSON object (got {type(data).__name__})")
            continue
        sample_id = data.pop("id", number)
        if not isinstance(sample_id, str | int) or isinstance(sample_id, bool):
            bad(number, f"'id' must be a string or an integer (got {sample_id!r})")
            continue
        if json.dumps(sample_id) in skip:
            counts["skipped"] += 1
            continue
        yield (sample_id, number), data


def _end_with_newline(out: Path) -> None:
    """A crash can leave a partial last line; start the next result on a line of its own."""
    if out.is_file() and out.stat().st_size:
        with out.open("rb") as f:
            f.seek(-1, 2)
            last = f.read(1)
        if last != b"\n":
            with out.open("a", encoding="utf-8") as f:
                f.write("\n")
