"""Confine the paths a criterion reads to the workspace being graded.

The workspace is untrusted (an agent wrote it): an absolute path, a `..` or a symlink that
leaves it must never make a criterion read outside it.
"""

from __future__ import annotations

import warnings
from pathlib import Path, PurePath

__all__ = ["OutsideWorkspace", "inside", "warn_outside"]


class OutsideWorkspace(ValueError):
    """A path names something outside the workspace."""


def inside(workspace: Path, path: str | PurePath) -> Path:
    """Return `workspace / path`, resolved, if it stays inside the workspace.

    Raises:
        OutsideWorkspace: for an absolute path, or one that leaves the workspace through
            `..` or a symlink.
    """
    rel = PurePath(path)
    if rel.is_absolute():
        raise OutsideWorkspace(f"{str(path)!r} is absolute; criteria take workspace-relative paths")
    root = Path(workspace).resolve()
    try:
        target = (root / rel).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL byte
        raise OutsideWorkspace(f"{str(path)!r} cannot be resolved ({exc})") from None
    if target != root and root not in target.parents:
        raise OutsideWorkspace(f"{str(path)!r} resolves outside the workspace")
    return target


def warn_outside(criterion: str, exc: OutsideWorkspace) -> None:
    """Warn that `criterion` scored 0 because its path left the workspace."""
    warnings.warn(f"{criterion}: {exc}; assigning reward 0", stacklevel=3)
