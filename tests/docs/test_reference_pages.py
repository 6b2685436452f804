"""The site's generated reference pages list every registry entry; its nav lists every page."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import yaml

from rewardkit.criteria import builtins
from rewardkit.evalyaml.builtins import BUILTINS

ROOT = Path(__file__).resolve().parents[2]


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("reference", ROOT / "docs/hooks/reference.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_criteria_page_lists_every_builtin_with_its_description() -> None:
    page = _hook().criteria_page()
    for name, factory in builtins().items():
        assert f"### `{name}`" in page
        assert str(factory.description) in page
    assert "- `cwd`:" in page
    assert "- `timeout`:" in page


def test_judges_page_lists_every_builtin_judge() -> None:
    page = _hook().judges_page()
    for builtin in BUILTINS.values():
        assert f"| `{builtin.qualified}` |" in page
    assert "| |" not in page  # every builtin has a summary


def _nav_pages(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    values = node.values() if isinstance(node, dict) else node
    return [page for value in values for page in _nav_pages(value)]


def test_nav_lists_every_page() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    nav = set(_nav_pages(config["nav"]))
    docs = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert docs | set(_hook().PAGES) == nav
