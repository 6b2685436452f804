"""The jail for programs the graded side wrote (see `docs/security.md`)."""

from rewardkit.jail._jail import (
    LEVELS,
    ExecutionResult,
    Jail,
    JailError,
    jail,
    run_program,
    run_python,
    workspace_jail,
)

__all__ = [
    "LEVELS",
    "ExecutionResult",
    "Jail",
    "JailError",
    "jail",
    "run_program",
    "run_python",
    "workspace_jail",
]
