"""The `rewardkit` command.

`rewardkit TESTS_DIR [TESTS_DIR ...]` is Harbor RewardKit's command line. Subcommands
(`rewardkit eval ...`) dispatch on the first argument; a tests directory that happens to be
named like a subcommand can always be passed as `./eval`.

Every front door uses the same exit codes: 0 scored; 3 outputs written but some criterion or
judge errored; 2 bad arguments or configuration, before anything runs; 1 an internal error;
4 with `--strict`, a run that printed a warning; 141 (as a shell reports SIGPIPE) when its
output is closed early, e.g. piped into `head`. Warnings print as one line,
`rewardkit: warning: <message>`.
"""

from __future__ import annotations

import os
import sys
import warnings
from importlib import import_module
from pathlib import Path

from rewardkit.cli._commands import SUBCOMMANDS
from rewardkit.cli._strict import counted, strict_exit

__all__ = ["SUBCOMMANDS", "main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (see `rewardkit --help`)."""
    if argv is None:  # this process is the command: the working directory may be the agent's
        from rewardkit.cli._syspath import keep_off_sys_path

        keep_off_sys_path(cwd=True)
    args = sys.argv[1:] if argv is None else argv
    shown = warnings.formatwarning
    warnings.formatwarning = _one_line
    try:
        code = strict_exit(_dispatch(args), args)
        sys.stdout.flush()
        return code
    except BrokenPipeError:  # `rewardkit check ... | head`: the reader is gone, quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # nothing left to flush at exit
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:  # Ctrl-C: a line, not a traceback; worker processes end with us
        print(
            "rewardkit: interrupted (what `eval` and `score` wrote is kept: run the same "
            "command again to resume)",
            file=sys.stderr,
        )
        return EXIT_INTERRUPTED
    finally:
        warnings.formatwarning = shown


EXIT_BROKEN_PIPE = 141
"""What a shell reports for a command ended by SIGPIPE (128 + 13): its reader stopped."""
EXIT_INTERRUPTED = 130
"""What a shell reports for a command ended by Ctrl-C (128 + SIGINT)."""


def _dispatch(args: list[str]) -> int:
    first = args[0] if args else ""
    if first in SUBCOMMANDS:
        module = import_module(f"rewardkit.cli.{first}")
        code: int = module.main(args[1:])
        return code
    if first in ("--version", "-V"):
        from rewardkit import __version__

        print(f"rewardkit {__version__}")
        return 0
    if first and not first.startswith("-") and not Path(first).exists():
        from difflib import get_close_matches

        close = get_close_matches(first, SUBCOMMANDS, n=1, cutoff=0.6)
        if close:
            print(
                f"rewardkit: error: unknown command {first!r}. Did you mean {close[0]!r}? "
                f"Commands: {', '.join(SUBCOMMANDS)} (or a tests directory).",
                file=sys.stderr,
            )
            return 2
    from rewardkit.cli import verify

    return verify.main(args)


def _one_line(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    line: str | None = None,
) -> str:
    """`rewardkit: warning: <message>`: our messages name their file; no source line."""
    counted()
    kind = "" if category in (UserWarning, RuntimeWarning) else f"{category.__name__}: "
    return f"rewardkit: warning: {kind}{message}\n"
