"""Built-in criteria on workspace files: existence, content, similarity.

Paths are the task author's (see `rewardkit.core._untrusted.confine`): a relative path, or an
absolute one inside the workspace, never leads out of it through `..` or a symlink (that
scores 0 with a warning); an absolute path elsewhere (`/logs/verifier/reply.txt`) is read as
written. Reads are capped (`MAX_READ_BYTES`; a larger file is an error outcome naming the
cap) and verified after the open. The private helpers here (`_confine`, `_opened`,
`_read_text`, `_warn_unreadable`) are shared with the other built-in families.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import BinaryIO

from rewardkit.core._untrusted import (
    NotRegularFile,
    OutsideWorkspace,
    confine,
    open_file,
    read_text,
)
from rewardkit.criteria._paths import warn_outside
from rewardkit.criteria._registry import builtin

__all__ = [
    "diff_ratio",
    "file_contains",
    "file_contains_regex",
    "file_exists",
    "file_matches",
    "file_not_exists",
    "files_equal",
]


def _confine(crit: str, workspace: Path, path: str) -> Path | None:
    """Resolve `path` for reading, or warn and return None if it leaves the workspace."""
    try:
        return confine(workspace, path)
    except OutsideWorkspace as exc:
        warn_outside(crit, exc)
        return None


def _warn_unreadable(crit: str, path: str, reason: BaseException | str) -> None:
    """Warn that `path` could not be read, so the criterion scores 0."""
    if isinstance(reason, FileNotFoundError):
        msg = f"{crit}: '{path}' not found in workspace, assigning reward 0"
    else:
        why = type(reason).__name__ if isinstance(reason, BaseException) else reason
        if isinstance(reason, NotRegularFile):
            why = "not a regular file"
        msg = f"{crit}: '{path}' could not be read ({why}), assigning reward 0"
    warnings.warn(msg, UserWarning, stacklevel=3)


@contextmanager
def _opened(crit: str, workspace: Path, path: str) -> Iterator[BinaryIO | None]:
    """A verified handle on a confined regular file, or None after a warning.

    Directories, FIFOs and devices are refused up front so that reading cannot hang; a file
    over the read cap raises `CapExceeded` (an error outcome that names the cap).
    """
    with ExitStack() as stack:
        handle: BinaryIO | None = None
        try:
            handle = stack.enter_context(open_file(workspace, path))
        except OutsideWorkspace as exc:
            warn_outside(crit, exc)
        except OSError as exc:
            _warn_unreadable(crit, path, exc)
        yield handle


def _read_text(
    crit: str, workspace: Path, path: str, *, encoding: str = "utf-8", newline: str | None = None
) -> str | None:
    """Return the text of a confined regular file, or warn and return None."""
    try:
        return read_text(workspace, path, encoding=encoding, newline=newline)
    except OutsideWorkspace as exc:
        warn_outside(crit, exc)
    except (OSError, UnicodeDecodeError) as exc:
        _warn_unreadable(crit, path, exc)
    return None


@builtin("Check that {path} exists in the workspace")
def file_exists(workspace: Path, path: str) -> bool:
    """True if `path` (a file or a directory) exists in the workspace."""
    target = _confine("file_exists", workspace, path)
    return target is not None and target.exists()


@builtin("Check that {path} does NOT exist in the workspace")
def file_not_exists(workspace: Path, path: str) -> bool:
    """True if `path` does not exist in the workspace; False for a path outside it."""
    target = _confine("file_not_exists", workspace, path)
    return target is not None and not target.exists()


@builtin("Check that {path} contains the text '{text}'")
def file_contains(workspace: Path, path: str, text: str) -> bool:
    """True if the file's text contains `text`."""
    content = _read_text("file_contains", workspace, path)
    return content is not None and text in content


@builtin("Check that {path} contains text matching regex '{pattern}'")
def file_contains_regex(workspace: Path, path: str, pattern: str) -> bool:
    """True if `re.search(pattern)` finds a match in the file's text."""
    import re

    content = _read_text("file_contains_regex", workspace, path)
    return content is not None and re.search(pattern, content) is not None


@builtin("Check that the content of {path} exactly matches the expected string")
def file_matches(workspace: Path, path: str, expected: str) -> bool:
    """True if the file's text equals `expected`, both stripped."""
    content = _read_text("file_matches", workspace, path)
    return content is not None and content.strip() == expected.strip()


@builtin("Check that {path1} and {path2} have equal content")
def files_equal(workspace: Path, path1: str, path2: str) -> bool:
    """True if both files' texts are equal once stripped."""
    first = _read_text("files_equal", workspace, path1)
    if first is None:
        return False
    second = _read_text("files_equal", workspace, path2)
    return second is not None and first.strip() == second.strip()


@builtin("Similarity ratio for {path}")
def diff_ratio(workspace: Path, path: str, expected: str) -> float:
    """The `difflib.SequenceMatcher` ratio between the stripped file text and `expected`."""
    from difflib import SequenceMatcher

    content = _read_text("diff_ratio", workspace, path)
    if content is None:
        return 0.0
    return SequenceMatcher(None, content.strip(), expected.strip()).ratio()
