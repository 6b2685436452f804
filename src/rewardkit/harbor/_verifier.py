"""`run` and `run_multi`: a Harbor tests directory in, `reward.json` out."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rewardkit.core._errors import ConfigError
from rewardkit.core._outcome import ErrorPolicy, Outcome
from rewardkit.engine import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, Limits, RunResult, execute_async
from rewardkit.engine._plan import Plan
from rewardkit.harbor._reward_json import clear_outputs, details, write_outputs
from rewardkit.harbor._tests_dir import discover

if TYPE_CHECKING:
    from rewardkit.harbor._bridge import Bridge

__all__ = ["Verdict", "run", "run_multi", "verify"]

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
    criterion_timeout: float = DEFAULT_TIMEOUT,
    criterion_memory_mb: int | None = DEFAULT_MEMORY_MB,
) -> dict[str, float]:
    """Score `workspace` with the criteria in `tests_dir`; write and return `reward.json`.

    A criterion that fails is recorded in `reward-details.json` and counts per `on_error`
    (`zero`, `omit` or `fail`); it never stops the other criteria. Each programmatic
    criterion runs in its own process, killed after `criterion_timeout` seconds (unless it
    sets `timeout=`) and capped at `criterion_memory_mb` MiB of address space (None: no cap).

    >>> run("examples/hello/tests", workspace="examples/hello/app", output="/tmp/rk/reward.json")
    {'correctness': 1.0, 'structure': 1.0, 'reward': 1.0}
    """
    limits = Limits(
        programmatic=max_concurrent_programmatic,
        llm=max_concurrent_llm,
        agent=max_concurrent_agent,
        timeout=criterion_timeout,
        memory_mb=criterion_memory_mb,
    )
    (verdict,) = verify([tests_dir], workspace, output, limits=limits, on_error=on_error, yolo=yolo)
    return verdict.rewards


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
    criterion_timeout: float = DEFAULT_TIMEOUT,
    criterion_memory_mb: int | None = DEFAULT_MEMORY_MB,
) -> dict[str, dict[str, float]]:
    """Run several tests directories against one workspace; rewards by directory basename.

    The combined `reward.json` namespaces each key as `<basename>/<key>`.
    """
    limits = Limits(
        programmatic=max_concurrent_programmatic,
        llm=max_concurrent_llm,
        agent=max_concurrent_agent,
        timeout=criterion_timeout,
        memory_mb=criterion_memory_mb,
    )
    results = verify(tests_dirs, workspace, output, limits=limits, on_error=on_error, yolo=yolo)
    return {Path(d).name: r.rewards for d, r in zip(tests_dirs, results, strict=True)}


@dataclass(frozen=True)
class Verdict:
    """One tests directory's share of the output files."""

    rewards: dict[str, float]
    detail: dict[str, Any]
    outcomes: list[Outcome]
    """Every criterion's or judge's outcome, in output order."""

    @property
    def failures(self) -> list[Outcome]:
        """The outcomes that errored or timed out."""
        return [o for o in self.outcomes if o.failed]


def verify(
    tests_dirs: Sequence[str | Path],
    workspace: str | Path,
    output: str | Path,
    *,
    limits: Limits = Limits(),
    on_error: ErrorPolicy = "zero",
    yolo: bool = False,
    emit_judges: bool = False,
) -> list[Verdict]:
    """Load every directory, run them together, write the outputs; return each one's verdict.

    A tests directory holding an `eval.yaml` is scored as one eval case (the workspace gives
    its outputs, the tests directory its inputs, annotations and run metadata): `reward.json`
    gets the composed `reward` (plus each judge's normalized value with `emit_judges`), and
    `reward.txt` the scalar.

    Raises:
        ConfigError: before anything runs (stale outputs are removed all the same).
    """
    if on_error not in ERROR_POLICIES:
        raise ConfigError(f"on_error must be one of {', '.join(ERROR_POLICIES)} (got {on_error!r})")
    out = Path(output).absolute()  # fixed before anything runs: no criterion can move it
    workspace = Path(workspace).absolute()
    clear_outputs(out)
    multi = len(tests_dirs) > 1
    if multi:
        _check_labels(tests_dirs)
    loaded = [_load(Path(d), workspace) for d in tests_dirs]
    if not workspace.is_dir():
        raise ConfigError(
            f"workspace not found: {workspace}. Pass the directory the agent worked in with "
            f"--workspace DIR (default {DEFAULT_WORKSPACE})."
        )
    plans = [item for item in loaded if isinstance(item, Plan)]
    if any(leaf.kind == "agent" for plan in plans for leaf in plan.leaves()):
        from rewardkit.judges._agent import check_shared_workspace

        check_shared_workspace(plans, max_concurrent_agent=limits.agent, yolo=yolo)
    llm = [leaf for plan in plans for leaf in plan.leaves() if leaf.kind == "llm"]
    models = [leaf.judge.definition.judge for leaf in llm]
    if models:
        from rewardkit.models._litellm import preload

        preload(models)  # a model sent through LiteLLM: its slow import overlaps the rest
    ran = iter(asyncio.run(execute_async(plans, Path(workspace), limits=limits, on_error=on_error)))
    verdicts = [
        _verdict(next(ran))
        if isinstance(item, Plan)
        else _bridge(item, workspace, limits, emit_judges)
        for item in loaded
    ]
    rewards: dict[str, float] = {}
    detail: dict[str, object] = {}
    for directory, verdict in zip(tests_dirs, verdicts, strict=True):
        prefix = f"{Path(directory).name}/" if multi else ""
        rewards.update({prefix + k: v for k, v in verdict.rewards.items()})
        detail.update({prefix + k: v for k, v in verdict.detail.items()})
    bridged = not multi and not isinstance(loaded[0], Plan)
    write_outputs(out, rewards, detail or None, scalar=rewards["reward"] if bridged else None)
    return verdicts


def _load(tests_dir: Path, workspace: Path) -> Plan | Bridge:
    if (tests_dir / "eval.yaml").is_file():
        from rewardkit.harbor._bridge import load_bridge

        extra = sorted(p.name for p in tests_dir.glob("*.py")) + sorted(
            p.name for p in tests_dir.glob("*.toml")
        )
        if extra:
            warnings.warn(
                f"{tests_dir} holds eval.yaml, so it is scored as one eval case; "
                f"{', '.join(extra)} are not read as criteria.",
                stacklevel=3,
            )
        return load_bridge(tests_dir, workspace)
    return discover(tests_dir)


def _verdict(result: RunResult) -> Verdict:
    return Verdict(result.rewards, details(result), result.outcomes)


def _bridge(task: Bridge, workspace: Path, limits: Limits, emit_judges: bool) -> Verdict:
    from rewardkit.engine._workers import WorkerLimits
    from rewardkit.harbor._bridge import bridge

    worker = WorkerLimits(timeout=limits.timeout, memory_mb=limits.memory_mb)
    rewards, detail, outcomes = bridge(
        task, workspace, limits.programmatic, emit_judges, worker=worker
    )
    return Verdict(rewards, detail, outcomes)


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
