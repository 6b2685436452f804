import rewardkit as rk

rk.image_similarity("base.png", "wide.png")
