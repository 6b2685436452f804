from pathlib import Path

from rewardkit import criterion


@criterion
def nearly(workspace: Path) -> float:
    return 0.9
