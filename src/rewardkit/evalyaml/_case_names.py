"""The case directories of a run as a compact, sorted sequence of names.

A run may hold a million cases: a `Path` each costs ~300 bytes and a `str` each ~70, where
this keeps every name in one buffer (UTF-8) and where each ends (~20 bytes a case). The
directory is listed in batches, each sorted on its own and merged, so that no more than one
batch of `str` objects exists at a time.
"""

from __future__ import annotations

import bisect
import heapq
import os
from array import array
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path

__all__ = ["CaseNames"]

_BATCH = 4096
_SEP = "/"
"""Joins the names of a batch: no file name holds it."""


class CaseNames:
    """Names in `sorted()` order; indexable, iterable, and searched by bisection.

    Example:
        >>> names = CaseNames(["b", "a", "c"])
        >>> list(names), names[1], names.index("c"), names.index("x")
        (['a', 'b', 'c'], 'b', 2, None)
    """

    def __init__(self, names: Iterable[str]) -> None:
        batches, source, count, size = [], iter(names), 0, 0
        while batch := sorted(islice(source, _BATCH)):
            joined = _SEP.join(batch) + _SEP
            batches.append(joined)
            count += len(batch)
            size += len(_encode(joined)) - len(batch)
        self._text = bytearray(size)  # sized up front: growing it would leave copies behind
        self._ends = array("q", bytes(8 * (count + 1)))
        """Where each name ends in `_text` (the next one starts there), after a leading 0."""
        for i, name in enumerate(heapq.merge(*map(_split, batches)), 1):
            data = _encode(name)
            start = self._ends[i - 1]
            self._text[start : start + len(data)] = data
            self._ends[i] = start + len(data)

    @classmethod
    def listed(cls, root: Path) -> CaseNames:
        """The directories in `root` (or links to one), hidden ones left out."""
        with os.scandir(root) as entries:
            return cls(e.name for e in entries if not e.name.startswith(".") and e.is_dir())

    def __len__(self) -> int:
        return len(self._ends) - 1

    def __getitem__(self, index: int) -> str:
        if not -len(self) <= index < len(self):
            raise IndexError(f"case index {index} out of range")
        index %= len(self)
        name = self._text[self._ends[index] : self._ends[index + 1]]
        return name.decode("utf-8", "surrogateescape")

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))

    def index(self, name: str) -> int | None:
        """The position of `name`, or None when it is not one of the names."""
        at = bisect.bisect_left(self, name)
        return at if at < len(self) and self[at] == name else None


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")  # a name may hold bytes that are no UTF-8


def _split(joined: str) -> Iterator[str]:
    start = 0
    while (end := joined.find(_SEP, start)) != -1:
        yield joined[start:end]
        start = end + 1
