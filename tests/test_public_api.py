"""The public API is small, sorted, and every name claims `rewardkit` as its module."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import rewardkit as rk


def test_all_is_sorted_and_complete() -> None:
    assert rk.__all__ == sorted(rk.__all__)
    for name in rk.__all__:  # load the lazy names (pydantic, asyncio) into the namespace
        getattr(rk, name)
    public = {name for name in vars(rk) if not name.startswith("_")}
    public -= {"annotations", "Any", "TYPE_CHECKING"}  # typing imports
    packages = {name for name, value in vars(rk).items() if isinstance(value, ModuleType)}
    assert public - packages == set(rk.__all__)
    assert set(rk.__all__) <= set(dir(rk))


def test_every_name_is_exported_from_rewardkit() -> None:
    for name in rk.__all__:
        assert getattr(rk, name).__module__ == "rewardkit", name


def test_the_23_builtins_are_reachable_as_rk_attributes() -> None:
    names = set(rk.criteria.builtins())
    assert len(names) == 23
    assert all(callable(getattr(rk, n)) for n in names)


def test_import_loads_neither_pydantic_nor_asyncio() -> None:
    probe = (
        "import sys, rewardkit\n"
        "print(sorted(m for m in ('pydantic', 'asyncio', 'rewardkit.types') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


# --- Harbor RewardKit 0.2.3's API: the names its users' code touches ------------------------


def test_compare_returns_labels_and_per_reward() -> None:
    result = rk.compare({"v1": {"a": 0.5, "only": 1.0}, "v2": {"a": 1.0}})
    assert result.labels == ["v1", "v2"]
    assert result.per_reward == {"a": {"v1": 0.5, "v2": 1.0}}
    assert result.model_dump() == {"labels": ["v1", "v2"], "per_reward": result.per_reward}
    assert rk.compare({"v1": {"a": 0.5}}) == rk.ComparisonResult(labels=["v1"])


def test_a_builtin_check_has_a_name_like_rewardkits_function() -> None:
    assert rk.file_exists("out.txt").__name__ == "file_exists:out.txt"


def test_format_trajectory_takes_rewardkits_token_budget(tmp_path: Path) -> None:
    steps = [{"step_id": i, "source": "agent", "message": "x" * 400} for i in range(1, 40)]
    path = tmp_path / "trajectory.json"
    path.write_text(json.dumps({"schema_version": "ATIF-v1.2", "steps": steps}))
    short = rk.format_trajectory(path, max_tokens=500, model="anthropic/claude-opus-5-5")
    assert len(short) < len(rk.format_trajectory(path))
    assert short.count("\n\n") >= 39


def test_importing_main_runs_nothing_and_exposes_main() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import rewardkit.__main__ as m; print(callable(m.main))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "True"
