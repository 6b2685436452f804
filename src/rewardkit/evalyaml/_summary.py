"""`rewardkit eval` reports: `summary.json` / `summary.yaml`, as the harness's summary.yaml.

Keys: `run_id` (the harness run's directory name, else null); `judges` (each judge on its own
across cases: `mean` and `pass_rate`, `scored_cases`, `errored_cases`, `skipped_cases`);
`per_case` (each case's reward and judge outcomes, with a sampled judge's `stability` as
the judge records it); `run_metrics` (from the run's
`run_result.json`, when it gives any); `pairwise` (when a baseline comparison ran); and
`regressions` (when eval.yaml has `thresholds:` or a baseline was given). A judge whose
scored values are all booleans has `pass_rate` = the share of passes and `mean` = the same; all
numbers, `mean` (raw, on its own scale) and `pass_rate` null; a mix, both null. Skipped and
errored cases are counted apart and left out of the metrics. Each judge also has `std_error`,
`ci95` ([low, high], the Wilson interval of a pass rate or a bootstrap one of a mean, fixed
seed) and `ci_method`; `reward` holds the same for the case rewards, and `composition` says
how a case's reward is made from its judges (`mode`, `formula`, `weights`, `gate`,
`score_ranges`). Numbers are kept at full precision; only the terminal report rounds them.

Nothing here holds every case: statistics are tallied a case at a time (`_tally`), and
`per_case` is streamed from the run's `cases.jsonl` into both files.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from pathlib import Path
from typing import Any, TextIO

from rewardkit.compose._thresholds import Regression, regressions, report
from rewardkit.core._files import atomic_writer
from rewardkit.core._outcome import Outcome
from rewardkit.evalyaml._chunk import CaseResult
from rewardkit.evalyaml._suite import PAIRWISE, EvalSuite
from rewardkit.evalyaml._tally import JudgeTally, Series, add_usage

__all__ = [
    "Entries",
    "case_entry",
    "run_metrics",
    "summarize",
    "terminal_lines",
    "write_summary",
]

Entries = Callable[[], Iterator[tuple[str, Mapping[str, Any]]]]
"""Each case's id and `per_case` entry, in case order; called once per pass over the cases."""
_BATCH = 256
"""Cases serialized at once when `per_case` is written."""


def case_entry(result: CaseResult) -> dict[str, Any]:
    """A case's `per_case` entry: its reward and each judge's outcome."""
    return {
        "reward": result.reward,
        "judges": {o.name: _case_judge(o) for o in result.outcomes},
    }


def summarize(
    suite: EvalSuite,
    entries: Entries,
    *,
    run_id: str | None = None,
    run_result: Mapping[str, Any] | None = None,
    pairwise: Mapping[str, Any] | None = None,
    baseline: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The report of a run, without `per_case` (`write_summary` streams it from `entries`).

    The cases are read once, and a second time when a series has over `BOOTSTRAP_MAX_N`
    values; `baseline` is the baseline run's summary, for the drift check.
    """
    tallies = {judge.name: JudgeTally() for judge in suite.judges}
    rewards = Series()
    for _, entry in entries():
        rewards.add(entry["reward"])
        for name, tally in tallies.items():
            tally.add(entry["judges"][name])
    if rewards.second_pass or any(t.values.second_pass for t in tallies.values()):
        for _, entry in entries():
            _second_pass(entry, rewards, tallies)
    judges = {name: tally.result() for name, tally in tallies.items()}
    stats = rewards.estimate()
    summary: dict[str, Any] = {
        "run_id": run_id,
        "judges": judges,
        "reward": {"cases": rewards.n, "mean": stats.mean, **stats.as_dict()},
        "composition": _composition(suite),
    }
    usage: dict[str, int | float] = {}
    for judge in judges.values():
        add_usage(usage, judge.get("usage"))
    if usage:  # what the run's model calls spent, every judge together
        summary["usage"] = usage
    metrics = run_metrics(run_result) if run_result is not None else None
    if metrics:
        summary["run_metrics"] = metrics
    if pairwise is not None:
        summary["pairwise"] = dict(pairwise)
    if suite.thresholds or baseline is not None:
        gated = {**judges, PAIRWISE: _pairwise_aggregate(pairwise)}
        before = baseline.get("judges") if baseline is not None else None
        found = regressions(suite.thresholds, gated, before if isinstance(before, dict) else None)
        summary["regressions"] = [r.as_dict() for r in found]
    return summary


def _second_pass(entry: Mapping[str, Any], rewards: Series, tallies: dict[str, JudgeTally]) -> None:
    if rewards.second_pass:
        rewards.deviation(entry["reward"])
    for name, tally in tallies.items():
        judge = entry["judges"][name]
        if tally.values.second_pass and tally.homogeneous and judge["status"] == "scored":
            tally.values.deviation(judge["value"])


def _composition(suite: EvalSuite) -> dict[str, Any]:
    """How each case's reward is made (`mode` `default`: the mean of the normalized judges)."""
    ranges = {j.name: list(j.scale) for j in suite.judges if j.scale is not None}
    block = suite.reward
    if block is None:
        return {"mode": "default", "score_ranges": ranges}
    entry: dict[str, Any] = {"mode": block.mode, "formula": block.formula.strip()}
    entry |= {"judge": block.judge, "weights": dict(block.weights), "gate": block.gate}
    entry |= {"normalize": block.normalize, "raw": sorted(block.raw)}
    fallback = list(block.score_range) if block.score_range is not None else None
    return entry | {"score_range": fallback, "score_ranges": ranges}


def _pairwise_aggregate(pairwise: Mapping[str, Any] | None) -> dict[str, Any]:
    """The comparison as thresholds see it: `win_rate` over the cases without an error."""
    if pairwise is None:
        return {}
    errors = int(pairwise["errors"])
    return {
        "win_rate": pairwise["win_rate"],
        "scored_cases": int(pairwise["cases_compared"]) - errors,
        "errored_cases": errors,
    }


def _case_judge(outcome: Outcome) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "value": outcome.raw if outcome.status == "scored" else None,
        "status": outcome.status,
        "rationale": outcome.reasoning or "",
    }
    if outcome.error:
        entry["error"] = outcome.error
    for key in ("metrics", "stability", "sample_rationales", "step", "usage"):
        if key in outcome.extra:
            entry[key] = outcome.extra[key]
    return entry


def run_metrics(run_result: Mapping[str, Any]) -> dict[str, float]:
    """The harness's model-level efficiency metrics of a run (`run_result.json`): cost per
    turn, output tokens per turn, cache hit rate, cost per million tokens; each only when
    its inputs are there."""
    cost, turns = _number(run_result.get("cost_usd")), run_result.get("num_turns")
    tokens = run_result.get("token_usage")
    tokens = tokens if isinstance(tokens, Mapping) else {}
    inp, out, read, made = (
        _number(tokens.get(k)) or 0.0 for k in ("input", "output", "cache_read", "cache_create")
    )
    turns = turns if isinstance(turns, int) and not isinstance(turns, bool) and turns > 0 else None
    total_in = inp + read + made
    metrics: dict[str, float] = {}
    if cost is not None and turns:
        metrics["cost_per_turn_usd"] = cost / turns
    if turns and out:
        metrics["output_tokens_per_turn"] = out / turns
    if total_in > 0:
        metrics["cache_hit_rate"] = read / total_in
    if cost is not None and total_in + out > 0:
        metrics["cost_per_mtok_usd"] = cost / (total_in + out) * 1_000_000
    return metrics


def _number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else None


def terminal_lines(summary: Mapping[str, Any]) -> list[str]:
    """The human report: one line per judge, the mean reward, the comparison, regressions."""
    lines = []
    for name, stats in summary["judges"].items():
        if stats["pass_rate"] is not None:
            metric = f"pass_rate {stats['pass_rate']:.1%}"
        elif stats["mean"] is not None:
            metric = f"mean {stats['mean']:.2f}"
        else:
            metric = "-"
        lines.append(
            f"{name}: {metric}{_interval(stats, percent=stats['pass_rate'] is not None)} "
            f"({stats['scored_cases']} scored, {stats['errored_cases']} "
            f"errored, {stats['skipped_cases']} skipped)"
        )
    reward = summary["reward"]
    if reward["cases"]:
        interval = _interval(reward, percent=False, digits=4)
        lines.append(f"reward: mean {reward['mean']:.4f}{interval} over {reward['cases']} cases")
    pairwise = summary.get("pairwise")
    if pairwise is not None:
        lines.append(
            f"pairwise {pairwise['run_a']} vs {pairwise['run_b']}: A wins {pairwise['wins_a']} | "
            f"B wins {pairwise['wins_b']} | ties {pairwise['ties']} | errors {pairwise['errors']}"
        )
    spent = summary.get("usage", {}).get("cost_usd")
    if spent is not None:
        lines.append(f"cost: ${spent:.4f} ({summary['usage'].get('total_tokens', 0)} tokens)")
    if "regressions" in summary:
        lines += ["", *report([Regression(**entry) for entry in summary["regressions"]])]
    return lines


def _interval(stats: Mapping[str, Any], *, percent: bool, digits: int = 2) -> str:
    """` [low, high]` (the 95% interval), or nothing when there is none."""
    ci = stats.get("ci95")
    if not ci:
        return ""
    shown = "{:.1%}" if percent else f"{{:.{digits}f}}"
    return f" 95% CI [{shown.format(ci[0])}, {shown.format(ci[1])}]"


def write_summary(out_dir: Path, summary: Mapping[str, Any], per_case: Entries) -> None:
    """Write `summary.json` and `summary.yaml` (same content) into `out_dir`, atomically.

    `per_case` goes after `judges`, streamed `_BATCH` cases at a time: the text is what one
    `json.dumps(..., indent=2)` (and one YAML dump) of the whole summary would give.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_writer(out_dir / "summary.json") as handle:
        _write_json(handle, summary, per_case)
    with atomic_writer(out_dir / "summary.yaml") as handle:
        _write_yaml(handle, summary, per_case)


def _items(summary: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """The summary's keys in order, with `per_case` (its value None) after `judges`."""
    for key, value in summary.items():
        yield key, value
        if key == "judges":
            yield "per_case", None


def _batches(per_case: Entries) -> Iterator[dict[str, Mapping[str, Any]]]:
    cases = per_case()
    while batch := dict(islice(cases, _BATCH)):
        yield batch


def _write_json(handle: TextIO, summary: Mapping[str, Any], per_case: Entries) -> None:
    for i, (key, value) in enumerate(_items(summary)):
        handle.write(f"{'{' if i == 0 else ','}\n  {json.dumps(key)}: ")
        if key != "per_case":
            handle.write(_nested(json.dumps(value, indent=2)))
            continue
        opened = False
        for batch in _batches(per_case):
            # `{"a": ..., "b": ...}` without its braces, one level deeper
            handle.write(("," if opened else "{") + _nested(json.dumps(batch, indent=2)[1:-2]))
            opened = True
        handle.write("\n  }" if opened else "{}")
    handle.write("\n}")


def _nested(text: str) -> str:
    return text.replace("\n", "\n  ")  # JSON strings hold no raw newline


def _write_yaml(handle: TextIO, summary: Mapping[str, Any], per_case: Entries) -> None:
    for key, value in _items(summary):
        if key != "per_case":
            handle.write(_yaml({key: value}))
            continue
        opened = False
        for batch in _batches(per_case):
            text = _yaml({key: batch})
            handle.write(text.partition("\n")[2] if opened else text)  # one `per_case:` line
            opened = True
        if not opened:
            handle.write(_yaml({key: {}}))


def _yaml(data: Mapping[str, Any]) -> str:
    import yaml

    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's, when PyYAML has it
    text: str = yaml.dump(data, Dumper=dumper, sort_keys=False)
    return text
