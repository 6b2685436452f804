"""Run a judge (a `Target`) over a labelled set (and its probes) and assemble
`calibration.json`'s figures (see `docs/calibration.md` for the schema)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import rewardkit.calibration._metrics as m
from rewardkit.calibration._agreement import bootstrap
from rewardkit.calibration._labels import Item
from rewardkit.calibration._probes import confident, padded, swapped, wrong_items
from rewardkit.calibration._table import SCHEMA
from rewardkit.calibration._targets import Target
from rewardkit.core._outcome import Outcome

__all__ = ["SCHEMA", "Options", "agreement_of", "calibrate"]

MAX_ERRORS_SHOWN = 20


@dataclass(frozen=True, kw_only=True)
class Options:
    """What `rewardkit calibrate` was asked for."""

    samples: int = 1
    """How many times the judge scores every item (agreement across samples from 2)."""
    probes: bool = False
    fail_share: float | None = None
    """The share of the labelled set that should fail at the reported threshold."""
    pass_at: float | None = None
    """A numeric judge's pass mark against pass/fail labels (default: mid-`score_range`)."""
    seed: int = 0


def _number(outcome: Outcome) -> float | None:
    if outcome.status != "scored":
        return None
    value = outcome.raw if isinstance(outcome.raw, bool) else outcome.value
    return None if value is None else float(value)


def _combined(values: Sequence[float | None], boolean: bool) -> float | None:
    """An item's samples as one score (`None`: every sample failed)."""
    found = [v for v in values if v is not None]
    return m.combine(found, boolean) if found else None


def _unit(judge: Target, value: float, boolean: bool) -> float:
    """A score on [0, 1]: verdicts as they are, numbers through the judge's `score_range`."""
    if boolean or judge.scale is None:
        return value
    low, high = judge.scale
    return (value - low) / (high - low) if high > low else value


def calibrate(judge: Target, items: Sequence[Item], options: Options) -> dict[str, Any]:
    """Judge every item `options.samples` times (and the probes), then measure agreement."""
    records = [(item.id, item.record) for item in items]
    runs = [judge.run(records) for _ in range(options.samples)]
    values = [[_number(run[i]) for run in runs] for i in range(len(items))]
    boolean = judge.verdicts or all(
        isinstance(o.raw, bool) for run in runs for o in run if o.status == "scored"
    )
    scores = [_combined(vs, boolean) for vs in values]
    errors = [
        {"id": item.id, "status": runs[0][i].status, "error": runs[0][i].error}
        for i, item in enumerate(items)
        if scores[i] is None
    ]
    judged = [(item, score) for item, score in zip(items, scores, strict=True) if score is not None]
    data: dict[str, Any] = {
        "schema": SCHEMA,
        "judge": {"name": judge.name, "kind": judge.kind, "where": judge.where},
        "labels": {"kind": items[0].kind, "items": len(items), "judged": len(judged)},
        "samples": options.samples,
        "seed": options.seed,
        "judge_errors": {"count": len(errors), "first": errors[:MAX_ERRORS_SHOWN]},
        "agreement": agreement_of(judge, judged, boolean, options),
        "samples_agreement": None,
        "thresholds": _thresholds(judge, judged, boolean, options),
        "probes": None,
    }
    if options.samples > 1:
        alpha = m.samples_alpha(values, boolean=boolean, seed=options.seed)
        data["samples_agreement"] = {
            "alpha": alpha.as_dict(),
            "level": "nominal" if boolean else "interval",
        }
    if options.probes:
        data["probes"] = _probes(judge, items, runs[0], boolean, options)
    return data


def agreement_of(
    judge: Target, judged: Sequence[tuple[Item, float]], boolean: bool, options: Options
) -> dict[str, Any]:
    """The agreement figures for the labels' kind (empty when nothing was judged)."""
    if not judged:
        return {}
    kind = judged[0][0].kind
    labels = [item.label for item, _ in judged]
    scores = [score for _, score in judged]
    seed = options.seed
    if kind == "preference":
        picks = [_pick(_unit(judge, s, boolean)) for s in scores]
        return m.preference_figures(picks, [str(label) for label in labels], seed=seed)
    if kind == "score":
        return m.score_figures(scores, [float(label) for label in labels], seed=seed)
    mark = _pass_mark(judge, boolean, options)
    verdicts = [s >= mark for s in scores]
    figures = m.pass_fail_figures(verdicts, [bool(label) for label in labels], seed=seed)
    return {**figures, "pass_at": mark}


def _pass_mark(judge: Target, boolean: bool, options: Options) -> float:
    if boolean:
        return 0.5
    if options.pass_at is not None:
        return options.pass_at
    return 0.5 if judge.scale is None else (judge.scale[0] + judge.scale[1]) / 2


def _pick(unit: float) -> str:
    return "a" if unit > 0.5 else "b" if unit < 0.5 else "tie"


def _thresholds(
    judge: Target, judged: Sequence[tuple[Item, float]], boolean: bool, options: Options
) -> dict[str, Any] | None:
    if boolean or not judged or judged[0][0].kind == "preference":
        return None
    scores = [score for _, score in judged]
    found: dict[str, Any] = {"best": None, "fail_share": None}
    if judged[0][0].kind == "pass_fail":
        labels = [bool(item.label) for item, _ in judged]
        found["best"] = m.threshold_interval(scores, labels, seed=options.seed)
    if options.fail_share is not None:
        share = options.fail_share
        interval = bootstrap(scores, lambda s: m.fail_share_threshold(s, share), seed=options.seed)
        found["fail_share"] = {"share": share, **interval.as_dict()}
    return found


def _probes(
    judge: Target,
    items: Sequence[Item],
    first: Sequence[Outcome],
    boolean: bool,
    options: Options,
) -> dict[str, Any]:
    """Each probe's measured shift: the mean change of the score (on [0, 1]) it causes."""
    plans: dict[str, tuple[list[int], Any]] = {"padding": (list(range(len(items))), padded)}
    plans["confident_wrong"] = (wrong_items(items), confident)
    if items[0].kind == "preference":
        plans["order_swap"] = (list(range(len(items))), swapped)
    found: dict[str, Any] = {}
    for name, (chosen, change) in plans.items():
        records = [(items[i].id, change(items[i].record)) for i in chosen]
        outcomes = judge.run(records)
        before, after = [], []
        for i, outcome in zip(chosen, outcomes, strict=True):
            old, new = _number(first[i]), _number(outcome)
            if old is None or new is None:
                continue
            old, new = _unit(judge, old, boolean), _unit(judge, new, boolean)
            # a fair judge flips a swapped preference: compare with the flipped score
            before.append(1.0 - old if name == "order_swap" else old)
            after.append(new)
        found[name] = {
            "items": len(before),
            "shift": m.shift(before, after, seed=options.seed).as_dict(),
        }
    return found
