"""Run code the graded side wrote, in the jail (`rewardkit.jail`).

`run_code` runs a program as it stands (stdin in, stdout judged here); `run_harness`
runs it beside the trusted test harness (`_harness.py`), whose report on descriptor 3 is
judged here by `_verdict`. Python runs in the jail's forked interpreter, as `python -I`
would; JavaScript needs `node` on `PATH`.
"""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rewardkit.jail import ExecutionResult

__all__ = ["check_language", "run_code", "run_harness"]

_FILE = {"python": "main.py", "javascript": "main.js"}


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError(
            "language='javascript' needs Node.js, but `node` is not on PATH. Install it "
            "(e.g. apt-get install nodejs) or score Python code instead."
        )
    return node


def check_language(language: str) -> None:
    """Raise what `run_code` would for `language`, before anything runs.

    Raises:
        ValueError: not a supported language.
        RuntimeError: its runtime (`node`) is not installed.
    """
    if language not in _FILE:
        raise ValueError(f"language must be one of {sorted(_FILE)} (got {language!r})")
    if language == "javascript":
        _node()


def run_code(
    code: str,
    language: str,
    *,
    stdin: str | None = None,
    timeout: float,
    memory_mb: int | None,
    max_output_bytes: int = 1_000_000,
) -> ExecutionResult:
    """Run `code` as a program in a fresh cell of the jail.

    The memory limit is the address space for Python; Node.js reserves far more address
    space than it uses, so it gets V8's `--max-old-space-size` instead.
    """
    from rewardkit.jail import run_program, run_python

    check_language(language)
    limits: dict[str, Any] = {"stdin": stdin, "timeout": timeout,
                              "max_output_bytes": max_output_bytes}  # fmt: skip
    if language == "python":
        return run_python("main.py", files={"main.py": code}, memory_mb=memory_mb, **limits)
    heap = [f"--max-old-space-size={memory_mb}"] if memory_mb else []
    argv = [_node(), *heap, "main.js"]
    return run_program(argv, files={"main.js": code}, memory_mb=None, **limits)


@functools.cache
def _harness_source() -> str:
    return Path(__file__).with_name("_harness.py").read_text(encoding="utf-8")


def run_harness(
    solution: str,
    case: dict[str, Any],
    *,
    timeout: float,
    memory_mb: int | None,
    max_output_bytes: int = 1_000_000,
) -> ExecutionResult:
    """Run the Python `solution` under the harness with `case` (see `_harness.py`); the
    result's `report` is the harness's, for `_verdict` to judge."""
    from rewardkit.jail import run_python

    files = {"main.py": _harness_source(), "solution.py": solution, "case.json": json.dumps(case)}
    return run_python(
        "main.py",
        files=files,
        timeout=timeout,
        memory_mb=memory_mb,
        max_output_bytes=max_output_bytes,
        report=True,
    )
