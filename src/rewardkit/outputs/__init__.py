"""What `rewardkit check` shows of a plan before it runs: its reward keys (`plan`) and the
model calls and cost it will take (`estimate`)."""
