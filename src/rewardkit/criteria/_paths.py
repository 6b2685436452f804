"""Confine the paths a criterion reads (see `rewardkit._untrusted.confine`)."""

from __future__ import annotations

import warnings
from pathlib import Path, PurePath

from rewardkit._untrusted import OutsideWorkspace, confine

__all__ = ["OutsideWorkspace", "confine", "inside", "warn_outside"]


def warn_outside(criterion: str, exc: OutsideWorkspace) -> None:
    """Warn that `criterion` scored 0 because its path left the workspace."""
    warnings.warn(f"{criterion}: {exc}; assigning reward 0", stacklevel=3)


def inside(workspace: Path, path: str | PurePath) -> Path:
    """`confine` for a path the agent controls (an absolute path elsewhere is refused)."""
    return confine(workspace, path, author=False)
