"""Import an optional package on first use, or say which extra installs it."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["missing", "require"]


def require(module: str, *, package: str, extra: str, function: str) -> ModuleType:
    """Import `module`; if it is missing, raise an `ImportError` naming the extra.

    Example:
        >>> require("json", package="json", extra="none", function="example").__name__
        'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise missing(package=package, extra=extra, function=function) from exc


def missing(*, package: str, extra: str, function: str) -> ImportError:
    """The `ImportError` `require` raises: what needs `package`, and the extra to install.

    Example:
        >>> error = missing(package="math-verify", extra="math", function="math_reward")
        >>> str(error).partition(". ")[2]
        "Install the extra: pip install 'rewardkit[math]'"
    """
    return ImportError(
        f"{function} needs the {package} package, which is not installed. "
        f"Install the extra: pip install 'rewardkit[{extra}]'"
    )
