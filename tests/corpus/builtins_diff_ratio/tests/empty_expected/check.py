import rewardkit as rk

rk.diff_ratio("poem.txt", "")
