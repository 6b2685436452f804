"""Programmatic criteria: `@criterion`, the per-run registry and the 23 built-ins.

Built-ins live one module per family (`files`, `commands`, `data`, `http`, `images`,
`trajectory`); none imports a heavy dependency at module level.
`from rewardkit import criteria; criteria.file_exists("out.txt")` works like `rk.file_exists`.
"""

from __future__ import annotations

from functools import cache
from types import MappingProxyType
from typing import Any

from rewardkit.criteria._registry import (
    Check,
    CriterionFactory,
    Registry,
    active_registry,
    criterion,
)

__all__ = ["Check", "CriterionFactory", "Registry", "active_registry", "builtins", "criterion"]

_FAMILIES = ("files", "commands", "data", "http", "images", "trajectory")


@cache
def builtins() -> MappingProxyType[str, CriterionFactory]:
    """The built-in criteria by name (read-only)."""
    from importlib import import_module

    table: dict[str, CriterionFactory] = {}
    for family in _FAMILIES:
        module = import_module(f"rewardkit.criteria.{family}")
        for name in module.__all__:
            table[name] = getattr(module, name)
    return MappingProxyType(table)


def __getattr__(name: str) -> Any:
    factory = active_registry().factories.get(name)
    if factory is None:
        raise AttributeError(f"module 'rewardkit.criteria' has no criterion {name!r}")
    return factory
