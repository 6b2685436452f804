"""Packages and installed size of rewardkit's core dependencies and of each extra.

The requirements are read from pyproject.toml, the sizes from the current environment's
installed distributions (their `RECORD` files), so it needs an environment with the extras
installed (`pip install -e '.[dev]'`); an extra whose packages are missing here is reported
as not measured. An extra's figures are what it adds on top of the core; rewardkit itself
is not counted.

    python benchmarks/install_size.py
"""

from __future__ import annotations

import importlib.metadata as md
import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement

ROOT = "rewardkit"
PROJECT = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())["project"]


def closure(requirements: list[Requirement]) -> tuple[set[str], set[str]]:
    """The installed distributions `requirements` pull in, and the missing ones."""
    seen: set[tuple[str, frozenset[str]]] = set()
    missing: set[str] = set()
    todo = list(requirements)
    while todo:
        req = todo.pop()
        name = canonical(req.name)
        if name == ROOT:  # `rewardkit[math,json]` inside an extra
            todo += own(set(req.extras))
            continue
        if (name, frozenset(req.extras)) in seen:
            continue
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            missing.add(name)
            continue
        seen.add((name, frozenset(req.extras)))
        for text in dist.requires or []:
            sub = Requirement(text)
            wanted = req.extras or {""}
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in wanted):
                todo.append(sub)
    return {name for name, _ in seen}, missing


def own(extras: set[str]) -> list[Requirement]:
    """rewardkit's requirements for `extras` (none: the core)."""
    if not extras:
        return [Requirement(r) for r in PROJECT["dependencies"]]
    optional = PROJECT["optional-dependencies"]
    return [Requirement(r) for e in extras for r in optional.get(e, [])]


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def size(names: set[str]) -> int:
    total = 0
    for name in names:
        for file in md.distribution(name).files or []:
            total += file.size or 0
    return total


def main() -> None:
    core, _ = closure(own(set()))
    print("| what | packages | installed size |")
    print("|---|---|---|")
    print(f"| core (`pip install rewardkit`) | {len(core)} | {size(core) / 1e6:.1f} MB |")
    for extra in PROJECT["optional-dependencies"]:
        pulled, missing = closure(own({extra}))
        added = pulled - core
        note = f" (not measured: {', '.join(sorted(missing))} not installed)" if missing else ""
        print(f"| `{extra}` | +{len(added)} | +{size(added) / 1e6:.1f} MB{note} |")


if __name__ == "__main__":
    main()
