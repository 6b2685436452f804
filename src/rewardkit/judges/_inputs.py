"""Workspace files → chat content blocks for an LLM judge.

The workspace is untrusted (an agent wrote it), so every read goes through
`rewardkit.core._untrusted`: confined to the workspace and verified after open, regular files only,
capped. A path that leaves the workspace (absolute elsewhere, `..`, a symlink) becomes the
note `[outside the workspace]` and is never read; an absolute path inside it (`/app/main.py`
with workspace `/app`, as Harbor tasks write them) is accepted. A task author's `reference`
may also name an absolute path outside the workspace (e.g. in the tests directory, out of the
agent's reach). Nothing is dropped silently: each file the judge cannot see as text or image
is replaced by a note saying why. One call shows at most `MAX_TOTAL_BYTES` of files, and a
directory contributes at most `MAX_DIR_ENTRIES` entries. A `Reader` serves all the requests
of one judge, so a file named by 500 criteria is read once.
"""

from __future__ import annotations

import base64
import importlib
import io
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.core._untrusted import CapExceeded, OutsideWorkspace, confine, read_bytes

__all__ = [
    "MAX_BYTES",
    "MAX_DIR_ENTRIES",
    "MAX_TOTAL_BYTES",
    "Block",
    "Reader",
    "path_blocks",
    "paths_blocks",
    "text_block",
]

Block = dict[str, Any]
"""One OpenAI-style content block: `{"type": "text", ...}` or `{"type": "image_url", ...}`."""

MAX_BYTES = 1 << 20
"""Files larger than this (1 MiB) are replaced by a note."""
MAX_TOTAL_BYTES = 16 << 20
"""The most file bytes one `paths_blocks` call reads (16 MiB); later files become notes."""
MAX_DIR_ENTRIES = 1000
"""The most entries of one directory looked at (which ones, when there are more, is up to
the file system's order); a note says the rest were not read."""

IMAGE_TYPES = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
_DOCUMENTS = frozenset({".pdf", ".docx", ".pptx", ".xlsx", ".xls", ".msg", ".epub"})
_DOCUMENTS_EXTRA = "[document: needs the documents extra (pip install 'rewardkit[documents]')]"


@dataclass
class _Budget:
    """The file bytes a call may still read."""

    left: int = MAX_TOTAL_BYTES


@dataclass(frozen=True)
class _File:
    """A file (not a directory) a path names, shown once it is read."""

    target: Path
    """Resolved, and confined unless the task author's own."""
    label: str


_Entry = list[Block] | _File
"""What a path contributes: a note, or a file."""


def text_block(text: str) -> Block:
    return {"type": "text", "text": text}


def _note(label: str, note: str) -> list[Block]:
    return [text_block(f"--- {label} ---\n{note}")]


class Reader:
    """One judge's reads of a workspace: each path resolved, each file read, once.

    However many criteria name a file, it is read once and all their requests share its
    blocks (one copy in memory). What the workspace holds is taken as it was at the first
    read: later changes are not seen.
    """

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self._paths: dict[tuple[str, bool], list[_Entry]] = {}
        self._reads: dict[Path, bytes | str] = {}
        """A file's bytes, or the note saying why there are none."""
        self._shown: dict[tuple[Path, str], list[Block]] = {}

    def blocks(self, paths: Sequence[str], *, author: bool = False) -> list[Block]:
        """The blocks of every path in `paths`, in order, within one `MAX_TOTAL_BYTES` budget.

        `author=True` also reads absolute paths outside the workspace (trusted, author-written
        locations such as the tests directory).
        """
        budget = _Budget()
        blocks: list[Block] = []
        for path in paths:
            key = (path, author)
            if key not in self._paths:
                self._paths[key] = _entries(self.workspace, path, author)
            for entry in self._paths[key]:
                blocks += self._file(entry, budget) if isinstance(entry, _File) else entry
        return blocks

    def _file(self, file: _File, budget: _Budget) -> list[Block]:
        data = self._reads.get(file.target)
        if data is None:
            data = _read(self.workspace, file.target, budget.left)
            if data is None:  # it does not fit in this call's budget: left unread
                return _used_up(file.label)
            self._reads[file.target] = data
        if isinstance(data, str):
            return _note(file.label, data)
        if len(data) > budget.left:
            return _used_up(file.label)
        budget.left -= len(data)
        key = (file.target, file.label)
        if key not in self._shown:
            self._shown[key] = _shown(data, file.target.suffix.lower(), file.label)
        return self._shown[key]


def paths_blocks(workspace: Path, paths: Sequence[str], *, author: bool = False) -> list[Block]:
    """`Reader.blocks` of a reader of its own: the files are read afresh."""
    return Reader(workspace).blocks(paths, author=author)


def path_blocks(workspace: Path, path: str) -> list[Block]:
    """The blocks of one workspace path: a file, or a directory's immediate files.

    A directory contributes its regular files in name order, hidden ones left out; its
    subdirectories are named in a note, not read.
    """
    return Reader(workspace).blocks([path])


def _entries(workspace: Path, path: str, author: bool) -> list[_Entry]:
    try:
        target = confine(workspace, path, author=author)
    except OutsideWorkspace:
        return [_note(path, "[outside the workspace]")]
    if target.is_dir():
        return _directory(workspace, target, path)
    if not target.exists():
        return [_note(path, "[not found]")]
    return [_File(target, path)]


def _directory(workspace: Path, directory: Path, label: str) -> list[_Entry]:
    try:
        names, more = _listing(directory)
    except OSError:
        return [_note(label, "[unreadable]")]
    entries: list[_Entry] = []
    subdirectories: list[str] = []
    prefix = label.rstrip("/")
    for name in names:
        child_label = f"{prefix}/{name}"
        try:
            child = confine(workspace, directory / name, author=False)
        except OutsideWorkspace:
            entries.append(_note(child_label, "[outside the workspace]"))
            continue
        if child.is_dir():
            subdirectories.append(f"{name}/")
        else:
            entries.append(_File(child, child_label))
    if subdirectories:
        listed = ", ".join(subdirectories)
        entries.append(_note(f"{prefix}/", f"[subdirectories not included: {listed}]"))
    if more:
        more_note = f"[entries after the first {MAX_DIR_ENTRIES:,} not read]"
        entries.append(_note(f"{prefix}/", more_note))
    return entries or [_note(f"{prefix}/", "[empty directory]")]


def _listing(directory: Path) -> tuple[list[str], bool]:
    """Up to `MAX_DIR_ENTRIES` visible names in `directory`, sorted; True if there are more."""
    names: list[str] = []
    with os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.startswith("."):
                continue
            if len(names) == MAX_DIR_ENTRIES:
                return sorted(names), True
            names.append(entry.name)
    return sorted(names), False


def _read(workspace: Path, path: Path, left: int) -> bytes | str | None:
    """The bytes of a confined file, or a note saying why not; None when it is larger than
    the `left` bytes a call may still read (not read, so other calls may)."""
    try:
        info = path.stat()
    except OSError:
        return "[unreadable]"
    if not stat.S_ISREG(info.st_mode):  # a FIFO or a device would block or never end
        return "[not a regular file]"
    if info.st_size > MAX_BYTES:
        return f"[skipped: file too large ({info.st_size} bytes; the limit is 1 MiB)]"
    if info.st_size > left:
        return None
    try:  # `path` is confined already (or is the author's own): open it as it stands
        return read_bytes(workspace, path, author=True, cap=MAX_BYTES)
    except OutsideWorkspace:  # swapped for a link out after the check above
        return "[outside the workspace]"
    except CapExceeded as exc:  # it grew or was swapped meanwhile
        return f"[skipped: {exc}]"
    except OSError:
        return "[unreadable]"


def _used_up(label: str) -> list[Block]:
    cap = MAX_TOTAL_BYTES >> 20
    return _note(label, f"[skipped: this judge's {cap} MiB of file input is used up]")


def _shown(data: bytes, suffix: str, label: str) -> list[Block]:
    """The blocks of a file's bytes: a document as Markdown, an image, text, or a note."""
    if suffix in _DOCUMENTS:
        return _document(data, suffix, label)
    if suffix in IMAGE_TYPES:
        url = f"data:{IMAGE_TYPES[suffix]};base64,{base64.b64encode(data).decode('ascii')}"
        return [text_block(f"--- {label} ---"), {"type": "image_url", "image_url": {"url": url}}]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _note(label, "[binary file skipped]")
    if "\x00" in text:
        return _note(label, "[binary file skipped]")
    return [text_block(f"--- {label} ---\n{text}")]


def _document(data: bytes, suffix: str, label: str) -> list[Block]:
    """A PDF, Office or e-book file as Markdown, through the optional `markitdown`.

    The converter gets the bytes already read (never the path, which could be swapped).
    """
    try:
        markitdown: Any = importlib.import_module("markitdown")
    except ImportError:
        return _note(label, _DOCUMENTS_EXTRA)
    try:
        converted = markitdown.MarkItDown().convert_stream(io.BytesIO(data), file_extension=suffix)
        text = converted.text_content
    except Exception as exc:  # a converter failure must not end the run
        return _note(label, f"[document could not be converted: {type(exc).__name__}: {exc}]")
    return [text_block(f"--- {label} ---\n{text}")]
