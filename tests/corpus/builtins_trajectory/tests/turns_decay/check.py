import rewardkit as rk

rk.trajectory_turn_count(4, path="logs/trajectory.json")  # 5 turns: 0.75
rk.trajectory_turn_count(3, path="logs/trajectory.json")  # 5 turns: 1/3
