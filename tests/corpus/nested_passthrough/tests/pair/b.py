import rewardkit as rk

rk.file_exists("missing.txt")
