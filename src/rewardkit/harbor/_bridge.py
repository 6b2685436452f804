"""The bridge: a Harbor task whose tests directory holds an eval.yaml, its workspace scored
as the suite's one case."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.compose import normalize_value
from rewardkit.core._errors import ConfigError, RewardKitError, UntrustedInputError
from rewardkit.core._outcome import Outcome
from rewardkit.engine._workers import WorkerLimits
from rewardkit.evalyaml._cases import given, produced
from rewardkit.evalyaml._chunk import Case, judge_value
from rewardkit.evalyaml._score import score_records
from rewardkit.evalyaml._suite import EvalSuite, load_suite
from rewardkit.harbor._reward_json import criterion_detail

__all__ = ["Bridge", "bridge", "load_bridge"]


@dataclass(frozen=True)
class Bridge:
    """An eval.yaml tests directory, ready to score a Harbor workspace as its one case."""

    suite: EvalSuite
    given: Mapping[str, Any]
    """`inputs`, `annotations` and run metadata, read from the tests directory (trusted)."""


def load_bridge(tests_dir: Path, workspace: Path) -> Bridge:
    """Load `tests_dir/eval.yaml` and what the case is given, from `tests_dir` only.

    Ground truth and run metadata never come from the workspace: the agent writes it; judge
    files and modules resolve from the tests dir, never from the working directory.

    Raises:
        ConfigError: eval.yaml, or a file the case is given, is invalid.
    """
    suite = load_suite(tests_dir / "eval.yaml", root=tests_dir, untrusted=(workspace,))
    try:
        truth = given(tests_dir)
    except (UntrustedInputError, OSError) as exc:
        raise ConfigError(
            f"{exc}. Keep the files the bridge reads from the tests directory regular files "
            f"inside it, within the caps of docs/eval-yaml.md."
        ) from None
    return Bridge(suite, truth)


def bridge(
    task: Bridge,
    workspace: Path,
    max_concurrent: int,
    emit_judges: bool,
    worker: WorkerLimits = WorkerLimits(),
) -> tuple[dict[str, float], dict[str, Any], list[Outcome]]:
    """Score `workspace` as the one case of `task` (Harbor's verifier for eval.yaml tasks).

    The workspace gives only the outputs (`files`, `stdout`, `stderr`); a file there named
    like `annotations.yaml` or `run_result.json` is one more output. Returns the
    `reward.json` keys, the details and every judge's outcome.
    """
    case: Case
    try:
        outputs = produced(workspace)
        record = {"case_id": workspace.name, "case_path": str(workspace), **outputs}
        case = (workspace.name, record | dict(task.given))
    except (RewardKitError, OSError) as exc:
        case = (workspace.name, exc)
    suite = task.suite
    (result,) = score_records(suite, [case], max_concurrent=max_concurrent, worker=worker)
    rewards = {"reward": round(result.reward, 4)}
    if emit_judges:
        info = suite.judge_info
        for outcome in result.outcomes:
            value = judge_value(outcome).value
            normalized = normalize_value(outcome.name, value, block=suite.reward, judges=info)
            if normalized is not None:
                rewards[outcome.name] = round(normalized, 4)
    detail = {
        "reward": {
            "score": rewards["reward"],
            "criteria": [criterion_detail(o, "omit") for o in result.outcomes],
            "kind": "eval",
        }
    }
    return rewards, detail, list(result.outcomes)
