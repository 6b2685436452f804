import rewardkit as rk

# Passing (sum 255).
rk.command_succeeds("true", weight=1)
rk.command_succeeds("test -f data.txt", weight=2)  # runs in the workspace
rk.command_succeeds("test -f inner.txt", cwd="sub", weight=4)
rk.command_output_contains("echo hello world", "lo wo", weight=8)
rk.command_output_matches("printf '  42\\n\\n'", "42", weight=16)
rk.command_output_matches_regex("echo build 123 ok", r"build \d+", weight=32)
rk.command_output_contains("cat data.txt", "alpha", weight=64)
rk.command_output_matches("cat data.txt", "alpha\nbeta", weight=128)

# Failing.
rk.command_succeeds("false", weight=256)
rk.command_succeeds("exit 3", weight=512)
rk.command_output_contains("echo hello", "bye", weight=1024)
rk.command_output_matches("echo 42", "43", weight=2048)
rk.command_output_matches_regex("echo abc", r"^\d+$", weight=4096)
rk.command_succeeds("sleep 5", timeout=1, weight=8192)
rk.command_output_contains("echo oops >&2", "oops", weight=16384)
rk.command_succeeds("test -f inner.txt", weight=32768)  # not in the workspace root
