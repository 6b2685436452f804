from pathlib import Path

from rewardkit import criterion


@criterion
def int_two(workspace: Path) -> int:
    return 2  # above 1: Harbor warns and keeps it


@criterion
def int_zero(workspace: Path) -> int:
    return 0


@criterion
def float_quarter(workspace: Path) -> float:
    return 0.25


@criterion
def dict_half(workspace: Path) -> dict:
    return {"score": 0.5, "reasoning": "half of the work"}


@criterion
def dict_bool(workspace: Path) -> dict:
    return {"score": True, "reasoning": "done"}


@criterion
def dict_int(workspace: Path) -> dict:
    return {"score": 1}
