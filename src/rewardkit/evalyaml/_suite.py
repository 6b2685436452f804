"""An agent-eval-harness `eval.yaml` → `EvalSuite` (judges, `reward:`, dataset, thresholds).

Every key is optional. Keys of the harness format that configure parts rewardkit does not run
(`execution`, `runner`, `mlflow`, `hooks`, ...) are accepted silently and listed in
`EvalSuite.not_used`, so real eval.yaml files load; a key that is not part of the format at
all gets a warning with a "did you mean".

Relative paths resolve as in the harness: `dataset.path` from the eval.yaml's directory;
`prompt_file`, `context` files and `module` from the project root (the working directory, when
it holds the eval.yaml and is apart from the graded agent's directories: `project_root`),
falling back to the eval.yaml's directory. One found in the agent's directories is refused.

Over 350 lines: the whole top level of the eval.yaml format, each key validated with its
location in one pass.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from rewardkit.compose import JudgeInfo, RewardBlock, parse_reward_block
from rewardkit.compose._traps import ScaleWatch, silent_zeros
from rewardkit.core._errors import ConfigError, did_you_mean, raise_all
from rewardkit.evalyaml._judge import EvalJudge
from rewardkit.evalyaml._judge_fields import JudgeContext, project_root
from rewardkit.evalyaml._judges import parse_judge

__all__ = ["EvalSuite", "load_suite"]

USED_KEYS = (
    "name", "description", "title", "models", "dataset", "outputs", "traces", "judges",
    "thresholds", "reward",
)  # fmt: skip
NOT_USED_KEYS = (
    "execution", "runner", "permissions", "mlflow", "generation", "inputs", "hooks", "skill",
    "matrix", "version",
)  # fmt: skip
"""Harness keys for agent execution, tracking, generation, hooks and ANOVA: accepted, not run."""
HARNESS_KEYS = USED_KEYS + NOT_USED_KEYS
THRESHOLD_KEYS = ("min_mean", "min_pass_rate", "max_error_rate", "min_win_rate")
RESERVED_NAMES = ("reward",)
TRACES = frozenset(("stdout", "stderr", "events", "metrics"))
PAIRWISE = "pairwise"
"""The harness's reserved judge name: it configures `--baseline` comparisons, not a column."""


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
    pairwise: EvalJudge | None = None
    """The judge named `pairwise` (prompt, model) for `--baseline` comparisons, if declared."""
    judge_model: str | None = None
    """`models.judge`: the model of LLM judges that name none."""
    outputs: tuple[Mapping[str, Any], ...] = ()
    """The declared `outputs:` entries (`path` or `tool`, `schema`, `batch_pattern`, ...)."""
    not_used: tuple[str, ...] = ()
    """Top-level keys present that configure parts rewardkit does not run."""
    traces: frozenset[str] = TRACES
    """The parts of a run judges see (`traces:`; all by default): `stdout`, `stderr`,
    `events`, `metrics`."""
    steps: tuple[str, ...] = ()
    """The `execution.steps` ids, in order: a multi-step run's `cases/<case>/steps/<id>/`."""

    @cached_property
    def judge_info(self) -> dict[str, JudgeInfo]:
        """What composition needs to know about each judge (read on every sample)."""
        return {j.name: JudgeInfo(name=j.name, score_range=j.scale) for j in self.judges}

    def traps(self) -> list[str]:
        """The silent-zero traps of its `reward:` block, each naming the file."""
        verdicts = {j.name for j in self.judges if j.kind == "builtin" or j.feedback_type == "bool"}
        conditions = {j.name: j.condition.source for j in self.judges if j.condition is not None}
        traps = silent_zeros(self.reward, verdicts=verdicts, conditions=conditions)
        return [f"{self.path}: {trap}" for trap in traps]

    def scale_watch(self) -> ScaleWatch:
        """A watch on its code judges read on the [1, 5] default (no score_range anywhere)."""
        block = self.reward

        def on_default(name: str) -> bool:
            if block is None:
                return True
            clamped = name in block.raw or (name == block.judge and not block.normalize)
            return block.score_range is None and not clamped

        return ScaleWatch(
            str(self.path),
            [
                j.name
                for j in self.judges
                if j.scale is None and j.kind in ("code", "check") and on_default(j.name)
            ],
        )


def load_suite(
    path: str | Path, *, untrusted: Sequence[str | Path] = (), root: Path | None = None
) -> EvalSuite:
    """Load and validate an eval.yaml (or a directory holding one).

    Args:
        path: the eval.yaml, or its directory.
        untrusted: directories the graded agent writes (the workspace, the cases): no judge
            file or module is taken from them, and a working directory in one is not the
            project root.
        root: the project root judge files resolve from (then the eval.yaml's directory);
            by default `project_root`. For a Harbor tests dir: the tests dir itself.

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
    agent_dirs = tuple(Path(d).resolve() for d in untrusted)
    steps = _step_ids(data.get("execution"), path, errors)
    context = JudgeContext(
        root=root.resolve() if root is not None else project_root(path, agent_dirs),
        untrusted=agent_dirs,
        judge_model=_judge_model(data.get("models"), path, errors),
        steps=frozenset(steps),
    )
    judges, pairwise = _judges(data.get("judges"), lines, path, context, errors)
    info = _declared(data.get("judges")) | {
        j.name: JudgeInfo(name=j.name, score_range=j.scale) for j in judges
    }
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
        pairwise=pairwise,
        judge_model=context.judge_model,
        outputs=_outputs(data.get("outputs"), path, errors),
        not_used=tuple(k for k in NOT_USED_KEYS if k in data),
        traces=_traces(data.get("traces"), path, errors),
        steps=steps,
    )
    raise_all(errors)
    return suite


def _read_yaml(path: Path) -> tuple[dict[str, Any], dict[int, int]]:
    """The mapping, and the line of each `judges:` item (index → line)."""
    import yaml

    text = path.read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)  # one pass, in C if it can
    try:
        root = loader.get_single_node()
        data = loader.construct_document(root) if root is not None else None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else None
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(
            f"invalid YAML: {problem}. Fix the syntax.", path=path, key=where
        ) from None
    except RecursionError:  # the pure-Python parser; libyaml stops at 1,000 levels itself
        raise ConfigError("invalid YAML: nested too deeply", path=path) from None
    finally:
        loader.dispose()
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
    raw: Any, lines: dict[int, int], path: Path, context: JudgeContext, errors: list[ConfigError]
) -> tuple[list[EvalJudge], EvalJudge | None]:
    """The judges scored per case, and the `pairwise` judge (the harness keeps it apart)."""
    if raw is None:
        return [], None
    if not isinstance(raw, list):
        errors.append(ConfigError("must be a list of judges", path=path, key="judges"))
        return [], None
    judges: list[EvalJudge] = []
    pairwise: EvalJudge | None = None
    seen: set[str] = set()
    for index, item in enumerate(raw):
        judge = parse_judge(item, index, lines.get(index), path, errors, context)
        if judge is None:
            continue
        key = f"judges[{index}] {judge.name!r}"
        if judge.name == PAIRWISE:
            if judge.kind != "llm":
                message = "the judge named 'pairwise' compares two runs: give it a prompt"
                errors.append(ConfigError(message + " or prompt_file", path=path, key=key))
            for field in (f for f in ("supports", "api_base") if f in judge.config):
                message = "the comparison does not take it (it uses REWARDKIT_API_BASE); drop it"
                errors.append(ConfigError(message, path=path, key=f"{key}.{field}"))
            pairwise = pairwise or judge  # the harness takes the first
            continue
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
    return judges, pairwise


def _traces(raw: Any, path: Path, errors: list[ConfigError]) -> frozenset[str]:
    """`traces: {stdout, stderr, events, metrics}` (each true unless set false): which run
    data is loaded into the judges' record, as in the harness."""
    if raw is None:
        return TRACES
    if not isinstance(raw, dict):
        errors.append(
            ConfigError("must be a mapping, e.g. {stdout: false}", path=path, key="traces")
        )
        return TRACES
    for key, value in raw.items():
        if key not in TRACES:
            hint = did_you_mean(str(key), TRACES)
            errors.append(
                ConfigError(
                    f"unknown key; valid: {', '.join(sorted(TRACES))}.{hint}",
                    path=path,
                    key=f"traces.{key}",
                )
            )
        elif not isinstance(value, bool):
            errors.append(
                ConfigError(
                    f"must be true or false (got {value!r})", path=path, key=f"traces.{key}"
                )
            )
    return frozenset(k for k in TRACES if raw.get(k, True) is not False)


def _declared(raw: Any) -> dict[str, JudgeInfo]:
    """Every named judge, including one without a kind (skipped with a warning): the harness
    counts it as declared, so `reward:` may name it; it has no value on any case."""
    names = [j.get("name") for j in raw if isinstance(j, dict)] if isinstance(raw, list) else []
    return {n: JudgeInfo(name=n) for n in names if isinstance(n, str) and n != PAIRWISE}


def _judge_model(raw: Any, path: Path, errors: list[ConfigError]) -> str | None:
    """`models.judge` (the other roles configure agent execution, which we don't run)."""
    if raw is None:
        return None
    if not isinstance(raw, dict):
        errors.append(
            ConfigError("must be a mapping, e.g. {judge: claude-opus-4-6}", path=path, key="models")
        )
        return None
    model = raw.get("judge")
    if model is not None and (not isinstance(model, str) or not model.strip()):
        message = f"must be a model name (got {model!r})"
        errors.append(ConfigError(message, path=path, key="models.judge"))
        return None
    return model


def _step_ids(raw: Any, path: Path, errors: list[ConfigError]) -> tuple[str, ...]:
    """The ids of `execution.steps`, in order (judges may name one with `step:`). As in the
    harness, each is required, unique and one path segment: it names `steps/<id>/` in a run.
    The rest of a step configures agent execution, which rewardkit does not run."""
    steps = raw.get("steps") if isinstance(raw, dict) else None
    if steps is None:
        return ()
    if not isinstance(steps, list):
        message = "must be a list of steps, e.g. [{id: draft, prompt: ...}]"
        errors.append(ConfigError(message, path=path, key="execution.steps"))
        return ()
    ids: list[str] = []
    for index, step in enumerate(steps):
        key = f"execution.steps[{index}]"
        if not isinstance(step, dict):
            message = f"must be a mapping, e.g. {{id: refine, skill: my-skill}} (got {step!r})"
            errors.append(ConfigError(message, path=path, key=key))
            continue
        sid = step.get("id")
        name = str(sid) if isinstance(sid, str | int) and not isinstance(sid, bool) else ""
        problem = _segment_problem(name, sid)
        if problem is None and name in ids:
            problem = f"duplicate step id {name!r}; step ids must be unique"
        if problem is not None:
            errors.append(ConfigError(problem, path=path, key=f"{key}.id"))
        else:
            ids.append(name)
    return tuple(ids)


def _segment_problem(name: str, given: Any) -> str | None:
    """Why a step id cannot name a directory: empty, not one path segment, a control
    character (the harness's rules); None when it can."""
    if not name.strip():
        return f"every step needs a non-empty 'id', e.g. id: refine (got {given!r})"
    if "/" in name or "\\" in name or name in (".", ".."):
        return f"must be one path segment, without '/' or '\\' and not '.' or '..' (got {name!r})"
    if any(ord(c) < 32 for c in name):
        return f"must not hold control characters (got {name!r})"
    return None


def _outputs(raw: Any, path: Path, errors: list[ConfigError]) -> tuple[Mapping[str, Any], ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(o, dict) for o in raw):
        message = "must be a list of mappings, e.g. [{path: report.md}] or [{tool: Write}]"
        errors.append(ConfigError(message, path=path, key="outputs"))
        return ()
    for index, entry in enumerate(raw):
        target = entry.get("path")
        if target is not None and (
            not isinstance(target, str) or Path(target).is_absolute() or ".." in Path(target).parts
        ):
            message = f"must be a relative path inside the case's output (got {target!r})"
            errors.append(ConfigError(message, path=path, key=f"outputs[{index}].path"))
    return tuple(raw)


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
    """Judge → limits. A name that is no judge warns: as in the harness, its metric is then
    unavailable, which the run reports as a regression."""
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
        if name not in judges and name != PAIRWISE:
            hint = did_you_mean(str(name), [*judges, PAIRWISE])
            warnings.warn(
                f"{path}: {key} names no judge, so it will be reported as a regression.{hint}",
                stacklevel=3,
            )
        if not isinstance(limits, dict):
            errors.append(
                ConfigError("must be a mapping, e.g. {min_mean: 0.8}", path=path, key=key)
            )
            continue
        result[str(name)] = {}
        for limit, value in limits.items():
            if limit not in THRESHOLD_KEYS:
                hint = did_you_mean(str(limit), THRESHOLD_KEYS)
                message = (
                    f"unknown limit {limit!r}; rewardkit checks {', '.join(THRESHOLD_KEYS)}.{hint}"
                )
                errors.append(ConfigError(message, path=path, key=key))
            elif not _finite(value):
                errors.append(
                    ConfigError(
                        f"must be a number (got {value!r})", path=path, key=f"{key}.{limit}"
                    )
                )
            else:
                result[str(name)][limit] = float(value)
    return result


def _finite(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
