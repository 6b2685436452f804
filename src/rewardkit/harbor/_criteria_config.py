"""The `[[criterion]]` tables of a judge TOML → `CriterionDef`s, every problem located."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError, did_you_mean
from rewardkit.harbor._toml_fields import TableReader
from rewardkit.judges._definition import CriterionDef, slug
from rewardkit.judges.formats import FORMAT_TYPES, Binary, Format, Likert, Numeric, Rubric

__all__ = ["parse_criteria"]

_KEYS = (
    "description",
    "type",
    "name",
    "id",
    "points",
    "levels",
    "min",
    "max",
    "weight",
    "files",
    "negate",
    "optional",
    "annotations",
)
_FORMAT_KEYS = {"points": "likert", "levels": "rubric", "min": "numeric", "max": "numeric"}
_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def parse_criteria(path: Path, raw: Any, errors: list[ConfigError]) -> tuple[CriterionDef, ...]:
    """Validate the `criterion` array of tables; problems are appended to `errors`."""
    if raw is None or (isinstance(raw, list) and not raw):
        errors.append(
            ConfigError(
                "a judge needs at least one [[criterion]] table, e.g.\n"
                '  [[criterion]]\n  description = "Is the code correct?"',
                path=path,
            )
        )
        return ()
    if not isinstance(raw, list) or not all(isinstance(t, dict) for t in raw):
        errors.append(
            ConfigError(
                "criteria must be written as [[criterion]] tables (an array of tables).",
                path=path,
                key="criterion",
            )
        )
        return ()
    parsed = (_criterion(path, i, table, errors) for i, table in enumerate(raw))
    return tuple(c for c in parsed if c is not None)


def _criterion(
    path: Path, index: int, table: Mapping[str, Any], errors: list[ConfigError]
) -> CriterionDef | None:
    given = table.get("name")
    label = f"[[criterion]] #{index + 1}" + (f" ({given!r})" if isinstance(given, str) else "")
    read = TableReader(table, path, label, errors)
    read.unknown(_KEYS, "[[criterion]]")
    before = len(errors)
    description = read.string("description", '"Is the code correct?"')
    if description is None and "description" not in table:
        read.error('needs a description, e.g. description = "Is the code correct?"')
    name = _name(read, given, description, index)
    criterion_id = read.string("id", '"R1"')
    fmt = _format(read)
    weight = read.number("weight", 1.0)
    files = read.strings("files", '["src/main.py"]')
    negate, optional = _flags(read)
    if description is None or name is None or fmt is None or len(errors) > before:
        return None
    return CriterionDef(
        name=name,
        description=description,
        format=fmt,
        id=criterion_id,
        weight=float(weight),
        files=files,
        negate=negate,
        optional=optional,
    )


def _name(read: TableReader, given: Any, description: str | None, index: int) -> str | None:
    if given is None:
        # RewardKit lets an empty slug through (a description like "???"), and its batched
        # replies can then never be matched; number such criteria instead.
        return (slug(description) if description else "") or f"criterion_{index}"
    if not isinstance(given, str) or not _NAME.fullmatch(given):
        fix = slug(given) if isinstance(given, str) else ""
        read.error(
            f"must be 1 to 64 letters, digits, '_' or '-' (got {given!r}), e.g. "
            f"name = {fix or 'correctness'!r}",
            "name",
        )
        return None
    return given


def _format(read: TableReader) -> Format | None:
    kind = read.table.get("type")
    if kind is not None and kind not in FORMAT_TYPES:
        valid = ", ".join(repr(t) for t in FORMAT_TYPES)
        hint = did_you_mean(kind, FORMAT_TYPES) if isinstance(kind, str) else ""
        read.error(f"unknown criterion type {kind!r}.{hint} Valid types: {valid}.", "type")
        return None
    for key, owner in _FORMAT_KEYS.items():
        if key in read.table and kind != owner:
            read.error(
                f"applies to type = {owner!r} only, but this criterion is "
                f"{kind or 'binary (the default)'}. Add type = {owner!r} or remove {key!r}.",
                key,
            )
            return None
    try:
        if kind == "likert":
            return Likert(points=read.table.get("points", 5))
        if kind == "numeric":
            return Numeric(min=read.table.get("min", 0.0), max=read.table.get("max", 1.0))
        if kind == "rubric":
            if "levels" not in read.table:
                read.error(
                    'a rubric needs levels, worst first, e.g. levels = ["Wrong", '
                    '"Partly right", "Right"]'
                )
                return None
            return Rubric(levels=read.table["levels"])
    except ValueError as exc:
        read.error(f"{exc}.", {"likert": "points", "rubric": "levels"}.get(str(kind)))
        return None
    return Binary()


def _flags(read: TableReader) -> tuple[bool, bool]:
    """`negate` and `optional`; when absent they follow the imported-rubric annotations
    (`type` containing "negative", `importance` containing "optional")."""
    annotations = read.table.get("annotations", {})
    if not isinstance(annotations, dict):
        read.error(f"must be a table (got {annotations!r})", "annotations")
        annotations = {}
    negative = "negative" in str(annotations.get("type", "")).lower()
    optional = "optional" in str(annotations.get("importance", "")).lower()
    return read.boolean("negate", negative), read.boolean("optional", optional)
