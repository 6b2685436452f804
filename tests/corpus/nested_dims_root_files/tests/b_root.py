import rewardkit as rk

# 2 of 3: a root-level dimension worth 2/3.
rk.file_exists("out.txt")
rk.file_contains("out.txt", "world")
rk.file_contains("out.txt", "absent")
