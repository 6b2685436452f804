import rewardkit as rk

# True when the agent left a debug log behind.
rk.file_exists("debug.log")
