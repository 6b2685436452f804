"""Templates: `{{ item.field }}` and `{{ sample.output_text }}` in a grader's strings.

A template is checked when the grader loads (each `{{ }}` names the `item` or `sample`
namespace, and a `sample` field that exists); rendering then looks the dotted path up in
the sample's `GraderInput`. Strings are inserted as they are, other values as JSON.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from rewardkit.core._errors import did_you_mean
from rewardkit.graders._fields import Fields
from rewardkit.graders._input import GraderInput

__all__ = ["SAMPLE_FIELDS", "Template", "TemplateError"]

SAMPLE_FIELDS = ("output_text", "output_json", "output_tools")
"""The `sample` fields a template may name."""
_ROOTS = ("item", "sample")
_SLOT = re.compile(r"\{\{\s*(.*?)\s*\}\}")
_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[\w-]+)*")


class TemplateError(LookupError):
    """A template names a value this sample does not have (the grader errors on it)."""


@dataclass(frozen=True)
class Template:
    """A checked template: literal text and `(root, keys)` slots, alternating."""

    source: str
    parts: tuple[str | tuple[str, tuple[str, ...]], ...]

    @classmethod
    def parse(cls, fields: Fields, key: str) -> Template:
        """The template at `key` of `fields`.

        Raises:
            ConfigError: a slot is not `namespace.path`, or names an unknown root or field.
        """
        source = fields.text(key)
        parts: list[str | tuple[str, tuple[str, ...]]] = []
        at = 0
        for slot in _SLOT.finditer(source):
            parts.append(source[at : slot.start()])
            parts.append(_slot(slot.group(1), fields, key))
            at = slot.end()
        parts.append(source[at:])
        return cls(source=source, parts=tuple(p for p in parts if p != ""))

    def render(self, given: GraderInput) -> str:
        """The text for one sample.

        Raises:
            TemplateError: a slot names a field this sample lacks.
        """
        out = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
                continue
            value = _lookup(given, *part)
            out.append(value if isinstance(value, str) else json.dumps(value))
        return "".join(out)


def _slot(text: str, fields: Fields, key: str) -> tuple[str, tuple[str, ...]]:
    slot = "{{ " + text + " }}"
    if not _PATH.fullmatch(text):
        raise fields.error(key, f"{slot!r} must be a namespace and a path, e.g. item.answer")
    root, *keys = text.split(".")
    if root not in _ROOTS:
        hint = did_you_mean(root, _ROOTS)
        message = f"unknown template root {root!r} in {slot!r}.{hint} Roots: item, sample"
        raise fields.error(key, message)
    if root == "sample" and (not keys or keys[0] not in SAMPLE_FIELDS):
        name = keys[0] if keys else ""
        hint = did_you_mean(name, SAMPLE_FIELDS)
        valid = ", ".join(SAMPLE_FIELDS)
        raise fields.error(key, f"unknown sample field {name!r} in {slot!r}.{hint} Fields: {valid}")
    return root, tuple(keys)


def _lookup(given: GraderInput, root: str, keys: tuple[str, ...]) -> Any:
    value: Any = given.item if root == "item" else given.sample
    for i, key in enumerate(keys):
        if isinstance(value, dict) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            where = ".".join((root, *keys[: i + 1]))
            raise TemplateError(f"the sample has no {where}")
    return value
