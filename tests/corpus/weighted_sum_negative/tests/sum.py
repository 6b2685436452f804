import rewardkit as rk

rk.file_exists("a.txt", weight=-1)
rk.file_exists("b.txt", weight=3)
rk.file_exists("missing.txt", weight=-4)
