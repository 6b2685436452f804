import rewardkit as rk

rk.file_contains("adir", "x")  # a directory
rk.file_matches("adir", "")
rk.image_similarity("present.txt", "present.txt")  # not an image
rk.image_size_equals("present.txt", 1, 1)
rk.file_exists("adir")  # passes: 1 of 5
