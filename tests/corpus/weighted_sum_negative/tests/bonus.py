import rewardkit as rk

rk.file_contains("a.txt", "a")
