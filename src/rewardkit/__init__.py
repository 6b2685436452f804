"""rewardkit: turn judges into rewards.

`import rewardkit as rk` gives the Harbor RewardKit API: `@rk.criterion`, the built-in
criteria as `rk.<name>(...)`, and `rk.run(tests_dir, workspace=..., output=...)`; and the
Fireworks reward-kit API: `@rk.reward_function`, `rk.EvaluateResult`, `rk.MetricResult`,
`rk.Message`.

`rk.load(source)` returns a `Scorer` for RL batch scoring and trainer adapters.

Names that need pydantic or asyncio load on first use, so `import rewardkit` stays fast.
"""

from __future__ import annotations

import sys as _sys

if (
    _sys.argv[:1] == ["-m"]  # runpy is still finding the module to run: this package
    and _sys.orig_argv[-len(_sys.argv)] in ("rewardkit", "rewardkit.__main__")
    and not _sys.flags.safe_path
):
    # `python -m rewardkit` put the working directory (Harbor's: the graded workspace) first on
    # `sys.path`; drop it before anything is imported, or the agent's `typing.py` would run.
    del _sys.path[0]

from typing import TYPE_CHECKING, Any

from rewardkit.core._errors import (
    ConfigError,
    CriterionError,
    DiscoveryError,
    FormulaError,
    RewardKitError,
)
from rewardkit.core._outcome import Outcome

if TYPE_CHECKING:
    from rewardkit.batch import load
    from rewardkit.criteria import Check, criterion
    from rewardkit.functions import reward_function
    from rewardkit.harbor._compare import ComparisonResult, compare, format_comparison
    from rewardkit.harbor._verifier import run, run_multi
    from rewardkit.judges._trajectory import format_trajectory
    from rewardkit.types import (
        EvaluateResult,
        Message,
        MetricResult,
        MetricRewardOutput,
        RewardOutput,
    )

__version__ = "0.1.0"

__all__ = [
    "Check",
    "ComparisonResult",
    "ConfigError",
    "CriterionError",
    "DiscoveryError",
    "EvaluateResult",
    "FormulaError",
    "Message",
    "MetricResult",
    "MetricRewardOutput",
    "Outcome",
    "RewardKitError",
    "RewardOutput",
    "compare",
    "criterion",
    "format_comparison",
    "format_trajectory",
    "load",
    "reward_function",
    "run",
    "run_multi",
]

_LAZY = {
    "Check": "rewardkit.criteria",
    "criterion": "rewardkit.criteria",
    "ComparisonResult": "rewardkit.harbor._compare",
    "compare": "rewardkit.harbor._compare",
    "format_comparison": "rewardkit.harbor._compare",
    "load": "rewardkit.batch",
    "EvaluateResult": "rewardkit.types",
    "Message": "rewardkit.types",
    "MetricResult": "rewardkit.types",
    "MetricRewardOutput": "rewardkit.types",
    "RewardOutput": "rewardkit.types",
    "reward_function": "rewardkit.functions",
    "format_trajectory": "rewardkit.judges._trajectory",
    "run": "rewardkit.harbor._verifier",
    "run_multi": "rewardkit.harbor._verifier",
}
"""Public names loaded on first access: pydantic (~150 ms), asyncio, the criteria registry and
the comparison stay out of import (a command that needs none of them starts sooner)."""

for _name in __all__:
    if _name not in _LAZY:
        globals()[_name].__module__ = "rewardkit"


def __getattr__(name: str) -> Any:
    """A lazily loaded public name, or `rk.<criterion>`: a built-in or one of the run's."""
    module = _LAZY.get(name)
    if module is not None:
        from importlib import import_module

        value = getattr(import_module(module), name)
        value.__module__ = "rewardkit"
        globals()[name] = value  # later lookups skip this function
        return value
    factories = _factories()
    factory = factories.get(name)
    if factory is None:
        from rewardkit.core._errors import did_you_mean

        hint = did_you_mean(name, [*factories, *__all__])
        raise AttributeError(f"module 'rewardkit' has no attribute or criterion {name!r}.{hint}")
    return factory


def __dir__() -> list[str]:
    return sorted({*__all__, *_factories()})


def _factories() -> dict[str, Any]:
    """The criteria `rk.<name>` reaches: the built-ins and the running tests dir's own."""
    from rewardkit.criteria import active_registry

    return active_registry().factories
