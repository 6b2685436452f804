import rewardkit as rk

rk.json_key_equals("result.json", "words", 12, weight=2.0)
rk.json_key_equals("result.json", "top", "the")
rk.command_output_matches("python3 wordcount.py", "12", isolated=True)
