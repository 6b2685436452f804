"""Regenerate the binary workspace files of the corpus (.xlsx, .db, .png).

The generated files are committed; run this only to change them, then re-record the
affected cases with record.py:

    .venv/bin/python tests/corpus/make_binaries.py

Needs openpyxl and Pillow (the `all` extra).
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXED_TIME = dt.datetime(2024, 1, 1, 0, 0, 0)  # keeps the .xlsx bytes stable


def make_xlsx(path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "First"
    ws.append(["name", "value"])
    ws.append(["alice", 42])
    ws.append(["bob", 3.5])
    ws["C2"] = "=B2*2"  # a formula: openpyxl stores no cached value
    second = wb.create_sheet("Second")
    second["A1"] = "other sheet"
    second["A2"] = "bob"
    wb.properties.created = FIXED_TIME
    wb.properties.modified = FIXED_TIME
    wb.save(path)


def make_sqlite(path: Path) -> None:
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, score REAL, email TEXT)"
        )
        conn.executemany(
            "INSERT INTO users VALUES (?, ?, ?, ?)",
            [
                (1, "alice", 10.0, "a@example.com"),
                (2, "bob", 5.0, "b@example.com"),
                (3, "carol", 2.5, None),
            ],
        )
    conn.close()


def make_images(directory: Path) -> None:
    from PIL import Image

    pixels = [(10 * i, 20 * i, 255 - 10 * i) for i in range(9)]
    base = Image.new("RGB", (3, 3))
    base.putdata(pixels)
    base.save(directory / "base.png")
    base.save(directory / "base_copy.png")
    base.convert("RGBA").save(directory / "base_rgba.png")
    changed = base.copy()
    changed.putpixel((1, 1), (0, 0, 0))
    changed.save(directory / "one_pixel.png")
    Image.new("RGB", (4, 2), (255, 0, 0)).save(directory / "wide.png")


def main() -> None:
    make_xlsx(HERE / "builtins_xlsx_sqlite" / "workspace" / "book.xlsx")
    make_sqlite(HERE / "builtins_xlsx_sqlite" / "workspace" / "app.db")
    make_images(HERE / "builtins_images" / "workspace")


if __name__ == "__main__":
    main()
