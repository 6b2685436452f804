import rewardkit as rk

rk.diff_ratio("poem.txt", "\n\n  roses are red\nviolets are blue  \n")
