"""`python -m rewardkit`, and `rewardkit.__main__:main`, Harbor RewardKit's entry point."""

import sys

from rewardkit.cli import main as _cli


def main() -> None:
    """Run the command line and exit with its code (importing this module runs nothing)."""
    sys.exit(_cli())


if __name__ == "__main__":
    main()
