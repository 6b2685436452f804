import rewardkit as rk

rk.image_similarity("base.png", "base_rgba.png")
