"""Result lines of `rewardkit score`, encoded where the sample was scored.

A worker process turns each `SampleResult` into a `Written`: the JSON line itself plus the
few facts the driver counts, in a tuple (`write_forked`). Sending that back costs a string
and a small tuple, where a pickled `SampleResult` with its outcomes costs the driver more to
rebuild than a cheap reward takes to score.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from functools import partial
from itertools import islice
from typing import TYPE_CHECKING, Any

from rewardkit.batch._backends import EvalBackend
from rewardkit.batch._lines import SampleId
from rewardkit.batch._result import SampleResult
from rewardkit.batch._scorer import Scorer
from rewardkit.batch._sizes import ChunkSizes
from rewardkit.compose._traps import ScaleWatch

if TYPE_CHECKING:
    from rewardkit.batch._forked import ForkedPool
    from rewardkit.core._outcome import Outcome

__all__ = [
    "Key",
    "Outcomes",
    "Put",
    "Row",
    "Written",
    "encode",
    "result_row",
    "write_forked",
    "written",
]

Row = dict[str, Any]
"""One results-file line as a plain dict."""
Key = tuple[SampleId, int, SampleId | None]
"""A rollout's id, line number and group."""


Written = tuple[str, int, float | None, str | None, tuple[str, ...], bool, float, "Outcomes"]
"""One result line, ready to append, and what the driver counts of it: `(text, line, reward,
error, no_value, zero_despite, seconds, outcomes)`, that is the JSON line with its newline,
its line number, the reward (`None` when invalid), the error, the judges without a value
(failed, or abstained), whether a valid reward of 0 came with a judge above 0, how long the
sample took, and the outcomes, only when a `ScaleWatch` saw a judge's number off its scale
(for the driver to warn). A plain tuple: the cheapest thing to pickle back."""
Outcomes = tuple["Outcome", ...]
Put = Callable[[list[Written]], None]
"""Appends result lines to the results file, in one write (and counts them)."""


def result_row(sample_id: SampleId, line: int, group: SampleId | None, result: SampleResult) -> Row:
    """One results-file line as a plain dict (picklable, for remote workers)."""
    row: Row = {"id": sample_id, "line": line}
    if group is not None:
        row["group"] = group
    row["reward"] = result.reward
    row |= {"valid": result.valid, "judges": result.judges}
    if result.error is not None:
        row["error"] = result.error
    outcomes = () if result._judge else result.outcomes  # a `judged` result has no usage
    usage = [o.extra["usage"] for o in outcomes if "usage" in o.extra]
    if usage:  # the sample's model calls, as its judges recorded them
        from rewardkit.models._usage import Usage

        row["usage"] = sum(map(Usage.from_dict, usage), Usage()).as_dict()
    return row


def written(row: Row, seconds: float = 0.0) -> Written:
    """`row` encoded, with its counts."""
    judges = row["judges"]
    reward = row["reward"] if row["valid"] else None
    values = judges.values()
    zero = reward == 0 and any((value or 0) > 0 for value in values)
    no_value = tuple(k for k, v in judges.items() if v is None) if None in values else ()
    return f"{_dumps(row)}\n", row["line"], reward, row.get("error"), no_value, zero, seconds, ()


def encode(key: Key, result: SampleResult, watch: ScaleWatch | None = None) -> Written:
    """The result line of the rollout `key` (in a worker: see `ForkedPool.score_chunk`).

    With `watch`, the outcomes travel too when it sees a judge's number off its scale.
    """
    judge = result._judge
    if judge is not None and key[2] is None:  # one judge, its score the reward: `written`'s line
        ident, line, reward = key[0], key[1], result.reward
        name = _names.get(judge) or _names.setdefault(judge, _dumps(judge))
        text = (
            f'{{"id": {_string(ident) if type(ident) is str else _dumps(ident)}, "line": {line}, '
            f'"reward": {reward!r}, "valid": true, '
            f'"judges": {{{name}: {reward!r}}}}}\n'
        )
        return text, line, reward, None, (), False, result.duration_s, ()
    done = written(result_row(*key, result), result.duration_s)
    if watch is not None and watch.see(result.outcomes):
        return (*done[:-1], result.outcomes)
    return done


def write_forked(
    scorer: Scorer, pool: ForkedPool, items: Iterator[tuple[Key, dict[str, Any]]], put: Put
) -> None:
    """Score `items` in `pool`, `scorer.max_concurrent` chunks at once, each result line
    encoded in its worker; put each chunk's lines as it finishes.

    A failure to read `items` (a repeated id) ends the run once the chunks read are put.
    """
    width = scorer.max_concurrent
    sizes = ChunkSizes()
    backend = scorer.backend
    watch = backend.watch if isinstance(backend, EvalBackend) else None
    threads = ThreadPoolExecutor(width, thread_name_prefix="rewardkit-score")
    running: set[Future[list[Written]]] = set()
    stop: Exception | None = None
    try:
        while True:
            while stop is None and len(running) < width:
                chunk: list[tuple[Key, dict[str, Any]]] = []
                try:
                    chunk.extend(islice(items, sizes.next))  # keeps what came before
                except Exception as exc:
                    stop = exc
                if not chunk:
                    break
                left = ScaleWatch(watch.where, watch.left) if watch and watch.left else None
                finish = partial(encode, watch=left)  # a chunk's watch; this driver's warns
                keys, samples = [key for key, _ in chunk], [sample for _, sample in chunk]
                running.add(threads.submit(pool.score_chunk, samples, keys=keys, finish=finish))
            if not running:
                if stop is not None:
                    raise stop
                return
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for work in finished:
                running.remove(work)
                lines = work.result()
                sizes.learn([line[6] for line in lines])  # each sample's seconds
                if isinstance(backend, EvalBackend):
                    for line in lines:
                        if line[7]:  # its outcomes: a judge's number off its scale
                            backend.check_ranges(line[7])
                put(lines)
    finally:
        threads.shutdown(wait=False, cancel_futures=True)


def _line_encoder() -> Callable[[Any], str]:
    """`JSONEncoder(ensure_ascii=False).encode`, with its C encoder made once, not once per
    line; without the check for cycles, as a row has none."""
    plain = json.JSONEncoder(ensure_ascii=False)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # a Python without the C accelerator
        return plain.encode
    one = make(
        None, plain.default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True
    )
    return lambda row: "".join(one(row, 0))


_dumps = _line_encoder()
_string = json.encoder.encode_basestring  # `_dumps` of a str, sooner
_names: dict[str, str] = {}
"""Judge names as JSON strings, encoded once."""
