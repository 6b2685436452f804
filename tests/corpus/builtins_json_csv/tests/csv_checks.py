import rewardkit as rk

# Passing (sum 63).
rk.csv_cell_equals("table.csv", 0, 1, "score", weight=1)  # int col: row 0 is the header
rk.csv_cell_equals("table.csv", 2, 0, "bob", weight=2)
rk.csv_cell_equals("table.csv", 0, "name", "alice", weight=4)  # str col: row 0 is data
rk.csv_cell_equals("table.csv", 1, "score", "7.5", weight=8)
rk.csv_cell_equals("table.csv", 1, 2, "x, y", weight=16)  # quoted cell
rk.csv_cell_equals("table.csv", 2, "note", "", weight=32)

# Failing.
rk.csv_cell_equals("table.csv", 1, 1, 10, weight=64)  # cells are strings
rk.csv_cell_equals("table.csv", 1, 9, "10", weight=128)  # column out of range
rk.csv_cell_equals("table.csv", 9, 0, "alice", weight=256)  # row out of range
rk.csv_cell_equals("table.csv", 0, "missing", "alice", weight=512)
rk.csv_cell_equals("table.csv", 9, "name", "alice", weight=1024)
rk.csv_cell_equals("table.csv", 0, 0, "alice", weight=2048)  # that is the header
