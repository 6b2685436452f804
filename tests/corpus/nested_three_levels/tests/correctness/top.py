import rewardkit as rk

rk.file_exists("src/main.py")
rk.file_contains("src/main.py", "def main")
rk.file_contains("src/main.py", "argparse")
