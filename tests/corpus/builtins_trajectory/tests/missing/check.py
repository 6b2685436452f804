import rewardkit as rk

rk.trajectory_tool_used("bash", path="logs/absent.json")
rk.trajectory_tool_not_used("bash", path="logs/absent.json")  # missing counts as a fail
rk.trajectory_turn_count(5, path="logs/absent.json")
rk.file_exists("logs/trajectory.json")
