"""Read what the graded agent wrote without letting it escape, hang, exhaust or crash us.

Every read of untrusted data (the workspace, case outputs, rollouts) goes through here:

- paths are confined to the workspace, and a file is verified *after* it is opened
  (`/proc/self/fd`), so a symlink swapped between a check and the open cannot lead out;
- only regular files are opened (`O_NONBLOCK`: a FIFO cannot hang the open), and reads are
  capped and streamed, so a 1 GiB sparse file costs nothing;
- JSON and YAML are parsed with a cap on nesting depth and on the number of values (a YAML
  alias bomb or a self-referencing document is refused, and no `RecursionError` escapes);
- directory walks are iterative, never follow symlinked directories, and stop at caps.

A hit cap raises `CapExceeded`, whose message names the cap. Paths written by the task
author are honoured as Harbor RewardKit does: an absolute path inside the workspace resolves
inside it; one outside it is read as written (`author=True`). Paths the agent controls use
`author=False` and never leave the workspace.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePath, PurePosixPath
from typing import Any, BinaryIO

from rewardkit.core._errors import CapExceeded, OutsideWorkspace

__all__ = [
    "MAX_CHARS",
    "MAX_DEPTH",
    "MAX_READ_BYTES",
    "MAX_VALUES",
    "CapExceeded",
    "NotRegularFile",
    "OutsideWorkspace",
    "check_shape",
    "confine",
    "loads_json",
    "loads_yaml",
    "open_file",
    "read_bytes",
    "read_text",
    "walk_files",
]

MAX_READ_BYTES = 64 << 20
"""The most any one read of an untrusted file takes (64 MiB); a larger file is refused."""
MAX_DEPTH = 100
"""The deepest nesting accepted in untrusted JSON or YAML."""
MAX_VALUES = 1_000_000
"""The most values (counting each use of a YAML alias) accepted in one JSON or YAML document."""
MAX_CHARS = 64 << 20
"""The most text (characters, counting each use of a YAML alias) in one JSON or YAML document."""
MAX_WALK_ENTRIES = 10_000
"""The most directory entries one walk visits."""
MAX_WALK_DEPTH = 32
"""The deepest directory level one walk descends to."""


class NotRegularFile(OSError):
    """The path names a directory, FIFO, device or socket; only regular files are read."""


_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)


def _mib(n: int) -> str:
    return f"{n >> 20} MiB" if n and n % (1 << 20) == 0 else f"{n:,}-byte"


def confine(workspace: Path, path: str | PurePath, *, author: bool = True) -> Path:
    """Resolve `path` against the workspace; never leave it through `..` or a symlink.

    A relative path resolves inside the workspace. An absolute path that lies inside the
    workspace (`/app/out.txt` graded at `/app`) resolves inside it too. Any other absolute
    path is returned as written when the task author wrote it (`author=True`), and refused
    otherwise.

    Raises:
        OutsideWorkspace: the path leaves the workspace (or is an agent's absolute path).
    """
    return _confined(workspace, path, author)[1]


def _confined(workspace: Path, path: str | PurePath, author: bool) -> tuple[Path | None, Path]:
    """`confine`, with the resolved workspace the target lies in (None: an author's path
    outside it)."""
    given = PurePath(path)
    if given.is_absolute():
        flat = PurePath(os.path.normpath(given))
        for root in (Path(workspace).absolute(), Path(workspace).resolve()):
            if _within(root, flat):
                return _confined(workspace, flat.relative_to(root), False)
        if author:
            return None, Path(flat)
        raise OutsideWorkspace(f"{str(path)!r} is outside the workspace")
    root = Path(workspace).resolve()
    try:
        target = (root / given).resolve()
    except (OSError, RuntimeError, ValueError) as exc:  # a symlink loop, a NUL byte
        raise OutsideWorkspace(f"{str(path)!r} cannot be resolved ({exc})") from None
    if not _within(root, target):
        raise OutsideWorkspace(f"{str(path)!r} resolves outside the workspace")
    return root, target


def _within(root: PurePath, target: PurePath) -> bool:
    """`target` is `root` or below it (both absolute and normalised)."""
    inside, top = str(target), str(root)
    return inside == top or inside.startswith(top if top.endswith("/") else top + "/")


@contextmanager
def open_file(
    workspace: Path, path: str | PurePath, *, author: bool = True, cap: int = MAX_READ_BYTES
) -> Iterator[BinaryIO]:
    """Open a confined regular file for binary reading, verified after the open.

    Raises:
        OutsideWorkspace: the path, or what was actually opened, is outside the workspace.
        FileNotFoundError: there is no such file.
        NotRegularFile: it is a directory, a FIFO, a device or a socket.
        OSError: it cannot be opened.
        CapExceeded: the file is larger than `cap` bytes.
    """
    root, target = _confined(workspace, path, author)
    fd = os.open(target, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if root is not None:
            _verify_opened(fd, root, target, info)
        if not stat.S_ISREG(info.st_mode):  # a FIFO or a device could hang or never end
            raise NotRegularFile(errno.EINVAL, "not a regular file", str(path))
        if info.st_size > cap:
            raise CapExceeded(
                f"{str(path)!r} is {info.st_size:,} bytes, over the {_mib(cap)} read cap"
            )
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def _verify_opened(fd: int, root: Path, target: Path, info: os.stat_result) -> None:
    """Check that the file behind `fd` is inside `root`, whatever was swapped meanwhile."""
    try:
        real = Path(os.readlink(f"/proc/self/fd/{fd}"))
    except OSError:  # no /proc (macOS): at least the inode must be the one we resolved
        again = os.stat(target)
        if (again.st_dev, again.st_ino) != (info.st_dev, info.st_ino):
            raise OutsideWorkspace(f"{target.name!r} changed while it was opened") from None
        return
    if not _within(root, real):
        raise OutsideWorkspace(f"{target.name!r} was swapped for a path outside the workspace")


def read_bytes(
    workspace: Path, path: str | PurePath, *, author: bool = True, cap: int = MAX_READ_BYTES
) -> bytes:
    """The bytes of a confined regular file, at most `cap` of them (see `open_file`)."""
    with open_file(workspace, path, author=author, cap=cap) as handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(min(size, cap) + 1)  # it may have grown since it was opened
    if len(data) > cap:
        raise CapExceeded(f"{str(path)!r} grew past the {_mib(cap)} read cap while being read")
    return data


def read_text(
    workspace: Path,
    path: str | PurePath,
    *,
    author: bool = True,
    cap: int = MAX_READ_BYTES,
    encoding: str = "utf-8",
    errors: str = "strict",
    newline: str | None = None,
) -> str:
    """The text of a confined regular file (see `read_bytes`); universal newlines by default.

    Raises:
        UnicodeDecodeError: the bytes are not valid in `encoding` (with `errors="strict"`).
    """
    text = read_bytes(workspace, path, author=author, cap=cap).decode(encoding, errors)
    if newline is None:
        return text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def check_shape(
    data: Any,
    what: str,
    *,
    max_depth: int = MAX_DEPTH,
    max_values: int = MAX_VALUES,
    max_chars: int = MAX_CHARS,
) -> None:
    """Refuse a parsed document that is too deep, holds too many values, or too much text.

    Values and text are counted as they would be expanded (each use of a shared or aliased
    object counts again, keys included), so a YAML alias bomb, one long string aliased many
    times, or a cycle is caught before anything renders it.

    Raises:
        CapExceeded: naming `what` and the cap.
    """
    stack: list[tuple[Any, int]] = [(data, 1)]
    seen = chars = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > max_values:
            raise CapExceeded(f"{what} holds more than {max_values:,} values (the cap)")
        if isinstance(item, dict):
            children: Any = [*item.keys(), *item.values()]
        elif isinstance(item, list | tuple):
            children = item
        else:
            chars += len(item) if isinstance(item, str | bytes) else 0
            if chars > max_chars:
                raise CapExceeded(
                    f"{what} holds more than {max_chars:,} characters once expanded "
                    f"(the cap; YAML aliases count each time they are used)"
                )
            continue
        if depth >= max_depth and children:
            raise CapExceeded(f"{what} is nested deeper than {max_depth} levels (the cap)")
        stack.extend((child, depth + 1) for child in children)


def loads_json(text: str | bytes, what: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """Parse untrusted JSON under the depth and size caps.

    Raises:
        ValueError: the text is not JSON.
        CapExceeded: the document is nested too deeply or holds too many values.
    """
    import json

    try:
        data = json.loads(text)
    except RecursionError:
        raise CapExceeded(f"{what} is nested deeper than {max_depth} levels (the cap)") from None
    # JSON has no aliases: a text shorter than the caps, with fewer brackets than the depth
    # cap, cannot break them (each value, key and character takes a character of the text)
    raw = text.encode() if isinstance(text, str) else text
    if len(raw) >= min(MAX_VALUES, MAX_CHARS) or raw.count(b"[") + raw.count(b"{") >= max_depth:
        check_shape(data, what, max_depth=max_depth)
    return data


def loads_yaml(
    text: str, what: str, *, max_depth: int = MAX_DEPTH, max_chars: int = MAX_CHARS
) -> Any:
    """Parse untrusted YAML (safe types only) under the depth and size caps.

    Aliases are allowed as long as the document, expanded, stays under the caps. libyaml's
    parser (when PyYAML has it) refuses nesting past 1,000 levels on its own, in C.

    Raises:
        yaml.YAMLError: the text is not YAML.
        CapExceeded: the document is nested too deeply or expands to too many values.
    """
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = yaml.load(text, Loader=loader)
    except RecursionError:
        raise CapExceeded(f"{what} is nested deeper than {max_depth} levels (the cap)") from None
    except yaml.YAMLError as exc:
        if "maximum nesting depth" not in str(exc):  # libyaml's own limit: a cap like ours
            raise
        raise CapExceeded(f"{what} is nested deeper than {max_depth} levels (the cap)") from None
    check_shape(data, what, max_depth=max_depth, max_chars=max_chars)
    return data


def walk_files(
    root: Path,
    *,
    max_entries: int = MAX_WALK_ENTRIES,
    max_depth: int = MAX_WALK_DEPTH,
    skip_hidden: bool = True,
) -> tuple[list[PurePosixPath], str | None]:
    """Every regular file (or symlink to one) under `root`, sorted, without recursion.

    Symlinked directories are not entered. Returns the relative paths and, when a cap cut
    the walk short, a sentence saying which cap (else None).
    """
    found: list[PurePosixPath] = []
    stack: list[tuple[Path, PurePosixPath, int]] = [(Path(root), PurePosixPath(), 0)]
    visited = 0
    cut: str | None = None
    while stack:
        directory, rel, depth = stack.pop()
        try:
            with os.scandir(directory) as entries:
                listed = sorted(entries, key=lambda e: e.name)
        except OSError:
            continue
        for entry in listed:
            if skip_hidden and entry.name.startswith("."):
                continue
            visited += 1
            if visited > max_entries:
                cut = f"the walk stopped at {max_entries:,} entries (the cap)"
                return sorted(found), cut
            child = rel / entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if depth + 1 >= max_depth:
                        cut = f"directories deeper than {max_depth} levels were skipped (the cap)"
                        continue
                    stack.append((Path(entry.path), child, depth + 1))
                elif entry.is_file(follow_symlinks=True):
                    found.append(child)
            except OSError:
                continue
    return sorted(found), cut
