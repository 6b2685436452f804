"""`run` and `run_multi`: a Harbor tests directory in, `reward.json` out."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from rewardkit._errors import ConfigError
from rewardkit._outcome import ErrorPolicy
from rewardkit.engine import Limits, RunResult, execute_async
from rewardkit.outputs.harbor import clear_outputs, details, write_outputs
from rewardkit.sources.tests_dir import discover

__all__ = ["run", "run_multi", "verify"]

DEFAULT_WORKSPACE = "/app"
DEFAULT_OUTPUT = "/logs/verifier/reward.json"
ERROR_POLICIES: tuple[ErrorPolicy, ...] = ("zero", "omit", "fail")


def run(
    tests_dir: str | Path,
    *,
    workspace: str | Path = DEFAULT_WORKSPACE,
    output: str | Path = DEFAULT_OUTPUT,
    max_concurrent_programmatic: int = 8,
    max_concurrent_llm: int = 8,
    max_concurrent_agent: int = 2,
    yolo: bool = False,
    on_error: ErrorPolicy = "zero",
) -> dict[str, float]:
    """Score `workspace` with the criteria in `tests_dir`; write and return `reward.json`.

    A criterion that fails is recorded in `reward-details.json` and counts per `on_error`
    (`zero`, `omit` or `fail`); it never stops the other criteria.

    >>> run("examples/hello/tests", workspace="examples/hello/app", output="/tmp/rk/reward.json")
    {'correctness': 1.0, 'structure': 1.0, 'reward': 1.0}
    """
    limits = Limits(
        programmatic=max_concurrent_programmatic, llm=max_concurrent_llm, agent=max_concurrent_agent
    )
    (result,) = verify([tests_dir], workspace, output, limits=limits, on_error=on_error, yolo=yolo)
    return result.rewards


def run_multi(
    tests_dirs: Sequence[str | Path],
    *,
    workspace: str | Path = DEFAULT_WORKSPACE,
    output: str | Path = DEFAULT_OUTPUT,
    max_concurrent_programmatic: int = 8,
    max_concurrent_llm: int = 8,
    max_concurrent_agent: int = 2,
    yolo: bool = False,
    on_error: ErrorPolicy = "zero",
) -> dict[str, dict[str, float]]:
    """Run several tests directories against one workspace; rewards by directory basename.

    The combined `reward.json` namespaces each key as `<basename>/<key>`.
    """
    limits = Limits(
        programmatic=max_concurrent_programmatic, llm=max_concurrent_llm, agent=max_concurrent_agent
    )
    results = verify(tests_dirs, workspace, output, limits=limits, on_error=on_error, yolo=yolo)
    return {Path(d).name: r.rewards for d, r in zip(tests_dirs, results, strict=True)}


def verify(
    tests_dirs: Sequence[str | Path],
    workspace: str | Path,
    output: str | Path,
    *,
    limits: Limits = Limits(),
    on_error: ErrorPolicy = "zero",
    yolo: bool = False,
) -> list[RunResult]:
    """Discover every directory, run them together, write the outputs; return the results.

    Raises:
        ConfigError: before anything runs (stale outputs are removed all the same).
    """
    if on_error not in ERROR_POLICIES:
        raise ConfigError(f"on_error must be one of {', '.join(ERROR_POLICIES)} (got {on_error!r})")
    out = Path(output)
    clear_outputs(out)
    multi = len(tests_dirs) > 1
    if multi:
        _check_labels(tests_dirs)
    plans = [discover(d) for d in tests_dirs]
    results = asyncio.run(execute_async(plans, Path(workspace), limits=limits, on_error=on_error))
    rewards: dict[str, float] = {}
    detail: dict[str, object] = {}
    for directory, result in zip(tests_dirs, results, strict=True):
        prefix = f"{Path(directory).name}/" if multi else ""
        rewards.update({prefix + k: v for k, v in result.rewards.items()})
        detail.update({prefix + k: v for k, v in details(result).items()})
    write_outputs(out, rewards, detail if any(p.dimensions for p in plans) else None)
    return results


def _check_labels(tests_dirs: Sequence[str | Path]) -> None:
    labels = [Path(d).name for d in tests_dirs]
    dupes = sorted({label for label in labels if labels.count(label) > 1})
    if dupes:
        listing = "; ".join(
            f"{label!r} ({', '.join(str(d) for d in tests_dirs if Path(d).name == label)})"
            for label in dupes
        )
        raise ConfigError(
            f"duplicate tests directory basenames: {listing}. Results are keyed by basename; "
            f"use directories with distinct names."
        )
