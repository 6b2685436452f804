"""The JSONL runner behind `rewardkit score`: rollouts in, one result line per rollout out.

Each rollout line is a JSON object of sample fields plus an optional `id` (default: its line
number) and `group` (e.g. the GRPO prompt id, copied to its result). The file is read once,
as it is scored. Ids must be unique: they are checked as they are read (`SeenIds`); a line
with a repeated id is not scored, and the run ends with an error naming both lines. Each
result line is `{"id", "line", "group"?, "reward", "valid", "judges", "error"?, "usage"?}`;
the lines of each chunk of samples are written and flushed together as it finishes, whole, so
a killed run resumes where it stopped:
rollouts whose `id` is already in the results file are skipped (with `retry_invalid`, only
those with a valid result). A line that cannot be a sample (see `_lines`) is reported and
written as an invalid result with its line number as id; the rest are scored.

Over 350 lines: one streaming loop (read, check ids, score, write, resume) whose steps share the
open files and the counters.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardkit.batch._bloom import Bloom
from rewardkit.batch._lines import (
    MAX_LINE_MIB,
    LineError,
    SampleId,
    parse_line,
    read_lines,
    take_group,
)
from rewardkit.batch._rows import Key, Put, Row, Written, encode, result_row, write_forked, written
from rewardkit.batch._scorer import Scorer
from rewardkit.compose._traps import silent_zero_flag
from rewardkit.core._errors import ConfigError
from rewardkit.core._untrusted import loads_json

__all__ = [
    "MAX_LINE_BYTES",
    "Key",
    "Progress",
    "Row",
    "RunCounts",
    "SeenIds",
    "done_results",
    "result_row",
    "rollouts_left",
    "run_jsonl",
    "score_jsonl",
]

MAX_LINE_BYTES = MAX_LINE_MIB << 20
Progress = Callable[[int], None]
"""Told how many result lines were just written (a progress bar)."""
Emit = Callable[[list[Row]], None]
"""Appends scored rows to the results file, in one write (and counts them)."""
BadLine = Callable[[int, str], None]
"""Called with the line number and the problem of each rollout line that cannot be scored."""
Items = Iterator[tuple[Key, dict[str, Any]]]
"""`((id, line number, group), sample fields)` for each rollout left to score."""
Writer = Callable[[Items, Emit], None]
"""Scores `Items` and emits their result rows (a backend)."""


@dataclass
class RunCounts:
    """What one run did."""

    scored: int = 0
    """Samples scored with a valid reward."""
    invalid: int = 0
    """Samples scored without one (a bad field, a judge error, the deadline)."""
    skipped: int = 0
    """Already in the results file."""
    malformed: int = 0
    """Lines that cannot be a sample (reported and written as invalid)."""
    valid_before: int = 0
    """Skipped rollouts whose earlier result is valid."""
    retried: int = 0
    """Invalid results dropped from the results file to be scored again (`retry_invalid`)."""
    example: tuple[int, str] | None = None
    """The invalid line of this run with the lowest number, and its error."""
    reward_sum: float = 0.0
    """The sum of this run's valid rewards."""
    no_value: Counter[str] = field(default_factory=Counter)
    """Per judge, this run's samples where it had no value (it failed, or abstained)."""
    zero_despite: int = 0
    """This run's valid rewards of 0 where some judge scored above 0."""

    @property
    def any_invalid(self) -> bool:
        """True when some rollout has no valid result (this run's, or an earlier one)."""
        return self.invalid + self.malformed + self.skipped - self.valid_before > 0

    @property
    def none_valid(self) -> bool:
        """True when there were rollouts and not one has a valid result."""
        tried = self.invalid + self.malformed + self.skipped
        return tried > 0 and self.scored + self.valid_before == 0

    def add(self, done: Written) -> None:
        """Count one scored result line."""
        _, line, reward, error, no_value, zero_despite, _, _ = done
        for name in no_value:
            self.no_value[name] += 1
        if reward is not None:
            self.scored += 1
            self.reward_sum += reward
            self.zero_despite += zero_despite
        else:
            self.invalid += 1
            self.note(line, error)

    def summary(self, seconds: float) -> str:
        """The end-of-run lines after the counts: mean reward, time, judges without a value."""
        done = self.scored + self.invalid
        lines = []
        if self.scored:
            lines.append(
                f"mean reward {self.reward_sum / self.scored:.4f} over {self.scored} valid"
            )
        if done:
            lines.append(f"{done} rollouts in {seconds:.1f} s ({done / max(seconds, 1e-9):,.0f}/s)")
        gaps = ", ".join(f"{name} {count}" for name, count in self.no_value.most_common())
        text = "; ".join(lines)
        return text + (f"\nno value (failed or abstained) from: {gaps}" if gaps else "")

    def flag(self) -> str | None:
        """A warning when the reward is 0 while a judge scored above 0 on over a tenth of
        the valid samples: a silent zero (a judge read on the wrong scale, say)."""
        return silent_zero_flag(self.zero_despite, self.scored, "rollouts")

    def note(self, line: int, error: str | None) -> None:
        """Keep the invalid `line` as the example if it comes first in the file."""
        if self.example is None or line < self.example[0]:
            self.example = (line, str(error))


def done_results(out: Path) -> dict[str, bool]:
    """Each id already in `out` (see `_key`), and whether its result is valid."""
    if not out.is_file():
        return {}
    done = {}
    with out.open("rb") as source:
        for _, raw in read_lines(source, MAX_LINE_BYTES):
            try:
                row = loads_json(raw or b"", "a result line")
                done[_key(row["id"])] = bool(row["valid"])
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a crash: that sample is scored again
    return done


class SeenIds:
    """The ids read so far, in a fixed 32 MiB whatever their number (a `Bloom` filter, which
    may answer "seen" for a new id: about once in 10^10 ids up to a million, once in 10^4 at
    ten million, but never "new" for a seen one).

    A line whose id may have been seen waits (`hold`); once `HOLD` lines wait, or the file
    has been read, one more pass over the ids tells real repeats from false alarms
    (`settle`), so a run reads the file at most once more per `HOLD` waiting lines.
    """

    HOLD = 1_000

    def __init__(self, rollouts: Path, cap: int) -> None:
        self.rollouts = rollouts
        self.cap = cap
        self.bloom = Bloom(28, 6)
        self.held: list[tuple[SampleId, int, Any]] = []
        """(id, line number, what to do with the line once it is cleared)."""

    def new(self, sample_id: SampleId) -> bool:
        """Record an id; False when it may have been seen (then `hold` its line)."""
        return not self.bloom.add(sample_id)

    def hold(self, sample_id: SampleId, number: int, line: Any) -> None:
        self.held.append((sample_id, number, line))

    def settle(self) -> list[Any]:
        """The held lines whose id is new, in order; forgets them all.

        Raises:
            ConfigError: a held line repeats an earlier line's id (naming both lines).
        """
        held, self.held = self.held, []
        if not held:
            return []
        wanted = {(i, type(i)) for i, _, _ in held}
        first: dict[tuple[SampleId, type], int] = {}
        for number, raw in _lines(self.rollouts, self.cap):
            try:
                sample_id: SampleId = parse_line(raw, number, self.cap)[0]
            except LineError:
                sample_id = number  # what it is recorded under
            key = (sample_id, type(sample_id))
            if key in wanted:
                first.setdefault(key, number)
        repeats = [(first.get((i, type(i)), n), n) for i, n, _ in held]
        repeats = [(earlier, n) for earlier, n in repeats if earlier < n]
        if repeats:
            (earlier, number), more = repeats[0], len(repeats) - 1
            sample_id = next(i for i, n, _ in held if n == number)
            also = f" ({more} more repeated ids)" if more else ""
            raise ConfigError(
                f"id {_key(sample_id)} is on lines {earlier} and {number}{also}. Give every "
                "rollout a unique 'id' (a line without one has its line number as id); the "
                "lines with a repeated id were not scored, the others were.",
                path=self.rollouts,
            )
        return [line for _, _, line in held]


def rollouts_left(rollouts: Path, out: Path, cap: int = MAX_LINE_BYTES) -> int:
    """About how many rollouts are left to score (for a progress bar); nothing is parsed."""
    return max(sum(1 for _ in _lines(rollouts, cap)) - len(done_results(out)), 0)


def score_jsonl(
    scorer: Scorer,
    rollouts: Path,
    out: Path,
    *,
    on_bad_line: BadLine,
    on_result: Progress | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    retry_invalid: bool = False,
) -> RunCounts:
    """Score every rollout of `rollouts` not yet in `out`; append a line per rollout to `out`.

    With worker processes (a deadline), each result line is encoded in the worker that
    scored it (see `_rows`).
    """

    def write(items: Items, put: Put) -> None:
        if scorer._forked is not None:
            write_forked(scorer, scorer._forked, items, put)
        else:
            asyncio.run(_write(scorer, items, put))

    return _run(
        write,
        rollouts,
        out,
        on_bad_line=on_bad_line,
        on_result=on_result,
        max_line_bytes=max_line_bytes,
        retry_invalid=retry_invalid,
    )


def run_jsonl(
    write: Writer,
    rollouts: Path,
    out: Path,
    *,
    on_bad_line: BadLine,
    on_result: Progress | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
    retry_invalid: bool = False,
) -> RunCounts:
    """Resume, read the rollouts, and let `write` score those left (any backend).

    With `retry_invalid`, invalid results are first removed from `out` (atomically), so
    their rollouts are scored again.

    Raises:
        ConfigError: two rollouts share an id (when the second is read).
    """

    def write_rows(items: Items, put: Put) -> None:
        write(items, lambda rows: put([written(row) for row in rows]))

    return _run(
        write_rows,
        rollouts,
        out,
        on_bad_line=on_bad_line,
        on_result=on_result,
        max_line_bytes=max_line_bytes,
        retry_invalid=retry_invalid,
    )


def _run(
    write: Callable[[Items, Put], None],
    rollouts: Path,
    out: Path,
    *,
    on_bad_line: BadLine,
    on_result: Progress | None,
    max_line_bytes: int,
    retry_invalid: bool,
) -> RunCounts:
    counts = RunCounts()
    if retry_invalid:
        counts.retried = drop_invalid(out)
    done = done_results(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _end_with_newline(out)
    with out.open("a", encoding="utf-8") as sink:

        def append(lines: list[Written]) -> None:
            sink.write("".join(line[0] for line in lines))  # their text
            sink.flush()
            if on_result is not None:
                on_result(len(lines))

        def put(lines: list[Written]) -> None:
            for line in lines:
                counts.add(line)
            append(lines)

        def bad(number: int, problem: str) -> None:
            row: Row = {"id": number, "line": number, "reward": None, "valid": False}
            row |= {"judges": {}, "error": problem}
            counts.malformed += 1
            counts.note(number, problem)
            on_bad_line(number, problem)
            if _key(number) not in done:
                append([written(row)])

        write(_read(rollouts, max_line_bytes, done, counts, bad), put)
    return counts


def drop_invalid(out: Path) -> int:
    """Remove every invalid result line from `out` (and lines cut short); return how many."""
    if not out.is_file():
        return 0
    kept, dropped = [], 0
    with out.open("rb") as source:
        for _, raw in read_lines(source, MAX_LINE_BYTES):
            try:
                valid = bool(loads_json(raw or b"", "a result line")["valid"])
            except (ValueError, KeyError, TypeError):
                valid = False
            if valid and raw is not None:
                kept.append(raw if raw.endswith(b"\n") else raw + b"\n")
            else:
                dropped += raw is not None and not raw.isspace()
    if dropped:
        from rewardkit.core._files import atomic_write

        atomic_write(out, b"".join(kept).decode("utf-8", "replace"))
    return dropped


async def _write(scorer: Scorer, items: Items, put: Put) -> None:
    async for chunk in scorer.stream_chunks(items):
        put([encode(key, result) for key, result in chunk])


def _read(
    rollouts: Path, cap: int, done: dict[str, bool], counts: RunCounts, bad: BadLine
) -> Items:
    seen = SeenIds(rollouts, cap)
    for number, raw in _lines(rollouts, cap):
        try:
            sample_id, data = parse_line(raw, number, cap)
            line: Any = ((sample_id, number, take_group(data)), data)
        except LineError as exc:
            sample_id, line = number, (number, str(exc))
        if seen.new(sample_id):
            if _left(line, done, counts, bad):
                yield line
            continue
        seen.hold(sample_id, number, line)
        if len(seen.held) >= seen.HOLD:
            yield from (cleared for cleared in seen.settle() if _left(cleared, done, counts, bad))
    yield from (cleared for cleared in seen.settle() if _left(cleared, done, counts, bad))


def _left(line: Any, done: dict[str, bool], counts: RunCounts, bad: BadLine) -> bool:
    """True for a read line left to score; one that is malformed is reported, one already
    done is counted."""
    key, data = line
    if isinstance(key, int):  # (line number, problem)
        bad(key, data)
        return False
    valid = done.get(_key(key[0])) if done else None
    if valid is not None:
        counts.skipped += 1
        counts.valid_before += valid
        return False
    return True


def _key(sample_id: object) -> str:
    """An id as JSON text, so that `1` and `"1"` are two ids."""
    return json.dumps(sample_id)


def _lines(rollouts: Path, cap: int) -> Iterator[tuple[int, bytes | None]]:
    """The non-blank lines of `rollouts`, streamed (see `read_lines`)."""
    with rollouts.open("rb") as source:
        for number, raw in read_lines(source, cap):
            if raw is None or not raw.isspace():
                yield number, raw


def _end_with_newline(out: Path) -> None:
    """A crash can leave a partial last line; start the next result on a line of its own."""
    if out.is_file() and out.stat().st_size:
        with out.open("rb") as f:
            f.seek(-1, 2)
            last = f.read(1)
        if last != b"\n":
            with out.open("a", encoding="utf-8") as f:
                f.write("\n")
