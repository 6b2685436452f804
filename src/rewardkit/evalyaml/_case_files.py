"""Capped, confined reads of the files a case record is built from.

Every read goes through `rewardkit.core._untrusted`: confined to its directory and verified after
open, capped and streamed, JSON and YAML parsed under depth and size caps, the walk
iterative. A named file that leads out of its directory or is over a cap raises, naming the
file and the cap; an output file over `MAX_FILE_BYTES` is only a stub that says why.
"""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath
from typing import Any

from rewardkit.core._errors import ConfigError
from rewardkit.core._untrusted import (
    CapExceeded,
    OutsideWorkspace,
    confine,
    loads_json,
    loads_yaml,
    read_bytes,
    walk_files,
)

__all__ = [
    "MAX_DATA_BYTES",
    "MAX_EXPANDED_CHARS",
    "MAX_FILE_BYTES",
    "MAX_TOTAL_BYTES",
    "MAX_YAML_BYTES",
    "Budget",
    "json_file",
    "named",
    "output_files",
    "yaml_mapping",
]

MAX_FILE_BYTES = 1 << 20
"""An output file larger than this (1 MiB) is a stub in `files`."""
MAX_TOTAL_BYTES = 64 << 20
"""The most bytes of output files one record holds (64 MiB); later files are stubs."""
MAX_DATA_BYTES = 16 << 20
"""The cap on each named file (`input.yaml`, `stdout.log`, `run_result.json`, ...): 16 MiB."""
MAX_YAML_BYTES = 128 << 10
"""The cap on `input.yaml` and `annotations.yaml` (128 KiB): YAML parses at about 40 kB/s."""
MAX_EXPANDED_CHARS = 16 << 20
"""The most characters a YAML file may hold once its aliases are expanded."""

_TOTAL_NOTE = f"the case's output files reached the {MAX_TOTAL_BYTES >> 20} MiB total cap"


def named(directory: Path, name: str, cap: int = MAX_DATA_BYTES) -> bytes | None:
    """The bytes of a file the record names (None when absent), capped and confined."""
    if ".." not in name.split("/") and not os.path.isabs(name):
        try:  # most named files are absent: say so before the confined open resolves the path
            os.lstat(directory / name)
        except (FileNotFoundError, NotADirectoryError):
            return None
    try:
        return read_bytes(directory, name, author=False, cap=cap)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except OutsideWorkspace:
        raise OutsideWorkspace(
            f"{directory / name}: leads outside {directory} (through a symlink or '..'), "
            f"so it is not read; make it a regular file inside that directory"
        ) from None
    except CapExceeded as exc:
        raise CapExceeded(f"{directory / name}: {exc}") from None


def yaml_mapping(directory: Path, name: str) -> dict[str, Any] | None:
    """The YAML mapping in `directory/name` (None when absent), under the YAML caps.

    Raises:
        ConfigError: the file is not valid YAML (with its line) or not a mapping.
    """
    import yaml

    data = named(directory, name, MAX_YAML_BYTES)
    if data is None:
        return None
    path = directory / name
    try:
        text = data.decode("utf-8", "replace")
        parsed = loads_yaml(text, str(path), max_chars=MAX_EXPANDED_CHARS)
    except CapExceeded:
        raise
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        problem = getattr(exc, "problem", exc)
        raise ConfigError(f"invalid YAML: {problem}", path=path, key=where) from None
    except ValueError as exc:  # a value the constructor refuses, e.g. a 5,000-digit int
        raise ConfigError(f"invalid YAML: {exc}", path=path) from None
    if parsed is None:
        return {}
    if not isinstance(parsed, dict):
        raise ConfigError(f"must be a mapping (got {type(parsed).__name__})", path=path)
    return parsed


def json_file(directory: Path, name: str) -> Any:
    """The parsed file (None when absent or not JSON), under the depth and size caps."""
    data = named(directory, name)
    if data is None:
        return None
    try:
        return loads_json(data, str(directory / name))
    except CapExceeded:
        raise
    except ValueError:
        return None


class Budget:
    """The bytes of output files a record may still hold (`MAX_TOTAL_BYTES` in all)."""

    def __init__(self) -> None:
        self.left = MAX_TOTAL_BYTES


def output_files(
    directory: Path, under: str = "", *, skip: frozenset[str] = frozenset(), budget: Budget
) -> dict[str, Any]:
    """`{relpath: text or stub}` for the files of `directory/under` (relpaths from
    `directory`); nothing when `under` is absent or leads out of `directory`.

    Raises:
        CapExceeded: the walk hit a cap.
    """
    try:
        root = confine(directory, under, author=False) if under else directory
    except OutsideWorkspace:
        return {}  # a symlinked output directory leading out of the case: never followed
    base = PurePosixPath(under).as_posix() if under else ""
    if root.is_file():
        rels = [base]
    elif root.is_dir():
        walked, cut = walk_files(root)
        if cut is not None:
            raise CapExceeded(f"{root}: {cut}; the case's files were not read")
        rels = [f"{base}/{r.as_posix()}" if base else r.as_posix() for r in walked]
    else:
        return {}
    files: dict[str, Any] = {}
    for rel in rels:
        if rel in skip:
            continue
        try:
            files[rel], size = _content(directory, rel, budget.left)
        except OutsideWorkspace:
            continue  # a symlink out of the directory: never followed
        budget.left -= size
    return files


def _content(directory: Path, rel: str, budget: int) -> tuple[Any, int]:
    """The text of one output file, or a stub (binary, over a cap, unreadable); its size."""
    stub = {"_binary": True, "path": str(directory / rel), "name": rel.rsplit("/", 1)[-1]}
    if budget <= 0:
        return stub | {"_skipped": f"{_TOTAL_NOTE} before {rel} was read"}, 0
    try:
        data = read_bytes(directory, rel, author=False, cap=min(MAX_FILE_BYTES, budget))
    except CapExceeded as exc:
        note = str(exc) if budget >= MAX_FILE_BYTES else f"{_TOTAL_NOTE} at {rel}"
        return stub | {"_skipped": note}, 0
    except OSError as exc:
        return stub | {"_skipped": f"{rel} could not be read ({type(exc).__name__})"}, 0
    if b"\0" in data[:8192]:
        return stub, 0
    try:
        return data.decode("utf-8"), len(data)
    except UnicodeDecodeError:
        return stub, 0
