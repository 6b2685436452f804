import rewardkit as rk

rk.file_exists("a.txt")
rk.file_exists("missing.txt")
