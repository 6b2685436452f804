"""Import an optional package on first use, or say which extra installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, *, package: str, extra: str, function: str) -> ModuleType:
    """Import `module`; if it is missing, raise an `ImportError` naming the extra.

    Example:
        >>> require("json", package="json", extra="none", function="example").__name__
        'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ImportError(
            f"{function} needs the {package} package, which is not installed. "
            f"Install the extra: pip install 'rewardkit[{extra}]'"
        ) from exc
