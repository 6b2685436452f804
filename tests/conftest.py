"""Shared fixtures: a clean environment and tiny task trees written from dicts."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

_PROVIDER_KEYS = ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "TYPESAFE_API_KEY")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in list(os.environ):
        if key.startswith("REWARDKIT_") or key in _PROVIDER_KEYS:
            monkeypatch.delenv(key)


Tree = Mapping[str, str]


def write_tree(root: Path, files: Tree) -> Path:
    """Write `{"relative/path": "text"}` under `root` (text is dedented)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


@pytest.fixture
def task(tmp_path: Path) -> Callable[..., tuple[Path, Path]]:
    """`task(tests={...}, workspace={...})` → (tests_dir, workspace)."""

    def make(tests: Tree, workspace: Tree | None = None) -> tuple[Path, Path]:
        tests_dir = write_tree(tmp_path / "tests", tests)
        ws = write_tree(tmp_path / "ws", workspace or {})
        ws.mkdir(exist_ok=True)
        return tests_dir, ws

    return make
