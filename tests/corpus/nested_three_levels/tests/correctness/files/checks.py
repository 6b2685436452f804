import rewardkit as rk

rk.file_exists("src/main.py")
rk.file_exists("src/util.py")
rk.file_exists("README.md")
