import rewardkit as rk

# Both pass, but the total weight is 0: the file scores 0.0.
rk.file_exists("a.txt", weight=0)
rk.file_exists("b.txt", weight=0.0)
