from pathlib import Path

from rewardkit import criterion


@criterion(shared=True, description="{path} has the line {line!r}")
def has_line(workspace: Path, path: str, line: str) -> bool:
    return line in (workspace / path).read_text().splitlines()
