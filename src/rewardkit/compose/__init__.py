"""Composition: how outcomes become one number. Pure (no I/O, no asyncio)."""

from rewardkit.compose._aggregate import (
    MODES,
    Component,
    Mode,
    aggregate,
    check_weights,
    parse_mode,
)

__all__ = ["MODES", "Component", "Mode", "aggregate", "check_weights", "parse_mode"]
