"""Built-in data criteria: JSON, CSV, XLSX, SQLite."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

import pytest

from rewardkit.core._untrusted import CapExceeded
from rewardkit.criteria import data


def run(crit: str, ws: Path, *args: object, **kwargs: object) -> object:
    return getattr(data, crit).make_check(args, kwargs).evaluate(ws)


def make_db(path: Path) -> None:
    with closing(sqlite3.connect(path)) as conn:
        conn.executescript(
            "CREATE TABLE t (name TEXT, n INTEGER);"
            "INSERT INTO t VALUES ('a', 1), ('b', 2), ('c', 3);"
        )
        conn.commit()


def make_xlsx(path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Main"
    sheet["A1"] = "total"
    sheet["B1"] = 42
    sheet["C1"] = "=1+1"  # no cached value: openpyxl does not compute formulas
    other = book.create_sheet("Other")
    other["A1"] = "elsewhere"
    book.save(path)


def _fixture_file(crit: str, ws: Path, name: str) -> None:
    """Create, at `ws/name`, a file on which the standard PASSING call of `crit` passes."""
    target = ws / name
    if crit in ("json_key_equals", "json_path_equals"):
        target.write_text(json.dumps({"a": {"b": [10, 20]}}))
    elif crit == "csv_cell_equals":
        target.write_text("k,v\nx,1\n")
    elif crit == "xlsx_cell_equals":
        make_xlsx(target)
    else:
        make_db(target)


PASSING: dict[str, tuple[object, ...]] = {
    "json_key_equals": ("a", {"b": [10, 20]}),
    "json_path_equals": ("a.b.1", 20),
    "csv_cell_equals": (0, "v", "1"),
    "xlsx_cell_equals": ("B1", 42),
    "sqlite_query_equals": ("SELECT count(*) FROM t", 3),
}


@pytest.mark.parametrize("crit", sorted(PASSING))
def test_pass_and_missing(ws: Path, crit: str) -> None:
    _fixture_file(crit, ws, "data.bin")
    assert run(crit, ws, "data.bin", *PASSING[crit]) is True
    with pytest.warns(UserWarning, match=rf"^{crit}: 'gone' not found in workspace, assigning"):
        assert run(crit, ws, "gone", *PASSING[crit]) is False


@pytest.mark.parametrize("kind", ["absolute-symlink", "dotdot", "symlink"])
@pytest.mark.parametrize("crit", sorted(PASSING))
def test_never_reads_outside(ws: Path, tmp_path: Path, crit: str, kind: str) -> None:
    (tmp_path / "outside").mkdir()
    target = tmp_path / "outside" / "data.bin"
    _fixture_file(crit, tmp_path / "outside", "data.bin")  # would pass if read
    path = {"absolute-symlink": str(ws / "link"), "dotdot": "../outside/data.bin"}.get(kind, "link")
    (ws / "link").symlink_to(target)
    with pytest.warns(UserWarning, match=rf"^{crit}: .*assigning reward 0"):
        assert run(crit, ws, path, *PASSING[crit]) is False


def test_descriptions() -> None:
    cases = {
        ("json_key_equals", ("r.json", "k", "v")): "Check that r.json has key 'k' equal to 'v'",
        ("json_path_equals", ("r.json", "a.0", 1)): "Check that r.json[a.0] == 1",
        ("csv_cell_equals", ("t.csv", 2, "col", "x")): "Check that t.csv[2,col] == 'x'",
        ("xlsx_cell_equals", ("b.xlsx", "A1", 3.5)): "Check that b.xlsx[A1] == 3.5",
        ("sqlite_query_equals", ("d.db", "SELECT 1", 1)): "Check that query on d.db returns 1",
    }
    for (crit, args), text in cases.items():
        check = getattr(data, crit).make_check(args)
        assert check.description == text
        assert check.name == f"{crit}:{args[0]}"


def test_json_key_equals(ws: Path) -> None:
    (ws / "r.json").write_text('{"status": "ok", "n": 3, "none": null}')
    assert run("json_key_equals", ws, "r.json", "status", "ok") is True
    assert run("json_key_equals", ws, "r.json", "status", "bad") is False
    assert run("json_key_equals", ws, "r.json", "absent", None) is False
    assert run("json_key_equals", ws, "r.json", "none", None) is True
    (ws / "list.json").write_text('[["status", "ok"]]')
    assert run("json_key_equals", ws, "list.json", "status", "ok") is False


@pytest.mark.parametrize("crit", sorted(PASSING))
def test_an_authors_absolute_path_outside_the_workspace_is_read(
    ws: Path, tmp_path: Path, crit: str
) -> None:
    """As in RewardKit: the task author may name e.g. `/logs/verifier/reply.txt`."""
    (tmp_path / "logs").mkdir()
    _fixture_file(crit, tmp_path / "logs", "data.bin")
    assert run(crit, ws, str(tmp_path / "logs" / "data.bin"), *PASSING[crit]) is True


@pytest.mark.parametrize("crit", ["json_key_equals", "json_path_equals"])
def test_json_nested_past_the_cap_is_an_error_naming_it(ws: Path, crit: str) -> None:
    (ws / "r.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(CapExceeded, match=r"'r.json' is nested deeper than 100 levels \(the cap\)"):
        run(crit, ws, "r.json", "a", 1)


@pytest.mark.parametrize("crit", ["json_key_equals", "json_path_equals"])
@pytest.mark.parametrize("content", ["{not json", "[" * 50, ""])
def test_bad_json_is_false_without_warning(ws: Path, crit: str, content: str) -> None:
    (ws / "r.json").write_text(content)
    assert run(crit, ws, "r.json", "k", "v") is False


def test_json_path_equals(ws: Path) -> None:
    doc = {"a": {"b": [{"c": 1}, {"c": "two"}]}, "s": "text", "n": None}
    (ws / "r.json").write_text(json.dumps(doc))
    assert run("json_path_equals", ws, "r.json", "a.b.1.c", "two") is True
    assert run("json_path_equals", ws, "r.json", "a.b.0", {"c": 1}) is True
    assert run("json_path_equals", ws, "r.json", "n", None) is True
    assert run("json_path_equals", ws, "r.json", "a.b.0.c", 2) is False
    assert run("json_path_equals", ws, "r.json", "a.x", None) is False  # missing key
    assert run("json_path_equals", ws, "r.json", "a.b.5", None) is False  # out of range
    assert run("json_path_equals", ws, "r.json", "a.b.first", None) is False  # not an index
    assert run("json_path_equals", ws, "r.json", "s.0", "t") is False  # a string is a leaf


def test_csv_cell_equals(ws: Path) -> None:
    (ws / "t.csv").write_text("name,score\nalice,90\nbob,75\n")
    # integer column: row 0 is the header
    assert run("csv_cell_equals", ws, "t.csv", 0, 1, "score") is True
    assert run("csv_cell_equals", ws, "t.csv", 2, 0, "bob") is True
    assert run("csv_cell_equals", ws, "t.csv", 2, 1, 75) is False  # compared as strings
    # named column: row 0 is the first data row
    assert run("csv_cell_equals", ws, "t.csv", 0, "score", "90") is True
    assert run("csv_cell_equals", ws, "t.csv", 1, "name", "bob") is True
    # out of range
    for row, col in [(3, 0), (0, 2), (2, "score2"), (2, "name"), (-1, 0), (0, -1)]:
        assert run("csv_cell_equals", ws, "t.csv", row, col, "bob") is False


def test_csv_cell_equals_bom_and_quoted_newlines(ws: Path) -> None:
    (ws / "t.csv").write_bytes(b'\xef\xbb\xbfid,text\r\n1,"two\r\nlines"\r\n2,x\r\n')
    assert run("csv_cell_equals", ws, "t.csv", 0, "id", "1") is True
    assert run("csv_cell_equals", ws, "t.csv", 0, "text", "two\r\nlines") is True
    assert run("csv_cell_equals", ws, "t.csv", 2, 1, "x") is True


def test_xlsx_cell_equals(ws: Path) -> None:
    make_xlsx(ws / "b.xlsx")
    assert run("xlsx_cell_equals", ws, "b.xlsx", "A1", "total") is True
    assert run("xlsx_cell_equals", ws, "b.xlsx", "B1", 42) is True
    assert run("xlsx_cell_equals", ws, "b.xlsx", "B1", 41) is False
    assert run("xlsx_cell_equals", ws, "b.xlsx", "C1", None) is True  # cached value only
    assert run("xlsx_cell_equals", ws, "b.xlsx", "A1", "elsewhere", sheet="Other") is True
    assert run("xlsx_cell_equals", ws, "b.xlsx", "A1", "total", sheet="Nope") is False
    assert run("xlsx_cell_equals", ws, "b.xlsx", "not a cell", None) is False


def test_xlsx_read_through_a_link_with_another_extension(ws: Path) -> None:
    make_xlsx(ws / "b.data")
    (ws / "b.xlsx").symlink_to("b.data")
    assert run("xlsx_cell_equals", ws, "b.xlsx", "B1", 42) is True


def test_xlsx_not_a_workbook(ws: Path) -> None:
    pytest.importorskip("openpyxl")
    (ws / "b.xlsx").write_text("just text")
    with pytest.warns(UserWarning, match=r"'b.xlsx' could not be read \(BadZipFile\)"):
        assert run("xlsx_cell_equals", ws, "b.xlsx", "A1", None) is False


def test_xlsx_without_openpyxl(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openpyxl", None)
    with pytest.raises(ImportError, match=r"pip install 'rewardkit\[office\]'"):
        run("xlsx_cell_equals", ws, "b.xlsx", "A1", None)


def test_sqlite_query_equals(ws: Path) -> None:
    make_db(ws / "d.db")
    assert run("sqlite_query_equals", ws, "d.db", "SELECT n FROM t WHERE name='b'", 2) is True
    assert run("sqlite_query_equals", ws, "d.db", "SELECT n FROM t WHERE name='b'", 3) is False
    assert run("sqlite_query_equals", ws, "d.db", "SELECT n FROM t WHERE name='z'", None) is False
    assert run("sqlite_query_equals", ws, "d.db", "SELECT nope FROM t", None) is False
    assert run("sqlite_query_equals", ws, "d.db", "SELECT 1; SELECT 2", 1) is False


def test_sqlite_is_opened_read_only(ws: Path) -> None:
    make_db(ws / "d.db")
    assert run("sqlite_query_equals", ws, "d.db", "DELETE FROM t RETURNING 1", 1) is False
    assert run("sqlite_query_equals", ws, "d.db", "DROP TABLE t", None) is False
    assert run("sqlite_query_equals", ws, "d.db", "SELECT count(*) FROM t", 3) is True
    assert sorted(os.listdir(ws)) == ["d.db"]  # no journal or new file was created


def test_sqlite_awkward_file_names(ws: Path) -> None:
    for name in ["my db?.sqlite", "a#b%20c.db"]:
        make_db(ws / name)
        assert run("sqlite_query_equals", ws, name, "SELECT max(n) FROM t", 3) is True


def test_sqlite_not_a_database(ws: Path) -> None:
    (ws / "d.db").write_text("plain text, long enough to have a header " * 10)
    assert run("sqlite_query_equals", ws, "d.db", "SELECT count(*) FROM t", 0) is False
    (ws / "dir.db").mkdir()
    with pytest.warns(UserWarning, match=r"'dir.db' could not be read \(not a regular file\)"):
        assert run("sqlite_query_equals", ws, "dir.db", "SELECT 1", 1) is False
