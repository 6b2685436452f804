from pathlib import Path

from rewardkit import criterion


@criterion
def value(workspace: Path) -> float:
    return 0.00005
