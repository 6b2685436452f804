"""A throw-away view of the workspace for `isolated=True` criteria.

In order of preference: kernel overlayfs (needs root), `fuse-overlayfs` when it is on PATH,
else a plain copy. Nothing is ever installed at run time. Writes go to the view and vanish
with it; the real workspace is never modified.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

__all__ = ["Strategy", "isolated_view"]

Strategy = Literal["overlay", "fuse-overlayfs", "copy"]


@contextmanager
def isolated_view(workspace: Path, strategy: Strategy | None = None) -> Iterator[Path]:
    """Yield a path that shows `workspace` but keeps writes to itself.

    Args:
        workspace: the directory to isolate.
        strategy: force one strategy (tests); by default the first that works.
    """
    lower = Path(workspace).resolve()
    scratch = Path(tempfile.mkdtemp(prefix="rewardkit-isolated-"))
    merged = scratch / "merged"
    for sub in ("upper", "work", "merged"):
        (scratch / sub).mkdir()
    unmount = _mount(lower, scratch, strategy)
    try:
        yield merged
    finally:
        if unmount:
            subprocess.run(unmount, capture_output=True, check=False)
        shutil.rmtree(scratch, ignore_errors=True)


def _mount(lower: Path, scratch: Path, strategy: Strategy | None) -> list[str] | None:
    """Mount the view; return the command that unmounts it (None for a copy)."""
    merged = scratch / "merged"
    options = f"lowerdir={lower},upperdir={scratch / 'upper'},workdir={scratch / 'work'}"
    attempts: list[tuple[Strategy, list[str], list[str]]] = [
        (
            "overlay",
            ["mount", "-t", "overlay", "overlay", "-o", options, str(merged)],
            ["umount", str(merged)],
        ),
    ]
    if shutil.which("fuse-overlayfs"):
        attempts.append(
            (
                "fuse-overlayfs",
                ["fuse-overlayfs", "-o", options, str(merged)],
                ["fusermount", "-u", str(merged)],
            )
        )
    for name, mount, unmount in attempts:
        if strategy not in (None, name) or "," in str(lower) or ":" in str(lower):
            continue  # commas and colons cannot be escaped in overlay options
        try:
            done = subprocess.run(mount, capture_output=True, check=False)
        except OSError:
            continue
        if done.returncode == 0:
            return unmount
    shutil.copytree(lower, merged, symlinks=True, dirs_exist_ok=True)
    return None
