import rewardkit as rk

# Passing (sum 63).
rk.xlsx_cell_equals("book.xlsx", "A1", "name", weight=1)
rk.xlsx_cell_equals("book.xlsx", "B2", 42, weight=2)
rk.xlsx_cell_equals("book.xlsx", "B3", 3.5, weight=4)
rk.xlsx_cell_equals("book.xlsx", "A1", "other sheet", sheet="Second", weight=8)
rk.xlsx_cell_equals("book.xlsx", "D9", None, weight=16)  # an empty cell
rk.xlsx_cell_equals("book.xlsx", "B2", 42.0, weight=32)

# Failing.
rk.xlsx_cell_equals("book.xlsx", "B2", "42", weight=64)  # a number, not text
rk.xlsx_cell_equals("book.xlsx", "A1", "Name", weight=128)
rk.xlsx_cell_equals("book.xlsx", "A1", "name", sheet="Nope", weight=256)
rk.xlsx_cell_equals("book.xlsx", "A2", "alice", sheet="Second", weight=512)
rk.xlsx_cell_equals("book.xlsx", "C2", 84, weight=1024)  # formula, no cached value
