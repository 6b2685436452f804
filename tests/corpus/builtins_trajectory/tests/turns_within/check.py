import rewardkit as rk

rk.trajectory_turn_count(10, path="logs/trajectory.json")
rk.trajectory_turn_count(5, path="logs/trajectory.json")
