"""Read a report's input: an eval run, a Harbor job directory, or a results file.

`open_run` gives the run's kind, source and formula at once and its cases one by one, so a
report holds no more than it aggregates; `load_run` collects them all. Files are untrusted (an
agent may have written next to them): every read is capped and every JSON document
shape-checked (`rewardkit.core._untrusted`). A file that cannot be read, or only in part, becomes
a `Problem` naming it; the rest of the run is still reported.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError, UntrustedInputError
from rewardkit.core._untrusted import loads_json, open_file, read_text
from rewardkit.report._fields import judge_status, mapping, number, text, why_unreadable
from rewardkit.report._run import Case, JudgeResult, Run, Step

__all__ = ["MAX_LINE_BYTES", "MAX_RESULTS_BYTES", "lines", "load_run", "no_results", "open_run"]

MAX_RESULTS_BYTES = 1 << 30
"""The largest results file read (1 GiB)."""
MAX_LINE_BYTES = 1 << 20
"""The longest results line read (1 MiB); a longer one is reported and skipped."""


def load_run(path: Path) -> Run:
    """Read every case of `path` (see `open_run`) into one `Run`.

    Raises:
        ConfigError: `path` does not exist, or holds no result at all (the message says
            what was looked for and each file that failed).
    """
    run, cases = open_run(path)
    run.cases.extend(cases)
    if not run.cases:
        raise no_results(run)
    return run


def open_run(path: Path) -> tuple[Run, Iterator[Case]]:
    """`path` (`summary.json` or its directory, a `.jsonl` results file, or a Harbor job) as a
    `Run` without cases, and its cases as they are read; problems go to the run meanwhile.

    Raises:
        ConfigError: `path` does not exist.
    """
    if not path.exists():
        raise ConfigError("no such file or directory", path=path)
    if path.is_dir() and (path / "summary.json").is_file():
        path = path / "summary.json"
    if path.is_dir():
        from rewardkit.report._harbor import job_cases

        run = Run(kind="harbor", source=str(path))
        return run, job_cases(run, path)
    if path.suffix == ".jsonl":
        run = Run(kind="results", source=str(path))
        return run, _results(run, path)
    run = Run(kind="eval", source=str(path))
    return run, _summary(run, path)


def no_results(run: Run) -> ConfigError:
    """The error for an input without a single case (naming its first problems)."""
    why = "; ".join(map(str, run.problems[:5])) or _EXPECTED
    return ConfigError(f"no results found ({why})", path=Path(run.source))


_EXPECTED = (
    "expected an eval run's summary.json, a Harbor job directory "
    "(<trial>/verifier/reward.json or reward.txt) or a `rewardkit score` results .jsonl"
)


def _summary(run: Run, path: Path) -> Iterator[Case]:
    """The cases of a `summary.json` (one JSON document, so read whole; its formula first)."""
    try:
        data = loads_json(read_text(path.parent, path.name), str(path))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        run.problem(str(path), why_unreadable(exc))
        return iter(())
    if not isinstance(data, dict) or not isinstance(data.get("per_case"), dict):
        run.problem(str(path), "not a summary.json (no per_case)")
        return iter(())
    composition = data.get("composition")
    composition = composition if isinstance(composition, dict) else {}
    run.formula = _describe(composition)
    return _summary_cases(run, path, data["per_case"], composition)


def _summary_cases(
    run: Run, path: Path, per_case: dict[str, Any], composition: Mapping[str, Any]
) -> Iterator[Case]:
    for case_id, entry in per_case.items():
        if not isinstance(entry, dict):
            run.problem(str(path), f"per_case.{case_id} is not a map")
            continue
        judges = _summary_judges(entry.get("judges"))
        reward = number(entry.get("reward"))
        steps = _summary_steps(reward, judges, composition)
        yield Case(
            id=str(case_id), reward=reward, judges=judges, composition=steps, source=str(path)
        )


def _summary_judges(data: object) -> tuple[JudgeResult, ...]:
    if not isinstance(data, dict):
        return ()
    found = []
    for name, entry in data.items():
        entry = entry if isinstance(entry, dict) else {"value": entry}
        value = entry.get("value")
        value = value if isinstance(value, bool) else number(value)
        status = judge_status(entry.get("status"), value, entry.get("error"))
        reasoning = text(entry.get("rationale")) or text(entry.get("reasoning"))
        found.append(
            JudgeResult(
                name=str(name),
                status=status,
                value=value if status == "scored" else None,
                reasoning=reasoning,
                error=text(entry.get("error")),
            )
        )
    return tuple(found)


def _describe(composition: Mapping[str, Any]) -> str | None:
    mode = composition.get("mode")
    if mode == "judge":
        return f"reward = {composition.get('judge')}"
    if mode == "weighted":
        weights = composition.get("weights") or {}
        terms = " + ".join(f"{w:g}·{n}" for n, w in weights.items() if number(w) is not None)
        return f"reward = ({terms}) / {sum(map(float, weights.values())):g}" if terms else None
    if mode == "expression":
        lines = str(composition.get("formula", "")).splitlines()
        return "reward = " + "; ".join(line.strip() for line in lines if line.strip())
    if mode == "default":
        return "reward = mean of the judges' normalized values"
    return None


def _summary_steps(
    reward: float | None, judges: tuple[JudgeResult, ...], composition: Mapping[str, Any]
) -> tuple[Step, ...]:
    """The reward, then each judge's value as it went in (normalized to [0, 1])."""
    note = "any boolean judge that failed zeroes it" if composition.get("gate") else ""
    steps = [Step(depth=0, label=_describe(composition) or "reward", value=reward, note=note)]
    ranges = composition.get("score_ranges") or {}
    weights = composition.get("weights") or {}
    fallback = composition.get("score_range") or [1, 5]
    for judge in judges:
        normalized, why = _normalized(judge, ranges.get(judge.name) or fallback, composition)
        steps.append(
            Step(
                depth=1,
                label=judge.name,
                value=normalized,
                weight=number(weights.get(judge.name)),
                note=why,
            )
        )
    return tuple(steps)


def _normalized(
    judge: JudgeResult, score_range: object, composition: Mapping[str, Any]
) -> tuple[float | None, str]:
    if judge.status != "scored" or judge.value is None:
        return None, f"{judge.status}: no value"
    if isinstance(judge.value, bool):
        return float(judge.value), f"{judge.value} → {float(judge.value):g}"
    raw = judge.name in (composition.get("raw") or ())
    low, high = (
        (number(score_range[0]), number(score_range[1]))
        if isinstance(score_range, list) and len(score_range) == 2
        else (None, None)
    )
    if raw or low is None or high is None or high <= low:
        return min(1.0, max(0.0, judge.value)), f"{judge.value:g}, clamped to [0, 1]"
    scaled = min(1.0, max(0.0, (judge.value - low) / (high - low)))
    return scaled, f"{judge.value:g} on [{low:g}, {high:g}]"


def _results(run: Run, path: Path) -> Iterator[Case]:
    try:
        for number_, line in lines(path):
            where = f"{path}:{number_}"
            try:
                row = loads_json(line, where)
            except ValueError as exc:
                run.problem(where, why_unreadable(exc))
                continue
            case = _result_case(row, where)
            if case is None:
                run.problem(where, "not a result object")
            else:
                yield case
    except (OSError, UntrustedInputError) as exc:
        run.problem(str(path), why_unreadable(exc))


def lines(path: Path, *, cap: int = MAX_RESULTS_BYTES) -> Iterator[tuple[int, bytes]]:
    """Each non-blank line of a JSONL file with its number; an over-long one reads as `{}`."""
    from rewardkit.batch._lines import read_lines

    with open_file(path.parent, path.name, cap=cap) as handle:
        for index, line in read_lines(handle, MAX_LINE_BYTES):
            if line is None:
                yield index, b"{}"  # reported as "not a result object"
            elif line.strip():
                yield index, line


def _result_case(row: object, where: str) -> Case | None:
    if not isinstance(row, dict) or "reward" not in row:
        return None
    metadata = mapping(row.get("metadata"))
    group = row.get("group", metadata.get("group"))
    judges = []
    for name, value in mapping(row.get("judges")).items():
        value = value if isinstance(value, bool) else number(value)
        status = "scored" if value is not None else "missing"
        judges.append(JudgeResult(name=str(name), status=status, value=value))
    reward = number(row.get("reward"))
    length = row.get("length", metadata.get("completion_length"))
    steps = [Step(depth=0, label="reward (composition not in a results file)", value=reward)]
    steps += (Step(depth=1, label=j.name, value=j.value) for j in judges)
    return Case(
        id=str(row.get("id", where)),
        reward=reward,
        judges=tuple(judges),
        group=None if group is None else str(group),
        composition=tuple(steps),
        error=text(row.get("error")),
        length=length if isinstance(length, int) and not isinstance(length, bool) else None,
        source=where,
    )
