"""`--strict`: a run that would exit 0 exits `EXIT_WARNED` when it printed a warning.

Every warning a command prints goes through `warning` (or Python's `warnings`, whose
one-line format counts it too), so that `--strict` sees them all.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

__all__ = ["EXIT_WARNED", "add_strict_argument", "counted", "strict_exit", "warning"]

EXIT_WARNED = 4
"""The exit code of a `--strict` run that printed a warning and would otherwise exit 0."""

_shown = [0]


def add_strict_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--strict",
        action="store_true",
        help=f"exit {EXIT_WARNED} where the run would exit 0 but printed a warning (a likely "
        "typo, a judge read on the wrong scale, a silent zero, a value out of range)",
    )


def warning(text: str, say: Callable[[str], None] | None = None) -> None:
    """Print `rewardkit: warning: <text>` on stderr (or through `say`), counted."""
    counted()
    line = f"rewardkit: warning: {text}"
    if say is None:
        print(line, file=sys.stderr, flush=True)
    else:
        say(line)


def counted() -> None:
    """Count one warning shown."""
    _shown[0] += 1


def strict_exit(code: int, args: Sequence[str]) -> int:
    """`code`, or `EXIT_WARNED` for a `--strict` run that would exit 0 after a warning."""
    return EXIT_WARNED if code == 0 and _shown[0] and "--strict" in args else code
