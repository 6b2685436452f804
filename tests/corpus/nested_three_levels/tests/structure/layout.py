import rewardkit as rk

rk.file_exists("src")
rk.file_exists("src/main.py")
