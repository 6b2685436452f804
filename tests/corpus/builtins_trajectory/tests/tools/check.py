import rewardkit as rk

T = "logs/trajectory.json"

# Passing (sum 287).
rk.trajectory_tool_used("bash", path=T, weight=1)
rk.trajectory_tool_used("bash", min_count=3, path=T, weight=2)
rk.trajectory_tool_not_used("rm", path=T, weight=4)
rk.trajectory_tool_used("write_file", path=T, weight=8)
rk.trajectory_tool_not_used("Bash", path=T, weight=16)  # names are case-sensitive
rk.trajectory_tool_used("user_tool", path=T, weight=256)  # calls in any step count

# Failing.
rk.trajectory_tool_used("bash", min_count=4, path=T, weight=32)
rk.trajectory_tool_used("edit", path=T, weight=64)
rk.trajectory_tool_not_used("bash", path=T, weight=128)
