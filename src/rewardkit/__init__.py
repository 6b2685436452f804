"""rewardkit: turn judges into rewards.

`import rewardkit as rk` gives the Harbor RewardKit API: `@rk.criterion`, the built-in
criteria as `rk.<name>(...)`, and `rk.run(tests_dir, workspace=..., output=...)`.
"""

from __future__ import annotations

from typing import Any

from rewardkit._errors import (
    ConfigError,
    CriterionError,
    DiscoveryError,
    FormulaError,
    RewardKitError,
)
from rewardkit._outcome import Outcome
from rewardkit._verifier import run, run_multi
from rewardkit.criteria import Check, criterion
from rewardkit.criteria import active_registry as _active_registry
from rewardkit.outputs import compare, format_comparison

__version__ = "0.1.0"

__all__ = [
    "Check",
    "ConfigError",
    "CriterionError",
    "DiscoveryError",
    "FormulaError",
    "Outcome",
    "RewardKitError",
    "compare",
    "criterion",
    "format_comparison",
    "run",
    "run_multi",
]

for _name in __all__:
    globals()[_name].__module__ = "rewardkit"


def __getattr__(name: str) -> Any:
    """`rk.<criterion>`: a built-in, or one defined by the run being discovered."""
    factory = _active_registry().factories.get(name)
    if factory is None:
        raise AttributeError(f"module 'rewardkit' has no attribute or criterion {name!r}")
    return factory


def __dir__() -> list[str]:
    return sorted({*__all__, *_active_registry().factories})
