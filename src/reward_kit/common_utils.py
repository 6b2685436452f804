"""reward-kit's `reward_kit.common_utils`: `load_jsonl`.

Example:
    >>> load_jsonl("/no/such/file.jsonl")
    []
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

__all__ = ["load_jsonl"]

_log = logging.getLogger(__name__)


def load_jsonl(file_path: str | Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, one per non-blank line.

    As in reward-kit 0.4.1, a missing or unreadable file gives `[]` and logs an error; a
    line that is not valid JSON is logged (with its line number) and skipped.
    """
    try:
        lines = Path(file_path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        _log.error("load_jsonl: cannot read %s: %s", file_path, exc)
        return []
    records = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            _log.error("load_jsonl: %s:%d is not JSON (%s); skipped", file_path, number, exc)
    return records
