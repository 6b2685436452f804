"""The public API is small, sorted, and every name claims `rewardkit` as its module."""

from __future__ import annotations

import rewardkit as rk


def test_all_is_sorted_and_complete() -> None:
    assert rk.__all__ == sorted(rk.__all__)
    public = {name for name in vars(rk) if not name.startswith("_")}
    public -= {"annotations", "Any"}  # typing imports
    modules = {"criteria", "compose", "engine", "outputs", "sources", "judges", "cli"}
    assert public - modules == set(rk.__all__)


def test_every_name_is_exported_from_rewardkit() -> None:
    for name in rk.__all__:
        assert getattr(rk, name).__module__ == "rewardkit", name


def test_the_23_builtins_are_reachable_as_rk_attributes() -> None:
    names = set(rk.criteria.builtins())
    assert len(names) == 23
    assert all(callable(getattr(rk, n)) for n in names)
