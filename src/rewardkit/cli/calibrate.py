"""`rewardkit calibrate LABELS.jsonl --eval EVAL_YAML [--judge NAME]` (or `--tests DIR`):
does a judge agree with people? Agreement with 95% intervals, across the judge's samples,
the thresholds that fit the labels, and bias probes, in `calibration.json` and a table."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rewardkit.core._errors import ConfigError

if TYPE_CHECKING:
    from rewardkit.calibration import Item
    from rewardkit.calibration._targets import Target
    from rewardkit.evalyaml._judge import EvalJudge
    from rewardkit.evalyaml._suite import EvalSuite

__all__ = ["main"]

EXIT_OK, EXIT_BELOW, EXIT_BAD_INPUT, EXIT_JUDGE_ERRORS = 0, 1, 2, 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit calibrate",
        description="Run a judge (an eval.yaml judge, or a tests directory's judge TOMLs and "
        "criteria) over items people labelled (pass/fail, a score, "
        "or a preference between two outputs) and measure how well it agrees with them, with "
        "95%% bootstrap intervals; write calibration.json and print a table.",
        epilog=f"exit codes: {EXIT_OK} ok; {EXIT_BELOW} agreement (kappa, or alpha for scores) "
        f"below --min-agreement; {EXIT_JUDGE_ERRORS} some item could not be judged; "
        f"{EXIT_BAD_INPUT} bad arguments, labels or configuration.",
    )
    parser.add_argument(
        "labels",
        type=Path,
        nargs="?",
        help="a .jsonl of labelled items: {id, input, output, label} or, for a preference, "
        '{id, input, output, output_b, preferred: "a"|"b"} (or use --cases)',
    )
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--eval",
        type=Path,
        dest="suite",
        metavar="EVAL_YAML",
        help="the eval.yaml (or its directory) that declares the judge",
    )
    where.add_argument(
        "--tests",
        type=Path,
        metavar="TESTS_DIR",
        help="a Harbor tests directory (judge TOMLs, criteria): its reward on each item's "
        "`workspace` is the judge's score, on [0, 1]",
    )
    parser.add_argument(
        "--judge",
        help="the judge's name in the eval.yaml (default: its only judge); with --tests, a "
        "reward key (a subdirectory's) instead of the reward",
    )
    parser.add_argument(
        "--cases",
        type=Path,
        help="instead of LABELS: a directory of eval cases (or a harness run's cases/), each "
        "with `label` (true, false or a score) in its annotations.yaml",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("calibration.json"), help="default: calibration.json"
    )
    parser.add_argument(
        "--samples",
        type=_positive,
        default=1,
        help="score every item N times: the judge's score is their majority or lower median, "
        "and Krippendorff's alpha across the N samples is reported (default 1)",
    )
    parser.add_argument(
        "--probes",
        action="store_true",
        help="also run the bias probes: order swap (preferences), padding, confident wrong",
    )
    parser.add_argument(
        "--fail-share",
        type=_share,
        help="report the judge score below which this share of the labelled set fails",
    )
    parser.add_argument(
        "--pass-at",
        type=float,
        help="a numeric judge's pass mark against pass/fail labels (default: the middle of "
        "its score_range, else 0.5)",
    )
    parser.add_argument(
        "--min-agreement",
        type=float,
        help="exit 1 when kappa (pass/fail, preference) or alpha (scores) is below this",
    )
    parser.add_argument("--seed", type=int, default=0, help="the bootstrap's seed (default 0)")
    parser.add_argument(
        "--max-concurrent",
        type=int,
        default=int(os.environ.get("REWARDKIT_MAX_CONCURRENT", "8")),
        help="calls per judge model at once (env REWARDKIT_MAX_CONCURRENT)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print calibration.json instead of the table"
    )
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 (got {value})")
    return value


def _share(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (got {value})")
    return value


def main(argv: list[str]) -> int:
    from rewardkit.calibration import Options, calibrate, headline, table_lines
    from rewardkit.core._files import atomic_write

    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.labels is None) == (args.cases is None):
        parser.error("give either LABELS (a .jsonl) or --cases DIR")
    if args.tests is not None and (args.cases is not None or args.probes):
        parser.error("--tests takes LABELS with workspaces; --cases and --probes need --eval")
    if args.cases is not None:
        from rewardkit.cli._syspath import keep_off_sys_path

        keep_off_sys_path(args.cases)
    try:
        judge, items = _load(args)
    except ConfigError as exc:
        print(f"rewardkit calibrate: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    options = Options(
        samples=args.samples,
        probes=args.probes,
        fail_share=args.fail_share,
        pass_at=args.pass_at,
        seed=args.seed,
    )
    data = calibrate(judge, items, options)
    name, value = headline(data)
    if args.min_agreement is not None:
        data["min_agreement"] = {
            "statistic": name,
            "threshold": args.min_agreement,
            "passed": value is not None and value >= args.min_agreement,
        }
    atomic_write(args.out, json.dumps(data, indent=2, allow_nan=False) + "\n")
    if args.json:
        print(json.dumps(data, indent=2, allow_nan=False))
    else:
        print("\n".join([*table_lines(data), f"wrote {args.out}"]))
    if args.min_agreement is not None and not data["min_agreement"]["passed"]:
        shown = "undefined" if value is None else f"{value:.3f}"
        print(
            f"rewardkit calibrate: {name} {shown} is below --min-agreement {args.min_agreement}",
            file=sys.stderr,
        )
        return EXIT_BELOW
    return EXIT_JUDGE_ERRORS if data["judge_errors"]["count"] else EXIT_OK


def _load(args: argparse.Namespace) -> tuple[Target, list[Item]]:
    from rewardkit.calibration import read_cases, read_jsonl
    from rewardkit.calibration._targets import check_workspaces, eval_target, tests_target

    if args.tests is not None:
        items = read_jsonl(args.labels)
        check_workspaces([(i.id, i.record) for i in items], [i.where for i in items])
        return tests_target(args.tests, args.judge, args.max_concurrent), items
    from rewardkit.evalyaml._suite import load_suite

    suite = load_suite(args.suite, untrusted=[args.cases] if args.cases else [])
    judge = eval_target(suite, _judge(suite, args.judge), args.max_concurrent)
    if args.labels is not None:
        items = read_jsonl(args.labels)
        for item in items:
            _read_workspace(item)
        return judge, items
    from rewardkit.evalyaml._cases import case_record
    from rewardkit.evalyaml._runs import find_cases

    root, names, layout = find_cases(suite, args.cases)
    records = []
    for name in names:
        try:
            records.append((name, case_record(root / name, name, layout)))
        except (ConfigError, OSError, ValueError) as exc:
            raise ConfigError(f"the case could not be read: {exc}", path=root / name) from None
    return judge, read_cases(records, root)


def _read_workspace(item: Item) -> None:
    """An item judged by its `workspace`: the files an eval.yaml judge reads (capped)."""
    workspace = item.record.get("workspace")
    if workspace is None or item.record["files"]:
        return
    from rewardkit.evalyaml._cases import produced

    try:
        item.record.update(produced(Path(workspace)))
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"the workspace could not be read: {exc}", path=item.where, key="workspace"
        ) from None


def _judge(suite: EvalSuite, name: str | None) -> EvalJudge:
    names = [judge.name for judge in suite.judges]
    if name is None:
        if len(suite.judges) == 1:
            return suite.judges[0]
        raise ConfigError(
            f"it declares {len(names)} judges: pass --judge NAME (one of {', '.join(names)})",
            path=suite.path,
            key="judges",
        )
    for judge in suite.judges:
        if judge.name == name:
            return judge
    from difflib import get_close_matches

    close = get_close_matches(name, names, n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    raise ConfigError(
        f"no judge named {name!r}.{hint} Judges: {', '.join(names) or '(none)'}",
        path=suite.path,
        key="--judge",
    )
