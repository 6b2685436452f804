import rewardkit as rk

# Passing (sum 511).
rk.json_key_equals("data.json", "name", "demo", weight=1)
rk.json_key_equals("data.json", "count", 3, weight=2)
rk.json_key_equals("data.json", "values", [1, 2, 3], weight=4)
rk.json_key_equals("data.json", "flag", 1, weight=8)  # true == 1
rk.json_path_equals("data.json", "meta.tags.1", "b", weight=16)
rk.json_path_equals("data.json", "items.0.id", 1, weight=32)
rk.json_path_equals("data.json", "items.-1.id", 3, weight=64)
rk.json_path_equals("data.json", "meta", {"tags": ["a", "b"], "owner": None}, weight=128)
rk.json_path_equals("data.json", "meta.owner", None, weight=256)

# Failing.
rk.json_key_equals("data.json", "name", "Demo", weight=512)
rk.json_key_equals("data.json", "absent", None, weight=1024)
rk.json_key_equals("list.json", "0", 1, weight=2048)  # top level is a list
rk.json_key_equals("bad.json", "name", "demo", weight=4096)  # not JSON
rk.json_path_equals("data.json", "meta.missing", "b", weight=8192)
rk.json_path_equals("data.json", "items.9.id", 1, weight=16384)
rk.json_path_equals("data.json", "items.x", 1, weight=32768)
rk.json_path_equals("data.json", "name.first", "d", weight=65536)  # into a string
rk.json_path_equals("bad.json", "name", "demo", weight=131072)
