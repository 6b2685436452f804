import rewardkit as rk

rk.image_similarity("base.png", "one_pixel.png")
