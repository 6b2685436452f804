"""Built-in criteria on structured data files: JSON, CSV, XLSX and SQLite.

Paths are confined to the workspace; a missing file scores False with a warning, while a
file that is present but malformed (bad JSON, a short CSV row, an unknown sheet) scores
False silently, as in Harbor RewardKit. Untrusted data is bounded: JSON nested deeper than
`MAX_DEPTH` and SQLite queries longer than `SQLITE_SECONDS` are error outcomes naming the cap.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rewardkit.core._untrusted import CapExceeded, loads_json
from rewardkit.criteria._registry import builtin
from rewardkit.criteria.files import _opened, _read_text, _warn_unreadable

__all__ = [
    "csv_cell_equals",
    "json_key_equals",
    "json_path_equals",
    "sqlite_query_equals",
    "xlsx_cell_equals",
]

SQLITE_SECONDS = 10.0
"""The longest a `sqlite_query_equals` query may run (an agent's view can recurse forever)."""

_INVALID = object()  # what `_load_json` returns for a missing or malformed file


def _load_json(crit: str, workspace: Path, path: str) -> Any:
    """Parse a confined JSON file; `_INVALID` if it is missing (warned) or malformed.

    Raises:
        CapExceeded: the document is nested too deeply or holds too many values.
    """
    text = _read_text(crit, workspace, path)
    if text is None:
        return _INVALID
    try:
        return loads_json(text, f"{crit}: '{path}'")
    except CapExceeded:
        raise
    except ValueError:
        return _INVALID


@builtin("Check that {path} has key '{key}' equal to {expected!r}")
def json_key_equals(workspace: Path, path: str, key: str, expected: object) -> bool:
    """True if the file holds a JSON object whose `key` equals `expected`."""
    data = _load_json("json_key_equals", workspace, path)
    return isinstance(data, dict) and key in data and bool(data[key] == expected)


@builtin("Check that {path}[{json_path}] == {expected!r}")
def json_path_equals(workspace: Path, path: str, json_path: str, expected: object) -> bool:
    """True if the value at the dotted `json_path` equals `expected`.

    Each segment indexes an object by key or an array by integer position.
    """
    data = _load_json("json_path_equals", workspace, path)
    if data is _INVALID:
        return False
    for segment in json_path.split("."):
        try:
            if isinstance(data, dict):
                data = data[segment]
            elif isinstance(data, list):
                data = data[int(segment)]
            else:
                return False
        except (KeyError, IndexError, ValueError):
            return False
    return bool(data == expected)


@builtin("Check that {path}[{row},{col}] == {expected!r}")
def csv_cell_equals(workspace: Path, path: str, row: int, col: int | str, expected: str) -> bool:
    """True if a CSV cell equals `expected` (compared as strings).

    An integer `col` counts rows from the header (row 0); a column name counts data rows
    (row 0 is the first row after the header).
    """
    import csv
    from io import StringIO

    text = _read_text("csv_cell_equals", workspace, path, encoding="utf-8-sig", newline="")
    if text is None or row < 0:
        return False
    lines = StringIO(text, newline="")  # keep line ends: quoted cells may hold newlines
    try:
        if isinstance(col, str):
            for index, record in enumerate(csv.DictReader(lines)):
                if index == row:
                    return bool(record.get(col) == expected)
        else:
            for index, cells in enumerate(csv.reader(lines)):
                if index == row:
                    return 0 <= col < len(cells) and cells[col] == expected
    except csv.Error:
        return False
    return False


@builtin("Check that {path}[{cell}] == {expected!r}")
def xlsx_cell_equals(
    workspace: Path, path: str, cell: str, expected: object, sheet: str | None = None
) -> bool:
    """True if the cell's cached value (formulas as last computed) equals `expected`.

    Raises:
        ImportError: openpyxl is not installed.
    """
    try:
        import openpyxl
    except ImportError:
        raise ImportError(
            "xlsx_cell_equals needs openpyxl: pip install 'rewardkit[office]'"
        ) from None
    from zipfile import BadZipFile

    from openpyxl.utils.exceptions import InvalidFileException

    try:  # a handle, not a name: openpyxl would judge the file by its extension
        with _opened("xlsx_cell_equals", workspace, path) as handle:
            if handle is None:
                return False
            book = openpyxl.load_workbook(handle, read_only=True, data_only=True)
            try:
                sheet_obj = book[sheet] if sheet else book.active
                return bool(sheet_obj[cell].value == expected)
            except (KeyError, ValueError, IndexError, TypeError, AttributeError):
                return False
            finally:
                book.close()
    except (OSError, BadZipFile, InvalidFileException, KeyError, ValueError) as exc:
        _warn_unreadable("xlsx_cell_equals", path, exc)
        return False


@builtin("Check that query on {db_path} returns {expected!r}")
def sqlite_query_equals(workspace: Path, db_path: str, query: str, expected: object) -> bool:
    """True if the first column of the query's first row equals `expected`.

    The database is opened read-only and immutable through the verified handle (so a swapped
    symlink cannot redirect it), and the query is interrupted after `SQLITE_SECONDS`.

    Raises:
        CapExceeded: the query ran past `SQLITE_SECONDS`.
    """
    with _opened("sqlite_query_equals", workspace, db_path) as handle:
        if handle is None:
            return False
        return _query_first(f"/proc/self/fd/{handle.fileno()}", db_path, query, expected)


def _query_first(uri_path: str, db_path: str, query: str, expected: object) -> bool:
    import sqlite3
    import time
    from contextlib import closing
    from urllib.parse import quote

    deadline = time.monotonic() + SQLITE_SECONDS
    uri = f"file:{quote(uri_path)}?mode=ro&immutable=1"
    try:
        with closing(sqlite3.connect(uri, uri=True)) as conn:
            conn.execute("PRAGMA trusted_schema = OFF")
            conn.set_progress_handler(lambda: time.monotonic() > deadline, 10_000)
            first = conn.execute(query).fetchone()
    except sqlite3.OperationalError as exc:
        if time.monotonic() > deadline and "interrupt" in str(exc):
            raise CapExceeded(
                f"sqlite_query_equals: the query on '{db_path}' ran past the "
                f"{SQLITE_SECONDS:g} s cap"
            ) from None
        return False
    except sqlite3.Error:
        return False
    return first is not None and len(first) > 0 and bool(first[0] == expected)
