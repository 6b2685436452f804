import rewardkit as rk

rk.has_line("app.py", "def main():")
rk.has_line("app.py", "def serve():")
rk.has_line("app.py", "def missing():")
