"""Keep the graded agent's directories off `sys.path`, so the grader imports nothing from them.

`python -m rewardkit` puts the working directory first on `sys.path` (`rewardkit/__init__.py`
drops it before any import), and `PYTHONPATH` may name the working directory or the
workspace: an agent's `json.py` or `yaml.py` there would run as grader code. Worker processes
are forked from the command, so they inherit the cleaned path.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["keep_off_sys_path"]


def keep_off_sys_path(*dirs: Path, cwd: bool = False) -> None:
    """Take off `sys.path` `''` and relative entries (they name whatever the working directory
    is), every entry in one of `dirs`, and, with `cwd`, the working directory itself."""
    trees = [d.resolve() for d in dirs]
    here = Path.cwd().resolve() if cwd else None

    def kept(entry: str) -> bool:
        if not os.path.isabs(entry):
            return False
        path = Path(entry).resolve()
        return path != here and not any(path.is_relative_to(tree) for tree in trees)

    sys.path[:] = [entry for entry in sys.path if kept(entry)]
