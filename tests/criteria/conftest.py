"""Fixtures for the built-in criteria tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace directory."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return workspace
