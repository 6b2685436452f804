import rewardkit as rk

rk.file_exists("a.txt", weight=3)
rk.file_exists("missing.txt")
