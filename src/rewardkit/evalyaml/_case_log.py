"""`cases.jsonl`: `rewardkit eval`'s results, appended as cases finish and read to resume.

Each line is `{"case_id", "reward", "judges"}`: the case's `per_case` entry of summary.json.
A chunk of cases is appended with one write, so a killed run leaves whole lines and at
most one cut short, which is ignored. A run into the same directory skips every case whose
line is there and fits the suite (the same judges, in order; with `retry_invalid`, none of
them errored); the last such line of a case wins. At the end the file is rewritten
(atomically) with one line per case in case order, so a run killed and resumed ends with the
same file as one never stopped. Memory: one integer per case, whatever the lines hold.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from io import BufferedReader, FileIO
from pathlib import Path
from types import TracebackType
from typing import Any

from rewardkit.core._files import atomic_writer, remove_output
from rewardkit.evalyaml._case_names import CaseNames

__all__ = ["CASES_FILE", "CaseLog"]

CASES_FILE = "cases.jsonl"
_FAILED = ("error", "timeout")


class CaseLog:
    """The results file of one run over `names`, open for appending.

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as tmp:
        ...     path = Path(tmp) / CASES_FILE
        ...     with CaseLog(path, CaseNames(["a", "b"]), ["ok"]) as log:
        ...         ok = {"value": True, "status": "scored"}
        ...         log.append([("b", {"reward": 1.0, "judges": {"ok": ok}})])
        ...         list(log.missing())
        [0]
    """

    def __init__(
        self,
        path: Path,
        names: CaseNames,
        judges: Sequence[str],
        *,
        retry_invalid: bool = False,
    ) -> None:
        self.path = path
        self.names = names
        self._judges = list(judges)
        self._retry_invalid = retry_invalid
        self._start = array("q", [-1]) * len(names)
        """Where each case's line starts in the file (-1: none yet)."""
        self._last = -1
        self._ordered = True
        """The file holds only used lines, one per case, in case order."""
        self._end = 0
        self._torn = False
        """The file ends with a line cut short."""
        self.resumed = self._scan()
        """How many cases the file already held."""
        self._sink = self._open()

    def __enter__(self) -> CaseLog:
        return self

    def __exit__(self, *exc: type[BaseException] | BaseException | TracebackType | None) -> None:
        self._sink.close()

    def missing(self) -> Iterator[int]:
        """The positions of the cases without a line, in order."""
        return (i for i, start in enumerate(self._start) if start < 0)

    def append(self, entries: Iterable[tuple[str, Mapping[str, Any]]]) -> None:
        """Add each case's line, all with one write."""
        data = bytearray()
        for case_id, entry in entries:
            line = (json.dumps({"case_id": case_id, **entry}) + "\n").encode()
            index = self.names.index(case_id)
            if index is None:
                raise ValueError(f"{case_id!r} is not a case of this run")
            self._note(index, self._end + len(data))
            data += line
        view = memoryview(data)
        while view:
            view = view[self._sink.write(view) or 0 :]
        self._end += len(data)

    def finish(self) -> None:
        """Close the file and rewrite it in case order, one line per case (unless it is)."""
        self._sink.close()
        if self._ordered:
            return
        with self._read() as source, atomic_writer(self.path) as out:
            for start in self._start:
                if start >= 0:
                    source.seek(start)  # mostly forward, within what is buffered
                    out.write(source.readline().decode("utf-8", "replace"))

    def entries(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Each case's id and entry, in case order (after `finish`)."""
        with self._read() as source:
            for line in source:
                row = json.loads(line)
                yield row.pop("case_id"), row

    def _note(self, index: int, start: int) -> None:
        if self._start[index] >= 0 or index <= self._last:
            self._ordered = False
        self._start[index], self._last = start, index

    def _read(self) -> BufferedReader:
        return open(os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW), "rb")

    def _scan(self) -> int:
        """Index the lines already in the file; how many cases they cover."""
        if self.path.is_symlink() or not self.path.is_file():
            return 0  # a link is not ours to follow: `_open` replaces it
        with self._read() as source:
            for line in source:
                index = self._usable(line)
                if index is None:
                    self._ordered = False
                else:
                    self._note(index, self._end)
                self._end += len(line)
                self._torn = not line.endswith(b"\n")
        return sum(1 for start in self._start if start >= 0)

    def _usable(self, line: bytes) -> int | None:
        """The position of the line's case, when the line is whole and fits the run."""
        if not line.endswith(b"\n"):
            return None  # cut short by a kill
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            return None
        judges = row.get("judges") if isinstance(row, dict) else None
        case_id = row.get("case_id") if isinstance(row, dict) else None
        if not isinstance(judges, dict) or list(judges) != self._judges:
            return None
        if not isinstance(case_id, str) or not isinstance(row.get("reward"), int | float):
            return None
        if not all(isinstance(j, dict) and _fits(j) for j in judges.values()):
            return None
        if self._retry_invalid and any(j.get("status") in _FAILED for j in judges.values()):
            return None
        return self.names.index(case_id)

    def _open(self) -> FileIO:
        """The file, opened to append (never through a link planted in its place)."""
        if self.path.is_symlink() or self.path.is_dir():
            remove_output(self.path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW
        sink = FileIO(os.open(self.path, flags, 0o644), "ab")
        if self._torn:  # the next line starts on a line of its own
            sink.write(b"\n")
            self._end += 1
        return sink


def _fits(judge: Mapping[str, Any]) -> bool:
    """A judge's entry as summary.json needs it: a status, and a value when scored."""
    status = judge.get("status")
    if status == "scored":
        return isinstance(judge.get("value"), bool | int | float)
    return status in ("skipped", *_FAILED)
