import rewardkit as rk

rk.file_exists("out.txt")
rk.file_contains("out.txt", "hello")
rk.file_not_exists("missing.txt")
