from pathlib import Path

from helpers import source_of

import rewardkit as rk
from rewardkit import criterion


@criterion(description="the solution reads {name} instead of hard-coding the answer")
def reads_input(workspace: Path, name: str) -> bool:
    return name in source_of(workspace)


rk.reads_input("input.txt")
rk.file_not_exists("answer_cache.txt")
