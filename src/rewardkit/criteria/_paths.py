"""The warning a criterion gives when its path would leave the workspace."""

from __future__ import annotations

import warnings

from rewardkit.core._untrusted import OutsideWorkspace

__all__ = ["warn_outside"]


def warn_outside(criterion: str, exc: OutsideWorkspace) -> None:
    """Warn that `criterion` scored 0 because its path left the workspace."""
    warnings.warn(f"{criterion}: {exc}; assigning reward 0", stacklevel=3)
