"""`rewardkit report INPUT [--out report.html]`: statistics, a baseline comparison and RL-signal
diagnostics of a scored run, in the terminal or as one self-contained HTML file."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rewardkit._errors import ConfigError

__all__ = ["main"]

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit report",
        description="Report on a scored run: an eval run (summary.json or its directory), a "
        "Harbor job directory (<trial>/verifier/reward.json), or a `rewardkit score` results "
        ".jsonl. Without --out, print the per-criterion table.",
        epilog=f"exit codes: {EXIT_OK} ok (unreadable files are listed, the rest reported); "
        f"{EXIT_BAD_INPUT} no such input, or not one result in it; {EXIT_INTERNAL} an internal "
        "error.",
    )
    parser.add_argument("input", type=Path, help="summary.json, a job directory, or results.jsonl")
    parser.add_argument("--out", type=Path, help="write the HTML report here")
    parser.add_argument(
        "--baseline", type=Path, help="another run to compare with, case by case (same kinds)"
    )
    parser.add_argument(
        "--rollouts",
        type=Path,
        help="the rollouts .jsonl a results file was scored from: completion lengths for the "
        "length diagnostics (joined by id)",
    )
    parser.add_argument(
        "--pass-threshold",
        type=float,
        default=float(os.environ.get("REWARDKIT_PASS_THRESHOLD", "1.0")),
        help="the reward at which a sample passes, for pass@k (env REWARDKIT_PASS_THRESHOLD; "
        "default 1.0)",
    )
    parser.add_argument("--title", help="the HTML page's title")
    return parser


def main(argv: list[str]) -> int:
    from rewardkit.report import build_report
    from rewardkit.report._terminal import diagnostic_lines, print_report

    args = build_parser().parse_args(argv)
    try:
        report = build_report(
            args.input,
            baseline=args.baseline,
            rollouts=args.rollouts,
            pass_threshold=args.pass_threshold,
        )
    except ConfigError as exc:
        print(f"rewardkit report: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    for problem in report.run.problems:
        print(f"rewardkit: warning: {problem}", file=sys.stderr)
    if args.out is not None:
        report.write_html(args.out, args.title)
        print(f"wrote {args.out} ({report.stats.cases} cases)")
        if report.diagnostics is not None:
            print("\n".join(diagnostic_lines(report.diagnostics)))
        return EXIT_OK
    print_report(
        report.run,
        report.stats,
        sys.stdout,
        comparison=report.comparison,
        diagnostics=report.diagnostics,
    )
    return EXIT_OK
