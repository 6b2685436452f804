"""`rewardkit report INPUT [--out report.html] [--json]`: statistics, a baseline comparison and
RL-signal diagnostics of a scored run, in the terminal, as JSON, or as one self-contained HTML
file; or, for a `calibration.json` (`rewardkit calibrate`), the judge's calibration."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError

__all__ = ["main"]

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit report",
        description="Report on a scored run: an eval run (summary.json or its directory), a "
        "Harbor job directory (<trial>/verifier/reward.json), or a `rewardkit score` results "
        ".jsonl; or a `rewardkit calibrate` calibration.json. Without --out, print the "
        "per-criterion table (or, with --json, its numbers).",
        epilog=f"exit codes: {EXIT_OK} ok (unreadable files are listed, the rest reported); "
        f"{EXIT_BAD_INPUT} no such input, or not one result in it, a malformed calibration.json, "
        "or an invalid --eval; "
        f"{EXIT_INTERNAL} an internal error.",
    )
    parser.add_argument(
        "input",
        type=Path,
        help="summary.json, a job directory, results.jsonl, or a calibration.json",
    )
    parser.add_argument("--out", type=Path, help="write the HTML report here")
    parser.add_argument(
        "--baseline", type=Path, help="another run to compare with, case by case (same kinds)"
    )
    parser.add_argument(
        "--rollouts",
        type=Path,
        help="the rollouts .jsonl a results file was scored from (joined by id): completion "
        "lengths for the length diagnostics, and each case's prompt and completion in the page",
    )
    parser.add_argument(
        "--pass-threshold",
        type=float,
        default=float(os.environ.get("REWARDKIT_PASS_THRESHOLD", "1.0")),
        help="the reward at which a sample passes, for pass@k (env REWARDKIT_PASS_THRESHOLD; "
        "default 1.0)",
    )
    parser.add_argument(
        "--eval",
        type=Path,
        dest="suite",
        metavar="EVAL_YAML",
        help="the eval.yaml an eval run was scored from (or its directory): the page's title is "
        "its name, and each case's view shows the case's input.yaml and output files",
    )
    parser.add_argument(
        "--cases",
        type=Path,
        help="with --eval: the cases directory `rewardkit eval --cases` was given (default: "
        "the eval.yaml's dataset.path)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the report's numbers as one JSON document instead of the table: the "
        "reward's and each judge's mean, standard error, 95%% interval and outcome counts, "
        "pass@k, the baseline comparison, the RL-signal diagnostics and the input problems",
    )
    parser.add_argument(
        "--calibration",
        type=Path,
        metavar="CALIBRATION_JSON",
        help="a `rewardkit calibrate` calibration.json of the run's judge: its figures after "
        "the table, under `calibration` with --json, and as a section of the page",
    )
    parser.add_argument("--title", help="the HTML page's title (default: the suite's name)")
    return parser


def main(argv: list[str]) -> int:
    from rewardkit.report import build_report
    from rewardkit.report._terminal import diagnostic_lines, print_report

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.cases is not None and args.suite is None:
        parser.error("--cases needs --eval (the eval.yaml the cases were scored with)")
    if args.cases is not None:
        from rewardkit.cli._syspath import keep_off_sys_path

        keep_off_sys_path(args.cases)
    try:
        from rewardkit.report._calibration import read_calibration

        calibration = read_calibration(args.input)
        extra = None
        if args.calibration is not None and calibration is None:
            extra = read_calibration(args.calibration, required=True)
    except ConfigError as exc:
        print(f"rewardkit report: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if calibration is not None:
        return _calibration(parser, args, calibration)
    try:
        report = build_report(
            args.input,
            baseline=args.baseline,
            rollouts=args.rollouts,
            pass_threshold=args.pass_threshold,
            suite=args.suite,
            cases=args.cases,
            texts=args.out is not None,
        )
    except ConfigError as exc:
        print(f"rewardkit report: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if extra is not None:
        from dataclasses import replace

        report = replace(report, calibration=extra)
    for problem in report.run.problems:
        print(f"rewardkit: warning: {problem}", file=sys.stderr)
    if args.out is not None:
        report.write_html(args.out, args.title)
        lines = [f"wrote {args.out} ({report.stats.cases} cases)"]
        if report.diagnostics is not None:
            lines += diagnostic_lines(report.diagnostics)
        # with --json, stdout holds the JSON document alone
        print("\n".join(lines), file=sys.stderr if args.json else sys.stdout)
    if args.json:
        json.dump(report.data(), sys.stdout, indent=2, allow_nan=False)
        print()
    elif args.out is None:
        print_report(
            report.run,
            report.stats,
            sys.stdout,
            comparison=report.comparison,
            diagnostics=report.diagnostics,
        )
        if extra is not None:
            from rewardkit.report._calibration import calibration_lines

            print("\n".join(["", *calibration_lines(extra)]))
    return EXIT_OK


def _calibration(
    parser: argparse.ArgumentParser, args: argparse.Namespace, data: dict[str, Any]
) -> int:
    """`rewardkit report calibration.json`: its table, its figures (--json), or a page."""
    from rewardkit.report._calibration import calibration_html, calibration_lines

    run_only = ("baseline", "rollouts", "suite", "cases", "calibration")
    given = [name for name in run_only if getattr(args, name) is not None]
    if given:
        parser.error(f"--{given[0].replace('suite', 'eval')} reports on a run, not a calibration")
    if args.out is not None:
        from rewardkit.core._files import atomic_write

        args.out.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(args.out, calibration_html(data, str(args.input), args.title))
        print(f"wrote {args.out}", file=sys.stderr if args.json else sys.stdout)
    if args.json:
        json.dump(data, sys.stdout, indent=2, allow_nan=False)
        print()
    elif args.out is None:
        print("\n".join(calibration_lines(data)))
    return EXIT_OK
