import rewardkit as rk

rk.file_contains("absent.txt", "x")
rk.file_contains_regex("absent.txt", "x")
rk.file_matches("absent.txt", "x")
rk.files_equal("present.txt", "absent.txt")
rk.files_equal("absent.txt", "present.txt")
rk.diff_ratio("absent.txt", "x")
rk.json_key_equals("absent.json", "k", 1)
rk.json_path_equals("absent.json", "a.b", 1)
rk.csv_cell_equals("absent.csv", 0, 0, "x")
rk.csv_cell_equals("absent.csv", 0, "col", "x")
rk.xlsx_cell_equals("absent.xlsx", "A1", "x")
rk.sqlite_query_equals("absent.db", "SELECT 1", 1)
rk.image_similarity("absent.png", "absent.png")
rk.image_size_equals("absent.png", 1, 1)
rk.file_exists("present.txt")  # the only pass: 1 of 15
