"""Package names that load on first use: start-up time is a feature (see `lazy_names`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each name of `homes` is imported from its private
    module (`homes[name]`: relative to `package`, or a whole `rewardkit.` path) on first use
    and kept in `namespace` (the package's globals), so hot paths that import it per call pay
    the import once."""

    def __getattr__(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        home = homes[name]
        value = getattr(import_module(home if "." in home else f"{package}.{home}"), name)
        namespace[name] = value
        return value

    return __getattr__
