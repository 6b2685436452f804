"""Reward functions for the service tests.

They live in a module of their own because the server's scoring processes import it to
unpickle them; a test module would drag pytest and the test client into every process.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import rewardkit as rk


@rk.reward_function
def exact(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> bool:
    return bool(messages[-1]["content"] == ground_truth)


@rk.reward_function
def slow(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    """1.0, after 0.5s for "slow" and an hour for "hang"; "crash" ends the process."""
    content = messages[-1]["content"]
    if content == "crash":
        os._exit(3)
    time.sleep({"slow": 0.5, "hang": 3600.0}.get(content, 0.0))
    return 1.0


@rk.reward_function
def busy(messages: list[dict[str, Any]], ground_truth: Any = None, **kwargs: Any) -> bool:
    """`exact`, after a little real work, so that concurrent requests overlap."""
    time.sleep(0.001)
    return bool(messages[-1]["content"] == ground_truth)


@rk.reward_function
def has_ok_txt(messages: list[dict[str, Any]], workspace: Path, **kwargs: Any) -> bool:
    return (workspace / "ok.txt").is_file()


@rk.reward_function
def fails_on_boom(messages: list[dict[str, Any]], **kwargs: Any) -> float:
    """Raises on "boom": how it counts is the scorer's `on_error`."""
    if messages[-1]["content"] == "boom":
        raise ValueError("boom")
    return 1.0
