"""The `rewardkit` command.

`rewardkit TESTS_DIR [TESTS_DIR ...]` is Harbor RewardKit's command line. Subcommands
(`rewardkit eval ...`) dispatch on the first argument; a tests directory that happens to be
named like a subcommand can always be passed as `./eval`.
"""

from __future__ import annotations

import sys

from rewardkit.cli import verify

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit code (see `rewardkit --help`)."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "eval":
        from rewardkit.cli import eval as evaluate

        return evaluate.main(args[1:])
    if args and args[0] == "score":
        from rewardkit.cli import score

        return score.main(args[1:])
    if args and args[0] == "serve":
        from rewardkit.cli import serve

        return serve.main(args[1:])
    if args and args[0] == "check":
        from rewardkit.cli import check

        return check.main(args[1:])
    return verify.main(args)
