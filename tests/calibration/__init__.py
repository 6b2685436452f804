"""Tests of `rewardkit calibrate` (a package, so its conftest.py never shadows another)."""
