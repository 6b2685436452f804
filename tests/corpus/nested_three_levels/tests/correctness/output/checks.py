import rewardkit as rk

rk.command_output_contains("python3 src/main.py", "hello")
rk.command_output_contains("python3 src/main.py", "goodbye")
rk.command_succeeds("python3 src/main.py")
