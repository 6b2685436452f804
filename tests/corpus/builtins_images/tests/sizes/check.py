import rewardkit as rk

rk.image_size_equals("base.png", 3, 3, weight=1)
rk.image_size_equals("wide.png", 4, 2, weight=2)
rk.image_size_equals("wide.png", 2, 4, weight=4)  # width and height swapped
rk.image_size_equals("base.png", 3, 4, weight=8)
