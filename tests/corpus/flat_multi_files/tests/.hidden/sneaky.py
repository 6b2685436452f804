import rewardkit as rk

# Would turn the layout nested (and add a failing dimension) if this directory were read.
rk.file_exists("does-not-exist.txt")
