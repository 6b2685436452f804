from pathlib import Path

import rewardkit as rk
from rewardkit import criterion


@criterion(description="{path} has at least {n} lines")
def min_lines(workspace: Path, path: str, n: int = 2) -> bool:
    return len((workspace / path).read_text().splitlines()) >= n


@criterion(description="{path} mentions {word!r}")
def mentions(workspace: Path, path: str, word: str) -> bool:
    return word in (workspace / path).read_text()


rk.min_lines("out.txt")
rk.min_lines("out.txt", n=10, weight=2)
rk.min_lines(path="out.txt", n=3, name="three_lines")
rk.mentions("out.txt", "beta")
rk.mentions("out.txt", word="omega", weight=0.5)
