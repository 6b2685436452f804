"""Shared helpers: importable from any criteria file (`from helpers import source_of`)."""

from pathlib import Path


def source_of(workspace: Path) -> str:
    return (workspace / "wordcount.py").read_text()
