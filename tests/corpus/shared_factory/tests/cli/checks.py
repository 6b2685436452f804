import rewardkit as rk

rk.has_line("app.py", 'if __name__ == "__main__":', weight=2)
rk.file_exists("app.py")
