"""`rewardkit TESTS_DIR...`: Harbor RewardKit's command line, flag for flag."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path

from rewardkit import __version__
from rewardkit.cli._commands import SUBCOMMANDS
from rewardkit.cli._strict import add_strict_argument
from rewardkit.cli._syspath import keep_off_sys_path
from rewardkit.cli._workers import (
    add_budget_argument,
    add_worker_arguments,
    run_budget,
    say_models,
)
from rewardkit.core._errors import ConfigError, for_terminal
from rewardkit.engine import Limits
from rewardkit.harbor._compare import format_comparison
from rewardkit.harbor._verifier import (
    DEFAULT_OUTPUT,
    DEFAULT_WORKSPACE,
    ERROR_POLICIES,
    Verdict,
    verify,
)

__all__ = ["EXIT_CONFIG", "EXIT_CRITERION_ERRORS", "EXIT_OK", "main"]

EXIT_OK = 0
EXIT_CONFIG = 2
"""Bad arguments or configuration: nothing ran."""
EXIT_CRITERION_ERRORS = 3
"""Every output was written, but at least one criterion errored or timed out."""

_EPILOG = "\n".join(
    [
        "commands (rewardkit COMMAND --help for each):",
        *(f"  {name:<10} {what}" for name, what in SUBCOMMANDS.items()),
        "",
        "exit codes:",
        f"  {EXIT_OK}  every criterion scored",
        f"  {EXIT_CRITERION_ERRORS}  outputs written, but some criterion errored (see "
        "reward-details.json)",
        f"  {EXIT_CONFIG}  bad arguments or configuration: nothing ran",
        "  1  internal error",
        "  141  its output was closed (e.g. piped into head): nothing more is printed",
    ]
)


def _key_value(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"--judge-env expects KEY=VALUE, got: {text!r}")
    return key, value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit",
        usage="rewardkit [COMMAND | TESTS_DIR ...] [options]",
        description="Discover and run folder-based rewards (Harbor RewardKit's command line), "
        "or run one of the commands below.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", "-V", action="version", version=f"rewardkit {__version__}")
    parser.add_argument(
        "tests_dirs",
        nargs="+",
        help="Path(s) to tests directory. Multiple dirs run independently and are compared.",
    )
    parser.add_argument(
        "--workspace", default=DEFAULT_WORKSPACE, help="Workspace path (default: /app)"
    )
    parser.add_argument(
        "--output",
        default=DEFAULT_OUTPUT,
        help="Output JSON path (default: /logs/verifier/reward.json); reward-details.json "
        "is written next to it",
    )
    for kind, default, what in (
        ("programmatic", 8, "programmatic criteria"),
        ("llm", 8, "LLM judge calls"),
        ("agent", 2, "agent judge calls"),
    ):
        short = {"programmatic": "prog"}.get(kind, kind)
        parser.add_argument(
            f"--max-concurrent-{kind}",
            f"--mc{short}",
            f"--mc{kind[0]}",
            type=int,
            default=default,
            help=f"Max {what} to run in parallel (0 = unlimited, default: {default})",
        )
    parser.add_argument(
        "--judge-env",
        "--je",
        metavar="KEY=VALUE",
        type=_key_value,
        action="append",
        default=[],
        help="Set an env var for the judge run (repeatable). Overrides parent env.",
    )
    parser.add_argument(
        "--judge",
        "-j",
        metavar="MODEL_OR_AGENT",
        help="Override the rubric's [judge].judge field. Equivalent to setting REWARDKIT_JUDGE.",
    )
    parser.add_argument(
        "--model",
        "-m",
        help="Override the rubric's [judge].model field (used when the judge is an agent). "
        "Equivalent to setting REWARDKIT_MODEL.",
    )
    parser.add_argument(
        "--reasoning-effort",
        "--effort",
        metavar="LEVEL",
        help="Override the rubric's [judge].reasoning_effort field. Equivalent to setting "
        "REWARDKIT_REASONING_EFFORT.",
    )
    parser.add_argument(
        "--yolo",
        action="store_true",
        help="Run even when a non-isolated agent judge shares the workspace with other agent "
        "judge runs (several samples or several agent judges).",
    )
    parser.add_argument(
        "--cache",
        metavar="DIR",
        default=os.environ.get("REWARDKIT_CACHE_DIR") or None,
        help="Cache LLM judge verdicts in DIR: an unchanged re-run makes no model calls. "
        "Env: REWARDKIT_CACHE_DIR.",
    )
    parser.add_argument(
        "--emit-judges",
        action="store_true",
        help="With an eval.yaml tests dir: also write each judge's normalized value to "
        "reward.json (under its name), next to the composed `reward`.",
    )
    add_worker_arguments(parser, "criterion")
    parser.add_argument(
        "--on-error",
        choices=ERROR_POLICIES,
        default=os.environ.get("REWARDKIT_ON_ERROR", "zero"),
        help="How an errored criterion counts: zero (default) scores it 0; omit leaves it out "
        "of its aggregate; fail sets every reward to 0. Env: REWARDKIT_ON_ERROR.",
    )
    said = parser.add_mutually_exclusive_group()
    said.add_argument(
        "-q", "--quiet", action="store_true", help="print only the reward lines on stdout"
    )
    said.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="after the rewards, list every criterion with its value (default: only those "
        f"below 1.0, at most {SHOWN})",
    )
    add_budget_argument(parser)
    add_strict_argument(parser)
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    keep_off_sys_path(Path(args.workspace))
    for key, value in args.judge_env:
        os.environ[key] = value
    if args.judge_env:  # explicit, so agent CLIs get them past their allow-list
        listed = [n for n in os.environ.get("REWARDKIT_AGENT_ENV", "").split(",") if n]
        keys = [key for key, _ in args.judge_env if key not in listed]
        os.environ["REWARDKIT_AGENT_ENV"] = ",".join([*listed, *keys])
    for flag, env in (
        (args.judge, "REWARDKIT_JUDGE"),
        (args.model, "REWARDKIT_MODEL"),
        (args.reasoning_effort, "REWARDKIT_REASONING_EFFORT"),
    ):
        if flag:
            os.environ[env] = flag
    limits = Limits(
        programmatic=args.max_concurrent_programmatic,
        llm=args.max_concurrent_llm,
        agent=args.max_concurrent_agent,
        cache_dir=Path(args.cache) if args.cache else None,
        timeout=args.timeout,
        memory_mb=args.memory_mb,
    )
    if args.output == DEFAULT_OUTPUT:
        print(f"rewardkit: writing {DEFAULT_OUTPUT} (the default; --output PATH)", file=sys.stderr)
    try:
        with run_budget(args.max_cost_usd) as ledger:
            results = verify(
                args.tests_dirs,
                args.workspace,
                args.output,
                limits=limits,
                on_error=args.on_error,
                yolo=args.yolo,
                emit_judges=args.emit_judges,
            )
            say_models(ledger.models(), args.max_concurrent_llm)
    except ConfigError as exc:
        print(f"rewardkit: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    multi = len(args.tests_dirs) > 1
    by_label = {Path(d).name: r.rewards for d, r in zip(args.tests_dirs, results, strict=True)}
    for label, rewards in by_label.items():
        for name, score in rewards.items():
            print(f"{label}/{name}: {score}" if multi else f"{name}: {score}")
    table = format_comparison(by_label) if multi else ""
    if table:
        print()
        print(table)
    if not args.quiet:
        for line in _table(by_label.keys(), results, verbose=args.verbose):
            print(line)
    if "rewardkit.models._litellm" in sys.modules:  # outputs are written: skip slow teardown
        sys.modules["rewardkit.models._litellm"].prepare_exit()
    failures = [(r, o) for r in results for o in r.failures]
    for _, outcome in failures:
        line = f"rewardkit: criterion {outcome.name!r} {outcome.status}: {outcome.error}"
        print(for_terminal(line), file=sys.stderr)
    return EXIT_CRITERION_ERRORS if failures else EXIT_OK


SHOWN = 10
"""Rows of the table of criteria below 1.0 printed after a run (`-v`: every criterion)."""


def _table(labels: Iterable[str], results: list[Verdict], *, verbose: bool) -> list[str]:
    """The criteria below 1.0 (with `verbose`, all), each with its value and why."""
    rows = [
        (f"{label}/{o.name}" if len(results) > 1 else o.name, o)
        for label, result in zip(labels, results, strict=True)
        for o in result.outcomes
    ]
    total = len(rows)
    if not verbose:
        rows = [(name, o) for name, o in rows if o.value is None or o.value < 1.0]
    if not rows:
        return []
    head = "criteria" if verbose else f"below 1.0: {len(rows)} of {total} criteria"
    shown = rows if verbose else rows[:SHOWN]
    width = min(max(len(name) for name, _ in shown), 60)
    lines = ["", head]
    for name, outcome in shown:
        value = f"{outcome.value:.2f}" if outcome.value is not None else outcome.status
        why = outcome.error or outcome.reasoning or ""
        why = textwrap.shorten(for_terminal(why), 100)
        lines.append(f"  {value:>7}  {name:<{width}}  {why}".rstrip())
    if len(rows) > len(shown):
        lines.append(f"  ... and {len(rows) - len(shown)} more (-v lists every criterion)")
    return lines
