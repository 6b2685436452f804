import rewardkit as rk

rk.file_exists("a.txt")
