import rewardkit as rk

rk.has_line("app.py", "import sys")
rk.has_line("app.py", "import os")
