"""A Harbor job directory's cases: one per trial with a `verifier/reward.json` or `.txt`.

Trials are found anywhere under the directory (a `jobs/` root, one job, one trial, or a lone
verifier output directory), up to the walk caps. A trial named `<task>__<suffix>` (Harbor's
naming) belongs to the group `<task>`, so repeated trials of one task give pass@k.
`reward-details.json`, where present, gives each criterion's value, reasoning and error and
the composition of every reward key; details from an older rewardkit (no `status`) are read
too, the status inferred.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from rewardkit.core._untrusted import loads_json, read_text, walk_files
from rewardkit.report._fields import judge_status, number, text, why_unreadable
from rewardkit.report._run import Case, JudgeResult, Run, Step

__all__ = ["job_cases"]

REWARD_FILES = ("reward.json", "reward.txt")
DETAILS = "reward-details.json"
MAX_REWARD_BYTES = 1 << 20
MAX_DETAILS_BYTES = 16 << 20


def job_cases(run: Run, root: Path) -> Iterator[Case]:
    """Every trial under `root`, one by one; an unreadable file is `run`'s problem, not a crash."""
    files, cut = walk_files(root)
    if cut:
        run.problem(str(root), cut)
    verifiers: dict[PurePosixPath, set[str]] = {}
    for rel in files:
        if rel.parent.name == "verifier" or rel.name in (*REWARD_FILES, DETAILS):
            verifiers.setdefault(rel.parent, set()).add(rel.name)
    for verifier, names in verifiers.items():
        if not names.intersection(REWARD_FILES):
            where = root / verifier
            run.problem(str(where), "no reward.json or reward.txt")
            continue
        yield _trial(root, verifier, names, run)


def _trial(root: Path, verifier: PurePosixPath, names: set[str], run: Run) -> Case:
    """One trial from its verifier directory (or any directory holding a reward file)."""
    trial = verifier.parent if verifier.name == "verifier" else verifier
    rewards: dict[str, float] | None = None
    error = None
    for name in REWARD_FILES:
        if name not in names:
            continue
        found, why = _read_rewards(root, verifier / name)
        if found is not None:
            rewards = found
            break
        run.problem(str(root / verifier / name), why)
        error = f"{name}: {why}"
    judges: tuple[JudgeResult, ...] = ()
    steps: tuple[Step, ...] = ()
    if DETAILS in names:
        where = root / verifier / DETAILS
        try:
            judges, steps = _details(_json(root, verifier / DETAILS))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            run.problem(str(where), why_unreadable(exc))
    reward = None
    if rewards:
        reward = rewards.get("reward", sum(rewards.values()) / len(rewards))
    label = trial.name or root.name
    return Case(
        id=str(trial) if str(trial) != "." else root.name,
        reward=reward,
        judges=judges,
        rewards=rewards or {},
        group=label.split("__")[0],
        composition=steps
        or tuple(Step(depth=0, label=k, value=v) for k, v in (rewards or {}).items()),
        error=error if rewards is None else None,
        source=str(root / verifier),
    )


def _read_rewards(root: Path, rel: PurePosixPath) -> tuple[dict[str, float] | None, str]:
    """The reward keys of `reward.json` / `reward.txt`, or None and why not."""
    try:
        if rel.name == "reward.txt":
            value = number(float(read_text(root, rel, author=False, cap=MAX_REWARD_BYTES)))
            return ({"reward": value}, "") if value is not None else (None, "not a finite number")
        data = loads_json(read_text(root, rel, author=False, cap=MAX_REWARD_BYTES), str(rel))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return None, why_unreadable(exc)
    if not isinstance(data, dict):
        return None, f"must be a JSON object of numbers (got {type(data).__name__})"
    rewards = {str(k): v for k, v in data.items() if number(v) is not None}
    if not rewards:
        return None, "holds no finite number"
    return {k: float(v) for k, v in rewards.items()}, ""


def _json(root: Path, rel: PurePosixPath) -> Any:
    return loads_json(read_text(root, rel, author=False, cap=MAX_DETAILS_BYTES), str(rel))


def _details(data: object) -> tuple[tuple[JudgeResult, ...], tuple[Step, ...]]:
    """Every criterion, and the composition tree as indented steps."""
    if not isinstance(data, dict):
        raise ValueError("reward-details.json must be a JSON object of reward keys")
    judges: list[JudgeResult] = []
    steps: list[Step] = []
    for key, node in data.items():
        prefix = "" if key == "reward" or len(data) == 1 else f"{key}/"
        _walk(node, str(key), None, 0, prefix, judges, steps)
    return tuple(_unique(judges)), tuple(steps)


def _walk(
    node: object,
    label: str,
    weight: float | None,
    depth: int,
    prefix: str,
    judges: list[JudgeResult],
    steps: list[Step],
) -> None:
    if not isinstance(node, dict) or depth > 20:
        raise ValueError(f"{label!r} is not a group or a leaf of reward-details.json")
    score = number(node.get("score"))
    if isinstance(node.get("components"), list):
        note = str(node.get("aggregation", ""))
        if number(node.get("threshold")) is not None:
            note += f" (threshold {node['threshold']:g})"
        steps.append(Step(depth=depth, label=label, value=score, weight=weight, note=note))
        for part in node["components"]:
            part = part if isinstance(part, dict) else {}
            name = str(part.get("name", "?"))
            detail = part.get("detail")
            _walk(
                detail,
                name,
                number(part.get("weight")),
                depth + 1,
                f"{prefix}{name}/",
                judges,
                steps,
            )
        return
    criteria = node.get("criteria")
    if not isinstance(criteria, list):
        raise ValueError(f"{label!r} has neither components nor criteria")
    steps.append(
        Step(depth=depth, label=label, value=score, weight=weight, note=str(node.get("kind", "")))
    )
    for entry in criteria:
        judge = _criterion(entry, prefix)
        judges.append(judge)
        weight_ = number(entry.get("weight")) if isinstance(entry, dict) else None
        note = judge.status if judge.status != "scored" else ""
        steps.append(
            Step(depth=depth + 1, label=judge.name, value=judge.value, weight=weight_, note=note)
        )


def _criterion(entry: object, prefix: str) -> JudgeResult:
    if not isinstance(entry, dict):
        return JudgeResult(name=f"{prefix}?", status="error", error="not a criterion object")
    raw, value = entry.get("raw"), number(entry.get("value"))
    error = text(entry.get("error"))
    status = judge_status(entry.get("status"), value, error)
    shown: bool | float | None = raw if isinstance(raw, bool) else value
    return JudgeResult(
        name=prefix + str(entry.get("name", "?")),
        status=status,
        value=shown if status == "scored" else None,
        reasoning=text(entry.get("reasoning")) or text(entry.get("description")),
        error=error,
    )


def _unique(judges: list[JudgeResult]) -> list[JudgeResult]:
    """Two criteria of one name (`json_key_equals:a.json` twice) become `name`, `name #2`."""
    seen: dict[str, int] = {}
    out = []
    for judge in judges:
        seen[judge.name] = seen.get(judge.name, 0) + 1
        if seen[judge.name] > 1:
            judge = replace(judge, name=f"{judge.name} #{seen[judge.name]}")
        out.append(judge)
    return out
