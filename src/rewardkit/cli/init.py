"""`rewardkit init harbor|eval|rl [DIR]`: write a starter project that runs as printed.

The templates are package data, `cli/_starters/<kind>/`; each file's name ends in `.tmpl`
(dropped when written) so that pytest, mypy and ruff leave them alone inside the package.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from dataclasses import dataclass
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path, PurePosixPath

__all__ = ["STARTERS", "build_parser", "main"]

EXIT_OK, EXIT_CONFIG = 0, 2


@dataclass(frozen=True, kw_only=True)
class Starter:
    """One kind of starter project."""

    what: str
    """What it writes, for `--help` and the report."""
    commands: tuple[str, ...]
    """What to run in its directory, in order; each exits 0 on the starter as written."""
    expect: str
    """What the user should see."""


STARTERS = {
    "harbor": Starter(
        what="a Harbor task's tests directory (tests/) and a workspace to grade (app/)",
        commands=("rewardkit tests --workspace app --output out/reward.json",),
        expect="reward: 1.0, written to out/reward.json (details in out/reward-details.json). "
        "In the task, tests/test.sh runs `rewardkit /tests`.",
    ),
    "eval": Starter(
        what="an eval.yaml suite, its code judge (judges.py) and two cases (cases/)",
        commands=("rewardkit eval eval.yaml --out runs/first",),
        expect="every judge passes on both cases, reward: mean 1.0000; runs/first/summary.json "
        "has each case's reward and judges.",
    ),
    "rl": Starter(
        what="a reward function (rewards.py), four rollouts (rollouts.jsonl) and its tests",
        commands=(
            "rewardkit score rollouts.jsonl --config rewards:reward --out scored.jsonl",
            "python -m pytest test_rewards.py",
        ),
        expect="mean reward 0.7500 over 4 valid (one answer is wrong); scored.jsonl has one "
        "result per rollout.",
    ),
}
"""The kinds of `rewardkit init`, by name."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rewardkit init",
        description="Write a starter project into DIR, then print the files written and the "
        "commands that run it.",
        epilog="kinds:\n"
        + "\n".join(f"  {name:<7} {s.what}" for name, s in STARTERS.items())
        + f"\n\nexit codes: {EXIT_OK} written; {EXIT_CONFIG} a file exists (nothing written; "
        "--force to overwrite) or bad arguments.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("kind", choices=STARTERS, help="what to start: harbor, eval or rl")
    parser.add_argument(
        "dir",
        nargs="?",
        metavar="DIR",
        type=Path,
        default=Path("."),
        help="where to write it, created if missing (default: the current directory)",
    )
    parser.add_argument("--force", action="store_true", help="overwrite files that exist")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    root: Path = args.dir
    templates = dict(_templates(args.kind))
    targets = [root / rel for rel in templates]
    existing = [str(path) for path in targets if path.exists() or path.is_symlink()]
    if existing and not args.force:
        more = f" (and {len(existing) - 1} more)" if len(existing) > 1 else ""
        print(
            f"rewardkit init: error: {existing[0]} already exists{more}; nothing was written. "
            "Pass --force to overwrite, or choose another DIR.",
            file=sys.stderr,
        )
        return EXIT_CONFIG
    try:
        for path, template in zip(targets, templates.values(), strict=True):
            _write(path, template)
    except OSError as exc:
        print(f"rewardkit init: error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    _report(args.kind, root, targets)
    return EXIT_OK


def _templates(kind: str) -> list[tuple[PurePosixPath, Traversable]]:
    """The files of a starter: (path in the project, template), sorted by path."""
    found: list[tuple[PurePosixPath, Traversable]] = []
    stack = [(PurePosixPath(), files("rewardkit.cli").joinpath("_starters", kind))]
    while stack:
        rel, folder = stack.pop()
        for entry in folder.iterdir():
            if entry.is_dir():
                stack.append((rel / entry.name, entry))
            elif entry.name.endswith(".tmpl"):
                found.append((rel / entry.name.removesuffix(".tmpl"), entry))
    return sorted(found, key=lambda item: item[0])


def _write(path: Path, template: Traversable) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.unlink(missing_ok=True)  # --force: replace a symlink, never write through it
    path.write_bytes(template.read_bytes())
    if path.suffix == ".sh":
        path.chmod(0o755)


def _report(kind: str, root: Path, written: list[Path]) -> None:
    starter = STARTERS[kind]
    print(f"Wrote {starter.what}:")
    for path in written:
        print(f"  {path}")
    print("Next, run:")
    if os.path.abspath(root) != os.getcwd():
        print(f"  cd {shlex.quote(str(root))}")
    for command in starter.commands:
        print(f"  {command}")
    print(f"You should see {starter.expect}")
