from pathlib import Path

from rewardkit import criterion


@criterion
def value(workspace: Path) -> float:
    return 1.00005
