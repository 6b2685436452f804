"""How builtins read a case record: its text files and its run metadata."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["Record", "Verdict", "recorded", "text_file"]

Verdict = tuple[bool, str]
Record = Mapping[str, Any]


def text_file(outputs: Record, path: str) -> str | None:
    """The text of `outputs["files"][path]`; None when absent or not text."""
    content = (outputs.get("files") or {}).get(path)
    return content if isinstance(content, str) else None


def recorded(outputs: Record, key: str, source: str) -> Any:
    """`outputs[key]`, or a LookupError saying where run metadata comes from."""
    if key not in outputs:
        raise LookupError(
            f"{key} is not recorded for this case, so this judge cannot score it. An eval "
            f"case records it in {source} in its directory; the Harbor bridge reads {source} "
            f"from the tests directory only (run metadata is never read from the workspace, "
            f"which the agent writes). Provide {source} there, or remove this judge."
        )
    return outputs[key]
