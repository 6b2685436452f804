"""The labelled set: a JSONL of items people labelled, or eval.yaml cases with a `label`.

One item per line::

    {"id": "q1", "input": "2+2?", "output": "4", "label": true}
    {"id": "q2", "prompt": "...", "completion": "...", "label": 4}
    {"id": "q3", "input": "...", "output": "...", "output_b": "...", "preferred": "a"}

`input` (or `prompt`) is what the item was given, `output` (or `completion`) what is judged;
`label` is a pass/fail verdict (`true`/`false`) or a score on the judge's scale; an item with
`output_b` is a preference between two outputs and carries `preferred` (`"a"` or `"b"`)
instead. `annotations` (a mapping) is passed to the judge as the case's annotations. Every
item of a set is of one kind. Each item becomes a case record like the ones
`rewardkit eval` builds (`inputs`, `annotations`, `files`), so an eval.yaml judge reads it as
it reads a case: the output is the file `output.txt` (a preference: `a.txt`, then `b.txt`).
`workspace` (a directory, relative to the labels file) is what a tests directory judges, in
place of `output`; an eval.yaml judge then reads its files.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rewardkit.core._errors import ConfigError
from rewardkit.core._untrusted import loads_json

__all__ = ["Item", "Kind", "item_kind", "read_cases", "read_jsonl", "record_of"]

Kind = Literal["pass_fail", "score", "preference"]
KEYS = frozenset(
    {"id", "input", "prompt", "output", "completion", "label", "output_b", "preferred"}
    | {"annotations", "workspace"}
)
MAX_LINE = 10 * 1024 * 1024


@dataclass(frozen=True, kw_only=True)
class Item:
    """One labelled item and the case record its judge reads."""

    id: str
    where: str
    """`labels.jsonl:3` or the case directory, for messages."""
    label: bool | float | str
    """`True`/`False` (pass/fail), a number (a score) or `"a"`/`"b"` (the preferred output)."""
    record: dict[str, Any] = field(repr=False)

    @property
    def kind(self) -> Kind:
        return item_kind(self.label)


def item_kind(label: bool | float | str) -> Kind:
    """The kind of a label: `pass_fail`, `score` or `preference`."""
    if isinstance(label, bool):
        return "pass_fail"
    return "preference" if isinstance(label, str) else "score"


def read_jsonl(path: Path) -> list[Item]:
    """Read a labelled JSONL (see the module docstring).

    Raises:
        ConfigError: the first bad line, as `labels.jsonl:3: label: must be ...`.
    """
    if not path.is_file():
        raise ConfigError("no such file. Pass a labelled .jsonl (one item per line)", path=path)
    items: list[Item] = []
    seen: dict[str, str] = {}
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if len(raw) > MAX_LINE:
                raise ConfigError(f"the line is over {MAX_LINE >> 20} MiB", path=f"{path}:{number}")
            if not raw.strip():
                continue
            item = _item(raw, f"{path}:{number}", path.parent)
            if item.id in seen:
                raise ConfigError(
                    f"id {item.id!r} is used twice (first at {seen[item.id]}). Give each item "
                    "its own id",
                    path=item.where,
                    key="id",
                )
            seen[item.id] = item.where
            items.append(item)
    return _one_kind(items, path)


def read_cases(records: Sequence[tuple[str, Mapping[str, Any]]], root: Path) -> list[Item]:
    """Labelled items from eval.yaml case records: `label` (pass/fail or a score) in each
    case's `annotations.yaml`; a case without one is a `ConfigError`."""
    items = []
    for case_id, record in records:
        where = str(root / case_id / "annotations.yaml")
        notes = record.get("annotations") or {}
        if "label" not in notes:
            raise ConfigError(
                "no label. Add `label: true|false` or `label: <score>` to the case's "
                "annotations.yaml",
                path=where,
                key="label",
            )
        items.append(
            Item(id=case_id, where=where, label=_label(notes["label"], where), record=dict(record))
        )
    return _one_kind(items, root)


def _item(raw: bytes, where: str, base: Path) -> Item:
    try:
        data = loads_json(raw, "a labelled item")  # depth and size caps: the file is not ours
    except ValueError as exc:
        raise ConfigError(
            f"not valid JSON ({exc}). Write one JSON object per line", path=where
        ) from None
    if not isinstance(data, dict):
        raise ConfigError(f"must be a JSON object (got {type(data).__name__})", path=where)
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise ConfigError(
            f"unknown key. Keys: {', '.join(sorted(KEYS))}", path=where, key=str(unknown[0])
        )
    if "id" not in data or not isinstance(data["id"], str | int) or isinstance(data["id"], bool):
        raise ConfigError(
            f"must be a string or an integer (got {data.get('id')!r})", path=where, key="id"
        )
    workspace = _workspace(data, where, base)
    output = _text(data, ("output", "completion"), where, optional=workspace is not None)
    given = data.get("input", data.get("prompt"))
    notes = data.get("annotations", {})
    if not isinstance(notes, Mapping):
        raise ConfigError("must be a mapping", path=where, key="annotations")
    if "output_b" in data:
        if data.get("preferred") not in ("a", "b"):
            raise ConfigError(
                f'must be "a" or "b" (got {data.get("preferred")!r}): the output people preferred',
                path=where,
                key="preferred",
            )
        if "label" in data:
            raise ConfigError(
                "a preference item has `preferred`, not `label`", path=where, key="label"
            )
        other = _text(data, ("output_b",), where)
        if output is None or other is None:
            raise ConfigError(
                "a preference needs `output`, not `workspace`", path=where, key="output"
            )
        return Item(
            id=str(data["id"]),
            where=where,
            label=str(data["preferred"]),
            record=record_of(str(data["id"]), given, {"a.txt": output, "b.txt": other}, notes),
        )
    if "preferred" in data:
        raise ConfigError(
            "`preferred` needs `output_b`, the second output", path=where, key="preferred"
        )
    if "label" not in data:
        raise ConfigError("missing. Add `label`: true, false or a number", path=where, key="label")
    label = _label(data["label"], where)
    files = {} if output is None else {"output.txt": output}
    record = record_of(str(data["id"]), given, files, notes)
    if workspace is not None:
        record["workspace"] = workspace
    return Item(id=str(data["id"]), where=where, label=label, record=record)


def _workspace(data: Mapping[str, Any], where: str, base: Path) -> str | None:
    if "workspace" not in data:
        return None
    value = data["workspace"]
    if not isinstance(value, str) or not value:
        raise ConfigError(f"must be a directory path (got {value!r})", path=where, key="workspace")
    directory = base / value
    if not directory.is_dir():
        raise ConfigError(
            f"no such directory: {directory} (paths are relative to the labels file)",
            path=where,
            key="workspace",
        )
    return str(directory.resolve())


def _text(
    data: Mapping[str, Any], keys: tuple[str, ...], where: str, *, optional: bool = False
) -> str | None:
    for key in keys:
        if key in data:
            value = data[key]
            if not isinstance(value, str):
                raise ConfigError(
                    f"must be a string (got {type(value).__name__})", path=where, key=key
                )
            return value
    if optional:
        return None
    raise ConfigError(f"missing. Add `{keys[0]}`, the text that is judged", path=where, key=keys[0])


def _label(value: Any, where: str) -> bool | float:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    raise ConfigError(
        f"must be true, false or a finite number (got {value!r})", path=where, key="label"
    )


def _one_kind(items: list[Item], source: Path) -> list[Item]:
    if not items:
        raise ConfigError("no labelled items. Add one JSON object per line", path=source)
    first = items[0]
    for item in items[1:]:
        if item.kind != first.kind:
            raise ConfigError(
                f"a {item.kind.replace('_', '/')} label among {first.kind.replace('_', '/')} "
                f"labels (the first at {first.where}). Label every item of a set the same way",
                path=item.where,
                key="preferred" if item.kind == "preference" else "label",
            )
    return items


def record_of(
    item_id: str, given: Any, files: Mapping[str, str], annotations: Mapping[str, Any]
) -> dict[str, Any]:
    """The case record a judge reads for one JSONL item."""
    inputs = (
        dict(given) if isinstance(given, Mapping) else {} if given is None else {"prompt": given}
    )
    return {
        "case_id": item_id,
        "case_path": item_id,
        "inputs": inputs,
        "annotations": dict(annotations),
        "files": dict(files),
        "stdout": None,
        "stderr": None,
    }
