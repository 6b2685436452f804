"""Reports over scored runs: HTML, statistics with intervals, and RL-signal diagnostics.

`build_report(path)` reads an eval run, a Harbor job directory or a `rewardkit score` results
file; `diagnose(results)` measures the learning signal of scored samples for a trainer's
logging hook. See docs/report.md.
"""

from rewardkit.report._diagnose import CriterionSignal, Diagnostics, diagnose
from rewardkit.report._report import Report, build_report
from rewardkit.report._stats import (
    Estimate,
    estimate,
    paired_difference,
    pass_at_k,
    pass_hat_k,
    wilson_interval,
)

__all__ = [
    "CriterionSignal",
    "Diagnostics",
    "Estimate",
    "Report",
    "build_report",
    "diagnose",
    "estimate",
    "paired_difference",
    "pass_at_k",
    "pass_hat_k",
    "wilson_interval",
]
