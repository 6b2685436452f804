"""Reports over scored runs: HTML, statistics with intervals, and RL-signal diagnostics.

`build_report(path)` reads an eval run, a Harbor job directory or a `rewardkit score` results
file; `diagnose(results)` measures the learning signal of scored samples for a trainer's
logging hook. See docs/report.md.
"""

from typing import TYPE_CHECKING

from rewardkit.core._lazy import lazy_names

if TYPE_CHECKING:
    from rewardkit.core._stats import (
        Estimate,
        estimate,
        paired_difference,
        pass_at_k,
        pass_hat_k,
        wilson_interval,
    )
    from rewardkit.report._diagnose import CriterionSignal, Diagnostics, diagnose
    from rewardkit.report._report import Report, build_report

_HOMES = {
    "CriterionSignal": "_diagnose",
    "Diagnostics": "_diagnose",
    "diagnose": "_diagnose",
    "Report": "_report",
    "build_report": "_report",
    "Estimate": "rewardkit.core._stats",
    "estimate": "rewardkit.core._stats",
    "paired_difference": "rewardkit.core._stats",
    "pass_at_k": "rewardkit.core._stats",
    "pass_hat_k": "rewardkit.core._stats",
    "wilson_interval": "rewardkit.core._stats",
}
"""Each public name's module, imported on first use (`rewardkit eval` needs only the statistics)."""


__getattr__ = lazy_names(__name__, _HOMES, globals())


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
