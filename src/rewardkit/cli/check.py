"""`rewardkit check PATH`: validate a tests dir or an eval.yaml and print its plan."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rewardkit._errors import ConfigError

__all__ = ["main"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="rewardkit check",
        description="Load and validate a tests directory or an eval.yaml, then print what it "
        "will compute: each reward key, how it is composed, each judge. Exit 2 on any error.",
    )
    parser.add_argument("path", type=Path, help="a tests directory or an eval.yaml")
    args = parser.parse_args(argv)
    from rewardkit.outputs.plan import describe_plan, describe_suite
    from rewardkit.sources.eval_yaml import load_suite
    from rewardkit.sources.tests_dir import discover

    path: Path = args.path
    try:
        if path.name.endswith((".yaml", ".yml")) or (path / "eval.yaml").is_file():
            text = describe_suite(load_suite(path))
        else:
            text = describe_plan(discover(path))
    except ConfigError as exc:
        print(f"rewardkit check: error: {exc}", file=sys.stderr)
        return 2
    print(text)
    return 0
