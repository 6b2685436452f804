import rewardkit as rk

# Passing (sum 15).
rk.sqlite_query_equals("app.db", "SELECT COUNT(*) FROM users", 3, weight=1)
rk.sqlite_query_equals("app.db", "SELECT name FROM users WHERE id = 2", "bob", weight=2)
rk.sqlite_query_equals("app.db", "SELECT SUM(score) FROM users", 17.5, weight=4)
rk.sqlite_query_equals("app.db", "SELECT email FROM users WHERE id = 3", None, weight=8)

# Failing.
rk.sqlite_query_equals("app.db", "SELECT COUNT(*) FROM users", 4, weight=16)
rk.sqlite_query_equals("app.db", "SELECT name FROM users WHERE id = 99", None, weight=32)
rk.sqlite_query_equals("app.db", "SELECT * FROM no_such_table", 1, weight=64)
rk.sqlite_query_equals("app.db", "SELEC broken", 1, weight=128)
rk.sqlite_query_equals("app.db", "SELECT COUNT(*) FROM users", "3", weight=256)
