"""The opt-in persistent cache of judge replies: one JSON file per request key.

An entry holds the reply text and the usage of the call that produced it; never the
request's messages or any credential. Entries are written atomically (a temporary file in
the same directory, then `os.replace`), so concurrent runs sharing a directory see either a
whole entry or none; an entry that cannot be read or has the wrong shape is ignored and
overwritten by the next successful call.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.models._usage import Usage

__all__ = ["CachedReply", "ReplyCache"]

FORMAT = "rewardkit-judge-cache/1"
_log = logging.getLogger("rewardkit")


@dataclass(frozen=True)
class CachedReply:
    """A reply read back from the cache."""

    text: str
    usage: Usage
    """What the original call cost (a cache hit itself costs nothing)."""


class ReplyCache:
    """Replies stored under `directory/<key[:2]>/<key>.json`."""

    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    def path(self, key: str) -> Path:
        """Where the entry for `key` lives (two-character fan-out keeps directories small)."""
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> CachedReply | None:
        """The stored reply for `key`, or `None` when absent, unreadable or malformed."""
        try:
            data: Any = json.loads(self.path(key).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            return None
        if not (
            isinstance(data, dict)
            and data.get("format") == FORMAT
            and data.get("key") == key
            and isinstance(data.get("text"), str)
            and isinstance(data.get("usage"), dict)
        ):
            return None
        return CachedReply(text=data["text"], usage=Usage.from_dict(data["usage"]))

    def put(self, key: str, *, model: str, text: str, usage: Usage) -> bool:
        """Store a reply; `False` (and a logged warning) if the directory is not writable."""
        entry: dict[str, Any] = {"format": FORMAT, "key": key, "model": model, "text": text}
        entry["usage"] = usage.as_dict()
        target = self.path(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=target.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(entry, handle, ensure_ascii=False)
                os.replace(temp, target)
            except BaseException:
                Path(temp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            _log.warning("rewardkit: could not write the judge cache entry %s: %s", target, exc)
            return False
        return True
