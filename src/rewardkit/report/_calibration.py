"""`rewardkit report calibration.json`: a judge's calibration (`rewardkit calibrate`) as its
terminal table, its figures as JSON, or a self-contained HTML page with a "Calibration"
section.

The file may have been edited by anyone: it is read under the usual caps, its shape is
checked before anything renders it, and the page escapes every string (Jinja2 autoescaping).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from rewardkit.calibration._table import SCHEMA
from rewardkit.core._errors import ConfigError, for_terminal
from rewardkit.core._untrusted import loads_json, read_text

__all__ = ["SCHEMA", "calibration_html", "calibration_lines", "read_calibration"]

MAX_CALIBRATION_BYTES = 16 << 20
"""The largest calibration.json read (16 MiB)."""
_KINDS = ("pass_fail", "score", "preference")
_LABELS = {
    "accuracy": "accuracy",
    "precision": "precision",
    "recall": "recall",
    "specificity": "specificity",
    "kappa": "Cohen's κ",
    "spearman": "Spearman's ρ",
    "kendall_tau_b": "Kendall's τ-b",
    "alpha_interval": "Krippendorff's α (interval)",
}
"""The agreement figures, in the order the page lists them, and their names there."""


def read_calibration(path: Path, *, required: bool = False) -> dict[str, Any] | None:
    """`path`'s calibration document, or `None` when `path` is not a calibration (a run).

    A calibration is a `.json` file whose `schema` is `rewardkit.calibration/...`, or any
    `.json` file other than `summary.json` whose name holds "calibration"; with `required`
    (`--calibration`), any file.

    Raises:
        ConfigError: `path` is a calibration that cannot be read, has an unknown schema, or
            is malformed (one line naming the file and the problem).
    """
    if required and not path.is_file():
        raise ConfigError("no such file", path=path)
    if not required and (
        not path.is_file() or path.suffix != ".json" or path.name == "summary.json"
    ):
        return None
    named = required or "calibration" in path.name.lower()
    try:
        data = loads_json(read_text(path.parent, path.name, cap=MAX_CALIBRATION_BYTES), str(path))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        if not named:
            return None
        from rewardkit.report._fields import why_unreadable

        raise ConfigError(
            f"not a readable calibration.json: {why_unreadable(exc)}", path=path
        ) from None
    schema = data.get("schema") if isinstance(data, dict) else None
    ours = isinstance(schema, str) and schema.startswith("rewardkit.calibration")
    if not ours and not named:
        return None
    if schema != SCHEMA:
        raise ConfigError(f"unknown schema {schema!r} (expected {SCHEMA!r})", path=path)
    assert isinstance(data, dict)
    try:
        json.dumps(data, allow_nan=False)
    except ValueError:
        raise ConfigError("malformed calibration.json: holds NaN or Infinity", path=path) from None
    try:
        _check(data)
        for key in ("samples_agreement", "thresholds", "probes"):
            data.setdefault(key, None)
    except _Malformed as exc:
        raise ConfigError(f"malformed calibration.json: {exc.key}: {exc}", path=path) from None
    return data


class _Malformed(ValueError):
    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


def _need(ok: bool, key: str, message: str) -> None:
    if not ok:
        raise _Malformed(key, message)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_number(value: object) -> bool:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return ok and math.isfinite(float(value))  # type: ignore[arg-type]


def _mapping(data: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise _Malformed(f"{where}{key}", "must be an object")
    return value


def _figure(value: object, key: str) -> None:
    """`{"value": number | null, "ci95": [low, high] | null}`."""
    _need(isinstance(value, dict), key, "must be an object with value and ci95")
    assert isinstance(value, dict)
    number, ci = value.get("value"), value.get("ci95")
    _need(number is None or _is_number(number), f"{key}.value", "must be a number or null")
    _need(
        ci is None or (isinstance(ci, list) and len(ci) == 2 and all(map(_is_number, ci))),
        f"{key}.ci95",
        "must be [low, high] or null",
    )


def _optional(data: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    value = data.get(key)
    _need(value is None or isinstance(value, dict), key, "must be an object or null")
    return value


def _check(data: Mapping[str, Any]) -> None:
    """Everything the table and the page read, with the types they read it as."""
    judge = _mapping(data, "judge", "")
    for key in ("name", "where"):
        _need(isinstance(judge.get(key), str), f"judge.{key}", "must be a string")
    _need(isinstance(judge.get("kind", ""), str), "judge.kind", "must be a string")
    labels = _mapping(data, "labels", "")
    _need(labels.get("kind") in _KINDS, "labels.kind", f"must be one of {', '.join(_KINDS)}")
    for key in ("items", "judged"):
        _need(_is_int(labels.get(key)), f"labels.{key}", "must be a count")
    _need(_is_int(data.get("samples")), "samples", "must be a count")
    errors = _mapping(data, "judge_errors", "")
    _need(_is_int(errors.get("count")), "judge_errors.count", "must be a count")
    first = errors.get("first")
    _need(isinstance(first, list), "judge_errors.first", "must be a list")
    assert isinstance(first, list)
    for error in first:
        _need(
            isinstance(error, dict)
            and isinstance(error.get("id"), str | int)
            and "error" in error
            and isinstance(error["error"], str | None),
            "judge_errors.first",
            "each must be {id, status, error}",
        )
    _need(
        not errors["count"] or bool(first),
        "judge_errors.first",
        "must list the first errors when count is not 0",
    )
    agreement = _mapping(data, "agreement", "")
    for name in _LABELS:
        if name in agreement:
            _figure(agreement[name], f"agreement.{name}")
    if "confusion" in agreement:
        confusion = _mapping(agreement, "confusion", "agreement.")
        for cell in ("tp", "fp", "fn", "tn"):
            _need(_is_int(confusion.get(cell)), f"agreement.confusion.{cell}", "must be a count")
    _need(
        "pass_at" not in agreement or _is_number(agreement["pass_at"]),
        "agreement.pass_at",
        "must be a number",
    )
    samples = _optional(data, "samples_agreement")
    if samples is not None:
        _figure(samples.get("alpha"), "samples_agreement.alpha")
        _need(isinstance(samples.get("level", ""), str), "samples_agreement.level", "a string")
    thresholds = _optional(data, "thresholds")
    if thresholds is not None:
        if thresholds.get("best") is not None:
            _figure(thresholds["best"], "thresholds.best")
        share = thresholds.get("fail_share")
        if share is not None:
            _figure(share, "thresholds.fail_share")
            _need(_is_number(share.get("share")), "thresholds.fail_share.share", "a number")
    probes = _optional(data, "probes")
    for name, probe in (probes or {}).items():
        _need(isinstance(probe, dict), f"probes.{name}", "must be {items, shift}")
        _need(_is_int(probe.get("items")), f"probes.{name}.items", "must be a count")
        _figure(probe.get("shift"), f"probes.{name}.shift")
    gate = _optional(data, "min_agreement")
    if gate is not None:
        _need(isinstance(gate.get("statistic"), str), "min_agreement.statistic", "a string")
        _need(_is_number(gate.get("threshold")), "min_agreement.threshold", "a number")
        _need(isinstance(gate.get("passed"), bool), "min_agreement.passed", "true or false")


def calibration_lines(data: Mapping[str, Any]) -> list[str]:
    """The terminal table `rewardkit calibrate` prints (its control characters shown as `?`)."""
    from rewardkit.calibration._table import table_lines

    return [for_terminal(line) for line in table_lines(data)]


def calibration_html(data: Mapping[str, Any], source: str, title: str | None = None) -> str:
    """A self-contained page (the run report's look) with the calibration's section."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined
    from markupsafe import Markup

    here = Path(__file__).parent
    page = (here / "report.html.j2").read_text("utf-8")
    style = page[page.index("<style>") : page.index("</style>") + len("</style>")]
    env = Environment(loader=FileSystemLoader(here), autoescape=True, undefined=StrictUndefined)
    return env.get_template("calibration.html.j2").render(
        title=title or f"Calibration of {data['judge']['name']}",
        source=source,
        style=Markup(style),  # the run report's own CSS, not input
        c=calibration_view(data),
    )


def _number(value: object) -> str:
    return "–" if value is None else f"{value:.3f}"


def _row(name: str, figure: Mapping[str, Any] | None) -> dict[str, str]:
    figure = figure or {}
    ci = figure.get("ci95")
    return {
        "name": name,
        "value": "n/a" if figure.get("value") is None else _number(figure["value"]),
        "interval": "–" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]",
    }


def _figures(agreement: Mapping[str, Any]) -> Iterator[dict[str, str]]:
    for key, name in _LABELS.items():
        if key in agreement:
            yield _row(name, agreement[key])


def calibration_view(data: Mapping[str, Any]) -> dict[str, Any]:
    """What the page's section shows, as strings and numbers (the template escapes them)."""
    agreement, labels = data["agreement"], data["labels"]
    thresholds = data["thresholds"] or {}
    rows = []
    if thresholds.get("best") is not None:
        rows.append(_row("best threshold", thresholds["best"]))
    if thresholds.get("fail_share") is not None:
        share = thresholds["fail_share"]
        rows.append(_row(f"threshold at which {share['share']:.0%} fail", share))
    probes = [
        {**_row(str(name), probe["shift"]), "count": probe["items"]}
        for name, probe in (data["probes"] or {}).items()
    ]
    samples = data["samples_agreement"]
    gate = data.get("min_agreement")
    return {
        "judge": data["judge"],
        "kind": str(labels["kind"]).replace("_", "/"),
        "total": labels["items"],
        "judged": labels["judged"],
        "samples": data["samples"],
        "figures": list(_figures(agreement)),
        "confusion": agreement.get("confusion"),
        "pass_at": agreement.get("pass_at"),
        "samples_alpha": None if samples is None else _row("α across samples", samples["alpha"]),
        "samples_level": None if samples is None else samples.get("level"),
        "thresholds": rows,
        "probes": probes,
        "probed": data["probes"] is not None,
        "error_count": data["judge_errors"]["count"],
        "errors_shown": data["judge_errors"]["first"],
        "gate": gate,
    }
