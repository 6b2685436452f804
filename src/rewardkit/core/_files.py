"""Write files so that a reader never sees a half-written one, and nothing planted at the
output path (a symlink, a directory, a file) is ever followed or written through."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

__all__ = ["atomic_write", "atomic_writer", "remove_output"]


def atomic_write(path: Path, text: str) -> None:
    """Write `text` to `path` atomically (see `atomic_writer`)."""
    with atomic_writer(path) as handle:
        handle.write(text)


@contextmanager
def atomic_writer(path: Path) -> Iterator[TextIO]:
    """A text handle on a new temporary file beside `path`, renamed over `path` on exit.

    The temporary file is created exclusively (`mkstemp`), and the rename replaces `path`
    itself: a symlink there is replaced, never followed; a directory is removed first. When
    the block raises, `path` is left as it was.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
            os.fchmod(handle.fileno(), 0o644)  # mkstemp makes 0600; Harbor may read as another user
        if path.is_dir() and not path.is_symlink():  # a file cannot be renamed over one
            remove_output(path)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_output(path: Path) -> None:
    """Remove what is at `path`, if anything: a symlink itself (never its target), a file, or
    a directory with everything in it (`rmtree` follows no symlink inside)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
