import rewardkit as rk

rk.file_exists("setup.cfg")
rk.file_exists("LICENSE")
rk.file_exists("src/main.py", weight=0.5)
