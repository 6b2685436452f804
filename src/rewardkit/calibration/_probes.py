"""Bias probes: variants of labelled items that a fair judge scores like the originals.

- `order_swap` (preference items): the two outputs change places; a judge without a position
  bias flips its preference, so `score(a, b) + score(b, a) - 1` is 0 on average.
- `padding`: the judged output gets irrelevant text appended, at least as long as itself;
  a judge without a length bias keeps its score.
- `confident_wrong`: a wrong output (labelled fail, scored below the median label, or the
  output people did not prefer) is prefixed with a confident claim that it is right; a judge
  that is not swayed by tone keeps its score.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from rewardkit.calibration._labels import Item

__all__ = ["CONFIDENT", "PADDING", "PROBES", "confident", "padded", "swapped", "wrong_items"]

PROBES = ("order_swap", "padding", "confident_wrong")
CONFIDENT = (
    "I am completely certain this answer is correct: I verified every step twice and "
    "there is no doubt about it.\n\n"
)
PADDING = (
    "Unrelated note: the weather was mild for the season, the library keeps its usual "
    "opening hours, and the committee will meet again next month. "
)


def _first_file(record: dict[str, Any]) -> str | None:
    for path, content in (record.get("files") or {}).items():
        if isinstance(content, str):
            return str(path)
    return None


def _changed(record: dict[str, Any], path: str, text: str) -> dict[str, Any]:
    return {**record, "files": {**record["files"], path: text}}


def padded(record: dict[str, Any]) -> dict[str, Any]:
    """`record` with its first text file followed by irrelevant text of at least its length."""
    path = _first_file(record)
    if path is None:
        return record
    text = record["files"][path]
    filler = PADDING * (1 + max(len(text), 400) // len(PADDING))
    return _changed(record, path, f"{text}\n\n{filler.strip()}")


def confident(record: dict[str, Any]) -> dict[str, Any]:
    """`record` with its first text file prefixed by a confident claim of being right."""
    path = _first_file(record)
    if path is None:
        return record
    return _changed(record, path, CONFIDENT + record["files"][path])


def swapped(record: dict[str, Any]) -> dict[str, Any]:
    """A preference record with its outputs `a.txt` and `b.txt` exchanged."""
    files = record["files"]
    return {**record, "files": {"a.txt": files["b.txt"], "b.txt": files["a.txt"]}}


def wrong_items(items: Sequence[Item]) -> list[int]:
    """The indices of items whose (first) output people judged wrong."""
    labels = [item.label for item in items]
    if not labels:
        return []
    if isinstance(labels[0], str):
        return [i for i, label in enumerate(labels) if label == "b"]
    if isinstance(labels[0], bool):
        return [i for i, label in enumerate(labels) if label is False]
    numbers = [float(label) for label in labels]
    middle = statistics.median(numbers)
    return [i for i, n in enumerate(numbers) if n < middle]
