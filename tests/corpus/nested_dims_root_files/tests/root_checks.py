import rewardkit as rk

# 1 of 3: a root-level dimension worth 1/3 (unrounded in Harbor).
rk.file_exists("out.txt")
rk.file_exists("missing.txt")
rk.file_contains("out.txt", "absent")
