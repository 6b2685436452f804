"""`rewardkit check PATH`: validate a tests dir or an eval.yaml and print its plan."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit.cli._strict import add_strict_argument
from rewardkit.cli._strict import warning as say_warning
from rewardkit.core._errors import ConfigError

if TYPE_CHECKING:
    from rewardkit.engine._plan import Plan
    from rewardkit.evalyaml._suite import EvalSuite

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit check",
        description="Load and validate a tests directory or an eval.yaml, then print what it "
        "will compute: each reward key, how it is composed, each judge.",
        epilog="exit codes: 0 valid; 2 a configuration problem: an error, a likely typo (a "
        "warning with a suggestion) or nothing to score.",
    )
    parser.add_argument(
        "path", type=Path, help="a tests directory, an eval.yaml or an OpenAI grader JSON"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON document instead of the plan: valid, errors, warnings and the "
        "plan as data (the lines on stderr stay)",
    )
    parser.add_argument(
        "--estimate",
        action="store_true",
        help="also project the LLM judges' model calls, tokens and cost before a run (printed, "
        "and under 'estimate' with --json); what it assumes is printed with it",
    )
    add_strict_argument(parser)
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    from rewardkit.evalyaml._suite import load_suite
    from rewardkit.harbor._tests_dir import discover
    from rewardkit.outputs.plan import describe_plan, describe_suite, plan_data, suite_data

    path: Path = args.path
    data: dict[str, Any] | None = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if path.name.endswith((".yaml", ".yml")) or (path / "eval.yaml").is_file():
                suite = load_suite(path)
                text, empty = describe_suite(suite), not suite.judges and suite.pairwise is None
                data = suite_data(suite) if args.json else None
                estimate = _estimate(suite) if args.estimate else None
                for trap in suite.traps():  # silent zeros: warnings, not errors
                    warnings.warn(trap, stacklevel=1)
            elif path.suffix == ".json":  # an OpenAI grader
                from rewardkit.graders import describe_grader, grader_data, load_grader

                grader = load_grader(path)
                text, empty, estimate = describe_grader(grader, str(path)), False, None
                data = grader_data(grader) if args.json else None
            else:
                plan = discover(path)
                text, empty = describe_plan(plan), not list(plan.leaves())
                data = plan_data(plan) if args.json else None
                estimate = _estimate(plan) if args.estimate else None
                for source, name in plan.renamed:
                    warnings.warn(
                        f"{source}: another criterion has this one's name, so it is "
                        f"reported as {name!r}. Give each its own name=... to tell them apart.",
                        stacklevel=1,
                    )
        except ConfigError as exc:
            print(f"rewardkit check: error: {exc}", file=sys.stderr)
            if args.json:
                errors = [str(e) for e in getattr(exc, "errors", [exc])]
                _print_json(False, [], errors, None)
            return 2
    problems = [str(w.message) for w in caught if _is_problem(str(w.message))]
    shown = [str(w.message) for w in caught if str(w.message) not in problems]
    for warning in shown:
        say_warning(warning)
    if empty and not problems:
        problems.append(f"{path}: nothing to score: no criteria or judges found")
    if args.json:
        _print_json(not problems, shown, problems, data, estimate)
    else:
        print(text)
        if estimate is not None:
            from rewardkit.outputs.estimate import describe_estimate

            print(describe_estimate(estimate))
    for problem in problems:
        print(f"rewardkit check: error: {problem}", file=sys.stderr)
    return 2 if problems else 0


def _print_json(
    valid: bool,
    shown: list[str],
    errors: list[str],
    plan: dict[str, Any] | None,
    estimate: dict[str, Any] | None = None,
) -> None:
    document = {"valid": valid, "errors": errors, "warnings": shown, "plan": plan}
    if estimate is not None:
        document["estimate"] = estimate
    print(json.dumps(document, indent=2))


def _estimate(source: Plan | EvalSuite) -> dict[str, Any]:
    """`--estimate`'s projection (see `rewardkit.outputs.estimate`)."""
    from rewardkit.evalyaml._suite import EvalSuite
    from rewardkit.outputs.estimate import estimate_plan, estimate_suite

    return estimate_suite(source) if isinstance(source, EvalSuite) else estimate_plan(source)


def _is_problem(message: str) -> bool:
    """A warning `check` fails on: a likely typo (it has a suggestion) or nothing to score."""
    return "Did you mean" in message or "No criteria found" in message
