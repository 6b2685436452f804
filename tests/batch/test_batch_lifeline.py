"""Worker processes exit when the process that started them is gone."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest


@pytest.mark.parametrize(
    "call", ["die_with_parent(1)", "watch_parent(1, every=0.05); time.sleep(30)"]
)
def test_a_process_whose_parent_is_gone_exits(call: str) -> None:
    code = f"import time\nfrom rewardkit.engine._lifeline import *\n{call}\n"
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], timeout=30)
    assert done.returncode == 1  # pid 1 is not its parent: it exits as an orphan would
    assert time.perf_counter() - start < 10
