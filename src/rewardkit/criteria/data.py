"""Built-in criteria on structured data files: JSON, CSV, XLSX and SQLite.

Paths are confined to the workspace; a missing file scores False with a warning, while a
file that is present but malformed (bad JSON, a short CSV row, an unknown sheet) scores
False silently, as in Harbor RewardKit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rewardkit.criteria._registry import builtin
from rewardkit.criteria.files import _read_text, _regular_file, _warn_unreadable

__all__ = [
    "csv_cell_equals",
    "json_key_equals",
    "json_path_equals",
    "sqlite_query_equals",
    "xlsx_cell_equals",
]

_INVALID = object()  # what `_load_json` returns for a missing or malformed file


def _load_json(crit: str, workspace: Path, path: str) -> Any:
    """Parse a confined JSON file; `_INVALID` if it is missing (warned) or malformed."""
    import json

    text = _read_text(crit, workspace, path)
    if text is None:
        return _INVALID
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
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

    target = _regular_file("xlsx_cell_equals", workspace, path)
    if target is None:
        return False
    try:  # a handle, not a name: openpyxl would judge the file by its extension
        with target.open("rb") as handle:
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

    The database is opened read-only, so a query cannot change it.
    """
    import sqlite3
    from contextlib import closing

    target = _regular_file("sqlite_query_equals", workspace, db_path)
    if target is None:
        return False
    try:
        with closing(sqlite3.connect(f"{target.as_uri()}?mode=ro", uri=True)) as conn:
            conn.execute("PRAGMA trusted_schema = OFF")
            first = conn.execute(query).fetchone()
    except sqlite3.Error:
        return False
    return first is not None and len(first) > 0 and bool(first[0] == expected)
