import rewardkit as rk

rk.file_exists("out.txt")
rk.file_exists("missing.txt")
rk.file_exists("also-missing.txt")
