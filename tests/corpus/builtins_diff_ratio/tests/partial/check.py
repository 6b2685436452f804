import rewardkit as rk

rk.diff_ratio("poem.txt", "roses are read\nviolins are blue!")
