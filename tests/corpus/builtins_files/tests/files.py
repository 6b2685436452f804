import rewardkit as rk

# Passing (1 + 2 + ... + 128 = 255 when all pass).
rk.file_exists("out.txt", weight=1)
rk.file_exists("subdir", weight=2)  # a directory counts
rk.file_not_exists("nope.txt", weight=4)
rk.file_contains("out.txt", "lo wor", weight=8)
rk.file_contains_regex("out.txt", r"wor\w+", weight=16)
rk.file_matches("out.txt", "  hello world\nsecond line  ", weight=32)
rk.files_equal("out.txt", "copy.txt", weight=64)  # equal after strip()
rk.file_contains_regex("out.txt", r"(?m)^second", weight=128)

# Failing.
rk.file_exists("nope.txt", weight=256)
rk.file_not_exists("out.txt", weight=512)
rk.file_contains("out.txt", "HELLO", weight=1024)
rk.file_contains_regex("out.txt", r"^second", weight=2048)  # no MULTILINE
rk.file_matches("out.txt", "hello world", weight=4096)
rk.files_equal("out.txt", "other.txt", weight=8192)
rk.file_not_exists("subdir", weight=16384)
