"""Rollout lines: read under a size cap, parsed under the untrusted-JSON caps, ids checked."""

from __future__ import annotations

import io

import pytest

from rewardkit.batch._lines import MAX_ID_CHARS, LineError, parse_line, read_lines


def test_a_line_over_the_cap_is_skipped_unread_and_numbering_goes_on() -> None:
    source = io.BytesIO(b'{"a": 1}\n' + b"x" * 100 + b"\n" + b"y" * 5000 + b'\n{"b": 2}')
    assert list(read_lines(source, cap=50)) == [
        (1, b'{"a": 1}\n'),
        (2, None),
        (3, None),
        (4, b'{"b": 2}'),  # the last line needs no newline
    ]


def test_a_line_of_exactly_the_cap_is_read() -> None:
    line = b"z" * 10
    assert list(read_lines(io.BytesIO(line + b"\n" + line), cap=10)) == [
        (1, line + b"\n"),
        (2, line),
    ]


def test_an_over_long_last_line_costs_one_buffer() -> None:
    class Counting(io.BytesIO):
        largest = 0

        def readline(self, size: int | None = -1) -> bytes:
            line = super().readline(size)
            self.largest = max(self.largest, len(line))
            return line

    source = Counting(b"{}\n" + b"\0" * (8 << 20))  # 8 MiB without a newline
    assert list(read_lines(source, cap=1024)) == [(1, b"{}\n"), (2, None)]
    assert source.largest <= 1 << 20


def test_id_defaults_to_the_line_number() -> None:
    assert parse_line(b'{"completion": "4"}', 7, 100) == (7, {"completion": "4"})
    assert parse_line(b'{"id": "a", "completion": "4"}', 7, 100) == ("a", {"completion": "4"})


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (None, "longer than 100 bytes (the cap); raise --max-line-mib"),
        (b"[" * 100_000, "nested deeper than 100 levels (the cap)"),
        (b'{"a": ' + b"[" * 150 + b"]" * 150 + b"}", "nested deeper than 100 levels"),
        (b"[" + b"{}," * 1_000_000 + b"{}]", "2,000,002 commas and brackets, over the cap"),
        (b"{not json", "not valid JSON"),
        (b'{"a": "\xff"}', "not valid JSON"),
        (b'{"a": ' + b"9" * 5000 + b"}", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object (got list)"),
        (b'"text"', "must be a JSON object (got str)"),
        (b'{"id": [1]}', "'id' must be a string or an integer (got [1])"),
        (b'{"id": true}', "'id' must be a string or an integer (got True)"),
        (b'{"id": "' + b"i" * (MAX_ID_CHARS + 1) + b'"}', "'id' must be at most 1,000 characters"),
    ],
)
def test_lines_that_cannot_be_a_sample_say_why(raw: bytes | None, problem: str) -> None:
    cap = 100 if raw is None else len(raw)
    with pytest.raises(LineError) as caught:
        parse_line(raw, 3, cap)
    assert problem in str(caught.value)


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id": "a", "completion": "\xc3\xa9"}\n',
        b'\xef\xbb\xbf{"id": "bom"}\n',  # a UTF-8 byte order mark
        b' {"id": "space"}',
        '{"id": "wide"}'.encode("utf-16-le"),
        b'{"a": "\\ud800"}',  # a lone surrogate, escaped
        b'{"a": "\xff"}',  # not UTF-8
        b'{"a": ' + b"[" * 120 + b"]" * 120 + b"}",  # past the depth cap
        b'{"a": ' + b"9" * 5000 + b"}",  # past the integer digits limit
        b'{"a": 1} x',
        b"{",
    ],
)
def test_the_quick_parse_answers_as_the_untrusted_parser(raw: bytes) -> None:
    from rewardkit.core._untrusted import CapExceeded, loads_json

    try:
        data = loads_json(raw, "the line")
    except CapExceeded as exc:
        expected: object = str(exc)
    except ValueError as exc:
        expected = f"not valid JSON ({exc})"
    else:
        expected = data if isinstance(data, dict) else "not an object"
        if isinstance(data, dict):
            data.pop("id", None)
    try:
        got: object = parse_line(raw, 1, 1 << 20)[1]
    except LineError as exc:
        got = str(exc) if "must be a JSON object" not in str(exc) else "not an object"
    assert got == expected
