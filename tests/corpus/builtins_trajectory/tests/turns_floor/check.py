import rewardkit as rk

rk.trajectory_turn_count(2, path="logs/trajectory.json")  # 5 turns: floored at 0
