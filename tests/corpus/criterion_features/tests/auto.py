from pathlib import Path

import rewardkit as rk
from rewardkit import criterion


@criterion
def ready(workspace: Path) -> bool:
    # Zero parameters, never called: registered once with weight 1.
    return (workspace / "out.txt").exists()


@criterion(description="a quarter")
def z(workspace: Path) -> float:
    return 0.25


# The first explicit call replaces the auto-registration; the second adds one more.
rk.z(weight=5, name="custom")
rk.z()
