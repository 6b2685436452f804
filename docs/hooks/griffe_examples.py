"""Griffe extension: read a Google-style `Example:` section as `Examples:` (as Napoleon does).

Griffe knows only the plural; the singular, used throughout rewardkit, would otherwise render
its doctests as prose.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_SINGULAR = re.compile(r"^(\s*)Example:[ \t]*$", re.M)


class ExampleSections(griffe.Extension):
    """Rename `Example:` section headers to `Examples:` before docstrings are parsed."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _SINGULAR.sub(r"\1Examples:", obj.docstring.value)
