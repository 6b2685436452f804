import rewardkit as rk

rk.file_not_exists("src/Main.py")
rk.file_exists("src/__init__.py")
