"""The public API is small, sorted, and every name claims `rewardkit` as its module."""

from __future__ import annotations

import rewardkit as rk


def test_all_is_sorted_and_complete() -> None:
    assert rk.__all__ == sorted(rk.__all__)
    for name in rk.__all__:  # load the lazy names (pydantic, asyncio) into the namespace
        getattr(rk, name)
    public = {name for name in vars(rk) if not name.startswith("_")}
    public -= {"annotations", "Any", "TYPE_CHECKING"}  # typing imports
    modules = {"criteria", "compose", "engine", "outputs", "sources", "judges", "cli"}
    modules |= {"functions", "types", "batch", "server"}
    assert public - modules == set(rk.__all__)
    assert set(rk.__all__) <= set(dir(rk))


def test_every_name_is_exported_from_rewardkit() -> None:
    for name in rk.__all__:
        assert getattr(rk, name).__module__ == "rewardkit", name


def test_the_23_builtins_are_reachable_as_rk_attributes() -> None:
    names = set(rk.criteria.builtins())
    assert len(names) == 23
    assert all(callable(getattr(rk, n)) for n in names)


def test_import_loads_neither_pydantic_nor_asyncio() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, rewardkit\n"
        "print(sorted(m for m in ('pydantic', 'asyncio', 'rewardkit.types') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
