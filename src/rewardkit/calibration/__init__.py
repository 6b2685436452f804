"""Calibrate a judge against human labels: agreement with 95% intervals, agreement across
its samples, thresholds, and bias probes (`rewardkit calibrate`, `docs/calibration.md`)."""

from rewardkit.calibration._labels import Item, read_cases, read_jsonl
from rewardkit.calibration._run import SCHEMA, Options, calibrate
from rewardkit.calibration._table import headline, table_lines

__all__ = [
    "SCHEMA",
    "Item",
    "Options",
    "calibrate",
    "headline",
    "read_cases",
    "read_jsonl",
    "table_lines",
]
