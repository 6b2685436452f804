import rewardkit as rk

rk.file_exists("wordcount.py")
rk.file_contains_regex("wordcount.py", r"def |Counter")
rk.diff_ratio("input.txt", "The quick brown fox jumps over the lazy dog. The dog sleeps.")
