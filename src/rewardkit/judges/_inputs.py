"""Workspace files → chat content blocks for an LLM judge.

The workspace is untrusted (an agent wrote it). Every path is confined to it: a path that
leaves it (absolute elsewhere, `..`, a symlink) becomes the note `[outside the workspace]`
and is never read. An absolute path inside the workspace (`/app/main.py` with workspace
`/app`, as Harbor tasks write them) is accepted. Nothing is dropped silently: each file the
judge cannot see as text or image is replaced by a note saying why.
"""

from __future__ import annotations

import base64
import importlib
import os
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any

from rewardkit.criteria._paths import OutsideWorkspace, inside

__all__ = ["MAX_BYTES", "Block", "path_blocks", "paths_blocks", "text_block"]

Block = dict[str, Any]
"""One OpenAI-style content block: `{"type": "text", ...}` or `{"type": "image_url", ...}`."""

MAX_BYTES = 1 << 20
"""Files larger than this (1 MiB) are replaced by a note."""

IMAGE_TYPES = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
_DOCUMENTS = frozenset({".pdf", ".docx", ".pptx", ".xlsx", ".xls", ".msg", ".epub"})
_DOCUMENTS_EXTRA = "[document: needs the documents extra (pip install 'rewardkit[documents]')]"


def text_block(text: str) -> Block:
    return {"type": "text", "text": text}


def _note(label: str, note: str) -> list[Block]:
    return [text_block(f"--- {label} ---\n{note}")]


def paths_blocks(workspace: Path, paths: Sequence[str]) -> list[Block]:
    """The blocks of every path in `paths`, in order."""
    return [block for path in paths for block in path_blocks(workspace, path)]


def path_blocks(workspace: Path, path: str) -> list[Block]:
    """The blocks of one workspace path: a file, or a directory's immediate files.

    A directory contributes its regular files in name order, hidden ones left out; its
    subdirectories are named in a note, not read.
    """
    try:
        target = _confine(workspace, path)
    except OutsideWorkspace:
        return _note(path, "[outside the workspace]")
    if target.is_dir():
        return _directory(Path(workspace).resolve(), target, path)
    if not target.exists():
        return _note(path, "[not found]")
    return _file(target, path)


def _confine(workspace: Path, path: str) -> Path:
    """`inside(workspace, path)`, also accepting an absolute path that lies inside it."""
    given = PurePath(path)
    if given.is_absolute():
        flat = PurePath(os.path.normpath(given))
        for root in (Path(workspace).absolute(), Path(workspace).resolve()):
            if flat == root or root in flat.parents:
                return inside(workspace, flat.relative_to(root))
        raise OutsideWorkspace(f"{path!r} is outside the workspace")
    return inside(workspace, given)


def _directory(root: Path, directory: Path, label: str) -> list[Block]:
    try:
        children = sorted(directory.iterdir(), key=lambda p: p.name)
    except OSError:
        return _note(label, "[unreadable]")
    blocks: list[Block] = []
    subdirectories: list[str] = []
    prefix = label.rstrip("/")
    for child in children:
        if child.name.startswith("."):
            continue
        child_label = f"{prefix}/{child.name}"
        resolved = child.resolve()
        if resolved != root and root not in resolved.parents:
            blocks += _note(child_label, "[outside the workspace]")
        elif resolved.is_dir():
            subdirectories.append(f"{child.name}/")
        else:
            blocks += _file(resolved, child_label)
    if subdirectories:
        listed = ", ".join(subdirectories)
        blocks += _note(f"{prefix}/", f"[subdirectories not included: {listed}]")
    return blocks or _note(f"{prefix}/", "[empty directory]")


def _file(path: Path, label: str) -> list[Block]:
    try:
        size = path.stat().st_size
    except OSError:
        return _note(label, "[unreadable]")
    if not path.is_file():  # a FIFO or a device would block or never end
        return _note(label, "[not a regular file]")
    if size > MAX_BYTES:
        return _note(label, f"[skipped: file too large ({size} bytes; the limit is 1 MiB)]")
    suffix = path.suffix.lower()
    if suffix in _DOCUMENTS:
        return _document(path, label)
    try:
        data = path.read_bytes()
    except OSError:
        return _note(label, "[unreadable]")
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


def _document(path: Path, label: str) -> list[Block]:
    """A PDF, Office or e-book file as Markdown, through the optional `markitdown`."""
    try:
        markitdown: Any = importlib.import_module("markitdown")
    except ImportError:
        return _note(label, _DOCUMENTS_EXTRA)
    try:
        text = markitdown.MarkItDown().convert(str(path)).text_content
    except Exception as exc:  # a converter failure must not end the run
        return _note(label, f"[document could not be converted: {type(exc).__name__}: {exc}]")
    return [text_block(f"--- {label} ---\n{text}")]
