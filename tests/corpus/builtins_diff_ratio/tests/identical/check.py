import rewardkit as rk

rk.diff_ratio("poem.txt", "roses are red\nviolets are blue")
