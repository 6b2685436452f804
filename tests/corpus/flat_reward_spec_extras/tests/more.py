from pathlib import Path

import rewardkit as rk
from rewardkit import criterion


@criterion
def half(workspace: Path) -> float:
    return 0.5


@criterion(description="len >= {n}")
def min_len(workspace: Path, n: int) -> bool:
    return len((workspace / "out.txt").read_text()) >= n


rk.min_len(5, weight=3.0)
