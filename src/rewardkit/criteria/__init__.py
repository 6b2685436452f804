"""Programmatic criteria: `@criterion`, the per-run registry and the 23 built-ins.

Built-ins live one module per family (`files`, `commands`, `data`, `http`, `images`,
`trajectory`); none imports a heavy dependency at module level.
`from rewardkit import criteria; criteria.file_exists("out.txt")` works like `rk.file_exists`.
"""

from __future__ import annotations

from typing import Any

from rewardkit.criteria._registry import (
    Check,
    CriterionFactory,
    Registry,
    active_registry,
    builtins,
    criterion,
)

__all__ = ["Check", "CriterionFactory", "Registry", "active_registry", "builtins", "criterion"]


def __getattr__(name: str) -> Any:
    factory = active_registry().factories.get(name)
    if factory is None:
        raise AttributeError(f"module 'rewardkit.criteria' has no criterion {name!r}")
    return factory
