import rewardkit as rk

rk.diff_ratio("answer.txt", "the quick brown fox jumps over the lazy dog")
rk.file_exists("answer.txt")
