"""`rewardkit check PATH`: validate a tests dir or an eval.yaml and print its plan."""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

from rewardkit._errors import ConfigError

__all__ = ["main"]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="rewardkit check",
        description="Load and validate a tests directory or an eval.yaml, then print what it "
        "will compute: each reward key, how it is composed, each judge.",
        epilog="exit codes: 0 valid; 2 a configuration problem: an error, a likely typo (a "
        "warning with a suggestion) or nothing to score.",
    )
    parser.add_argument("path", type=Path, help="a tests directory or an eval.yaml")
    args = parser.parse_args(argv)
    from rewardkit.batch._backends import suite_traps
    from rewardkit.outputs.plan import describe_plan, describe_suite
    from rewardkit.sources.eval_yaml import load_suite
    from rewardkit.sources.tests_dir import discover

    path: Path = args.path
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if path.name.endswith((".yaml", ".yml")) or (path / "eval.yaml").is_file():
                suite = load_suite(path)
                text, empty = describe_suite(suite), not suite.judges and suite.pairwise is None
                for trap in suite_traps(suite):  # silent zeros: warnings, not errors
                    warnings.warn(trap, stacklevel=1)
            else:
                plan = discover(path)
                text, empty = describe_plan(plan), not list(plan.leaves())
        except ConfigError as exc:
            print(f"rewardkit check: error: {exc}", file=sys.stderr)
            return 2
    problems = [str(w.message) for w in caught if _is_problem(str(w.message))]
    for warning in caught:
        if str(warning.message) not in problems:
            print(f"rewardkit: warning: {warning.message}", file=sys.stderr)
    if empty and not problems:
        problems.append(f"{path}: nothing to score: no criteria or judges found")
    print(text)
    for problem in problems:
        print(f"rewardkit check: error: {problem}", file=sys.stderr)
    return 2 if problems else 0


def _is_problem(message: str) -> bool:
    """A warning `check` fails on: a likely typo (it has a suggestion) or nothing to score."""
    return "Did you mean" in message or "No criteria found" in message
