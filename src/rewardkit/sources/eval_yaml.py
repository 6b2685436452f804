"""An agent-eval-harness `eval.yaml` → `EvalSuite` (judges, `reward:`, dataset, thresholds).

Every key is optional. Keys of the harness format that rewardkit does not use (`execution`,
`runner`, `models`, ...) are accepted and ignored, so real eval.yaml files load; a key that
is not part of the format at all gets a warning with a "did you mean".
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError, did_you_mean, raise_all
from rewardkit.compose import JudgeInfo, RewardBlock, parse_reward_block
from rewardkit.judges import EvalJudge
from rewardkit.sources._eval_judges import parse_judge

__all__ = ["EvalSuite", "load_suite"]

HARNESS_KEYS = (
    "name", "description", "title", "execution", "runner", "models", "permissions", "dataset",
    "generation", "inputs", "outputs", "traces", "hooks", "judges", "thresholds", "reward",
)  # fmt: skip
THRESHOLD_KEYS = ("min_mean", "min_pass_rate", "max_error_rate", "min_win_rate")
RESERVED_NAMES = ("reward",)


@dataclass(frozen=True, kw_only=True)
class EvalSuite:
    """A validated eval.yaml."""

    path: Path
    name: str
    judges: tuple[EvalJudge, ...] = ()
    reward: RewardBlock | None = None
    dataset: Path | None = None
    """`dataset.path`, resolved against the eval.yaml's directory."""
    thresholds: Mapping[str, Mapping[str, float]] = field(default_factory=dict)

    @property
    def judge_info(self) -> dict[str, JudgeInfo]:
        """What composition needs to know about each judge."""
        return {j.name: JudgeInfo(name=j.name, score_range=j.score_range) for j in self.judges}


def load_suite(path: str | Path) -> EvalSuite:
    """Load and validate an eval.yaml (or a directory holding one).

    Raises:
        ConfigError: every problem found, each naming eval.yaml, the judge or key, and the fix.
    """
    path = Path(path)
    if path.is_dir():
        path = path / "eval.yaml"
    if not path.is_file():
        raise ConfigError("eval.yaml not found. Pass the path of an eval.yaml file.", path=path)
    data, lines = _read_yaml(path)
    errors: list[ConfigError] = []
    for key in data:
        if key not in HARNESS_KEYS:
            hint = did_you_mean(str(key), HARNESS_KEYS)
            warnings.warn(f"{path}: unknown top-level key {key!r} is ignored.{hint}", stacklevel=2)
    judges = _judges(data.get("judges"), lines, path, errors)
    info = {j.name: JudgeInfo(name=j.name, score_range=j.score_range) for j in judges}
    reward = None
    if data.get("reward") is not None:
        try:
            reward = parse_reward_block(data["reward"], info, where=str(path))
        except ConfigError as exc:
            errors.extend(getattr(exc, "errors", [exc]))
    suite = EvalSuite(
        path=path,
        name=str(data.get("name") or path.parent.name or path.stem),
        judges=tuple(judges),
        reward=reward,
        dataset=_dataset(data.get("dataset"), path, errors),
        thresholds=_thresholds(data.get("thresholds"), info, path, errors),
    )
    raise_all(errors)
    return suite


def _read_yaml(path: Path) -> tuple[dict[str, Any], dict[int, int]]:
    """The mapping, and the line of each `judges:` item (index → line)."""
    import yaml

    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(
            f"invalid YAML: {problem}. Fix the syntax.", path=path, key=where
        ) from None
    if data is None:
        return {}, {}
    if not isinstance(data, dict):
        raise ConfigError(f"must be a mapping of keys (got {type(data).__name__})", path=path)
    lines: dict[int, int] = {}
    for key, value in getattr(root, "value", []):
        if getattr(key, "value", None) == "judges" and isinstance(value, yaml.SequenceNode):
            lines = {i: item.start_mark.line + 1 for i, item in enumerate(value.value)}
    return data, lines


def _judges(
    raw: Any, lines: dict[int, int], path: Path, errors: list[ConfigError]
) -> list[EvalJudge]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        errors.append(ConfigError("must be a list of judges", path=path, key="judges"))
        return []
    judges: list[EvalJudge] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        judge = parse_judge(item, index, lines.get(index), path, errors)
        if judge is None:
            continue
        key = f"judges[{index}] {judge.name!r}"
        if judge.name in RESERVED_NAMES:
            errors.append(
                ConfigError(
                    "the name 'reward' is reserved for the composed reward; rename the judge",
                    path=path,
                    key=key,
                )
            )
        elif judge.name in seen:
            errors.append(
                ConfigError("duplicate judge name; names must be unique", path=path, key=key)
            )
        seen.add(judge.name)
        judges.append(judge)
    return judges


def _dataset(raw: Any, path: Path, errors: list[ConfigError]) -> Path | None:
    if raw is None:
        return None
    target = raw.get("path") if isinstance(raw, dict) else None
    if target is None:
        return None
    if not isinstance(target, str):
        errors.append(
            ConfigError(f"must be a directory path (got {target!r})", path=path, key="dataset.path")
        )
        return None
    return (path.parent / target).resolve()


def _thresholds(
    raw: Any, judges: Mapping[str, JudgeInfo], path: Path, errors: list[ConfigError]
) -> dict[str, dict[str, float]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        errors.append(
            ConfigError("must be a mapping of judge → limits", path=path, key="thresholds")
        )
        return {}
    result: dict[str, dict[str, float]] = {}
    for name, limits in raw.items():
        key = f"thresholds.{name}"
        if name not in judges:
            errors.append(
                ConfigError(f"names no judge.{did_you_mean(str(name), judges)}", path=path, key=key)
            )
            continue
        if not isinstance(limits, dict):
            errors.append(
                ConfigError("must be a mapping, e.g. {min_mean: 0.8}", path=path, key=key)
            )
            continue
        result[name] = {}
        for limit, value in limits.items():
            if limit not in THRESHOLD_KEYS:
                hint = did_you_mean(str(limit), THRESHOLD_KEYS)
                errors.append(ConfigError(f"unknown limit {limit!r}.{hint}", path=path, key=key))
            elif not _finite(value):
                errors.append(
                    ConfigError(
                        f"must be a number (got {value!r})", path=path, key=f"{key}.{limit}"
                    )
                )
            elif limit == "min_win_rate":
                warnings.warn(
                    f"{path}: {key}.min_win_rate applies to pairwise runs; ignored.", stacklevel=2
                )
            else:
                result[name][limit] = float(value)
    return result


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
