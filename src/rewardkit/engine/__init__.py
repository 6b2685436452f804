"""The engine: run a plan's leaves under limits, then fold outcomes into scores.

Names load on first use: a worker pool (`_workers`) needs none of the rest, and start-up time
is a feature.
"""

from typing import TYPE_CHECKING

from rewardkit.core._lazy import lazy_names

if TYPE_CHECKING:
    from rewardkit.engine._execute import execute, execute_async
    from rewardkit.engine._fold import GroupResult, LeafResult, NodeResult, RunResult
    from rewardkit.engine._leaves import Limits
    from rewardkit.engine._workers import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT

_LAZY = {
    "DEFAULT_MEMORY_MB": "_workers",
    "DEFAULT_TIMEOUT": "_workers",
    "GroupResult": "_fold",
    "LeafResult": "_fold",
    "Limits": "_leaves",
    "NodeResult": "_fold",
    "RunResult": "_fold",
    "execute": "_execute",
    "execute_async": "_execute",
}


__getattr__ = lazy_names(__name__, _LAZY, globals())


__all__ = [
    "DEFAULT_MEMORY_MB",
    "DEFAULT_TIMEOUT",
    "GroupResult",
    "LeafResult",
    "Limits",
    "NodeResult",
    "RunResult",
    "execute",
    "execute_async",
]
