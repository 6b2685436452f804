"""Registers no criterion: this directory has no inputs and is skipped."""

ANSWER = 42
