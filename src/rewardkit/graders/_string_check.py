"""`string_check`: compare two rendered templates; 1 or 0."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

from rewardkit.graders._graded import Graded
from rewardkit.graders._input import GraderInput
from rewardkit.graders._template import Template, TemplateError

__all__ = ["OPERATIONS", "StringCheck"]

Operation = Literal["eq", "ne", "like", "ilike"]
OPERATIONS: tuple[Operation, ...] = ("eq", "ne", "like", "ilike")
"""`eq`/`ne`: equal or not (case-sensitive); `like`: the input contains the reference;
`ilike`: the same, ignoring case."""


@dataclass(frozen=True, kw_only=True)
class StringCheck:
    """1 when `input` `operation` `reference` holds, else 0."""

    kind: ClassVar[str] = "string_check"
    name: str
    operation: Operation
    input: Template
    reference: Template

    def evaluate(self, given: GraderInput) -> Graded:
        try:
            text, reference = self.input.render(given), self.reference.render(given)
        except TemplateError as exc:
            return Graded.failed(str(exc))
        if self.operation == "eq":
            ok = text == reference
        elif self.operation == "ne":
            ok = text != reference
        elif self.operation == "like":
            ok = reference in text
        else:
            ok = reference.casefold() in text.casefold()
        return Graded(1.0 if ok else 0.0, f"{self.operation}: {'true' if ok else 'false'}")
