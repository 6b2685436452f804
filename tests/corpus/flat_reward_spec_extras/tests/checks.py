import rewardkit as rk

rk.file_exists("out.txt")
rk.file_contains("out.txt", "hello", weight=2.0)
rk.file_contains("out.txt", "nope")
