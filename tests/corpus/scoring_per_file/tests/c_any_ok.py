import rewardkit as rk

rk.file_exists("missing.txt")
rk.file_exists("b.txt")
