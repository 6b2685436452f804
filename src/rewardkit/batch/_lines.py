"""Rollout lines, read as the untrusted input they are: streamed, size-capped, parsed under caps.

A line is never read whole past its cap (a 2 GiB line without a newline costs one buffer),
and a line that cannot be a sample — over the cap, not UTF-8 JSON, nested too deep, too many
values, not an object, a bad `id` — raises `LineError`, which the runner reports and records.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import IO, Any

from rewardkit.core._untrusted import MAX_CHARS, MAX_DEPTH, MAX_VALUES, CapExceeded, loads_json

__all__ = [
    "MAX_ID_CHARS",
    "MAX_LINE_MIB",
    "LineError",
    "SampleId",
    "parse_line",
    "read_lines",
    "take_group",
]

MAX_LINE_MIB = 64
"""The default cap on one rollout line (`--max-line-mib`)."""
MAX_ID_CHARS = 1_000
"""The longest `id` accepted: ids are kept in memory for resume and written on every result."""
SampleId = str | int
_SKIP_CHUNK = 1 << 20
_SHORT = min(MAX_VALUES, MAX_CHARS)
"""A line this long or longer may break a cap of `loads_json` (see there): parsed by it."""
_scan: Callable[[str, int], tuple[Any, int]]
_scan = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # made by its __init__


class LineError(ValueError):
    """Why one rollout line cannot be scored: a sentence, without the line number."""


def read_lines(source: IO[bytes], cap: int) -> Iterator[tuple[int, bytes | None]]:
    """Each line's number and bytes; `None` for a line over `cap` bytes, skipped unread."""
    number = 0
    while line := source.readline(cap + 1):
        number += 1
        if len(line) > cap and not line.endswith(b"\n"):
            while (rest := source.readline(_SKIP_CHUNK)) and not rest.endswith(b"\n"):
                pass
            yield number, None
        else:
            yield number, line


def parse_line(raw: bytes | None, number: int, cap: int) -> tuple[SampleId, dict[str, Any]]:
    """The id (default: `number`) and the sample fields of one line.

    Raises:
        LineError: the line is over `cap` bytes, not a JSON object, over a cap, or has a bad id.
    """
    if raw is None:
        raise LineError(
            f"the line is longer than {cap:,} bytes (the cap); raise --max-line-mib, or keep "
            "large content in the sample's workspace"
        )
    brackets = raw.count(b"[") + raw.count(b"{")
    commas_and_brackets = raw.count(b",") + brackets
    if commas_and_brackets >= MAX_VALUES:  # counted, not parsed: a line of `{},` costs nothing
        raise LineError(
            f"the line has {commas_and_brackets:,} commas and brackets, over the cap of "
            f"{MAX_VALUES:,} values in a sample"
        )
    quick = brackets < MAX_DEPTH and len(raw) < _SHORT  # cannot reach a cap: see `loads_json`
    data = _quick(raw) if quick else None
    try:
        if data is None:
            data = loads_json(raw, "the line")
    except CapExceeded as exc:
        raise LineError(str(exc)) from None
    except ValueError as exc:  # not JSON, not UTF-8, an integer of over 4,300 digits
        raise LineError(f"not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise LineError(f"must be a JSON object (got {type(data).__name__})")
    return _checked("id", data.pop("id", number)), data


def _quick(raw: bytes) -> dict[str, Any] | None:
    """`raw` as an object when it is plain UTF-8 JSON; None for anything else (then parsed
    by `loads_json`, which says what is wrong)."""
    if raw[:1] != b"{":
        return None
    try:
        text = raw.decode()
        data, end = _scan(text, 0)
    except (ValueError, StopIteration):
        return None
    return None if text[end:].strip(" \t\n\r") else data


def take_group(data: dict[str, Any]) -> SampleId | None:
    """Remove and return the line's `group` (e.g. a GRPO prompt id), checked like an `id`.

    Raises:
        LineError: the group is not a string or an integer, or is too long.
    """
    group = data.pop("group", None)
    return None if group is None else _checked("group", group)


def _checked(field: str, value: object) -> SampleId:
    """`value` as the line's `field` (`id` or `group`): a string or an integer, not too long."""
    if (type(value) is str and len(value) <= MAX_ID_CHARS) or type(value) is int:
        return value  # the common case, quickly
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise LineError(f"'{field}' must be a string or an integer (got {_short(value)})")
    if isinstance(value, str) and len(value) > MAX_ID_CHARS:
        got = f"{len(value):,}"
        raise LineError(f"'{field}' must be at most {MAX_ID_CHARS:,} characters (got {got})")
    return value


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:57]}..."
