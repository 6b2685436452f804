"""Eval cases: a directory of case directories, each turned into the record judges see.

A record has two halves. What the run *produced* (`produced`): `files` (`{relpath: text}`,
binaries and skipped files as a stub) and `stdout`/`stderr` (from `stdout.log`/`stderr.log`).
What the case is *given* (`given`): `inputs` and `annotations` (`input.yaml`,
`annotations.yaml`), `annotation_<key>_content` for an annotation that names a file, and run
metadata: `exit_code`, `cost_usd`, `num_turns`, `duration_s`, `token_usage` (from
`run_result.json`), `tool_calls` (`tool_calls.json`) and `conversation` (`conversation.json`
or `messages.json`). An eval case holds both halves in its directory; the Harbor bridge reads
the given half from the trusted tests directory only (see docs/eval-yaml.md).

Everything is read through `rewardkit._untrusted`: confined to its directory and verified
after open, capped and streamed, JSON and YAML parsed under depth and size caps, the walk
iterative. A named file that leads out of its directory or is over a cap raises, naming the
file and the cap; an output file over `MAX_FILE_BYTES` is only a stub that says why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit._untrusted import (
    CapExceeded,
    OutsideWorkspace,
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
    "case_dirs",
    "case_record",
    "given",
    "produced",
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

GIVEN_FILES = ("input.yaml", "annotations.yaml")
_METRICS = ("exit_code", "cost_usd", "num_turns", "duration_s", "token_usage")
_DATA_MIB = f"{MAX_DATA_BYTES >> 20} MiB"
_TOTAL_NOTE = f"the case's output files reached the {MAX_TOTAL_BYTES >> 20} MiB total cap"


def case_dirs(root: Path) -> list[Path]:
    """The case directories under `root`, sorted; hidden ones are skipped."""
    if not root.is_dir():
        raise ConfigError(
            "cases directory not found. Set dataset.path in eval.yaml or pass --cases DIR.",
            path=root,
        )
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def case_record(case_dir: Path, case_id: str | None = None) -> dict[str, Any]:
    """Build the record of one eval case: both halves from its directory.

    Raises:
        ConfigError: `input.yaml` or `annotations.yaml` is not valid YAML (with its line).
        UntrustedInputError: a named file leads out of the case or is over a cap.
    """
    record: dict[str, Any] = {"case_id": case_id or case_dir.name, "case_path": str(case_dir)}
    return record | produced(case_dir, skip=GIVEN_FILES) | given(case_dir)


def produced(directory: Path, *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """`files`, `stdout` and `stderr`: what the run left in `directory` (`skip`: not files).

    Raises:
        CapExceeded: the walk hit a cap, or a log is over `MAX_DATA_BYTES`.
        OutsideWorkspace: a log leads out of `directory`.
    """
    record: dict[str, Any] = {"files": _files(directory, skip)}
    for stream in ("stdout", "stderr"):
        data = _named(directory, f"{stream}.log")
        record[stream] = None if data is None else data.decode("utf-8", "replace")
    return record


def given(directory: Path) -> dict[str, Any]:
    """`inputs`, `annotations`, annotation contents and run metadata found in `directory`.

    Raises:
        ConfigError: `input.yaml` or `annotations.yaml` is not a valid YAML mapping.
        UntrustedInputError: a named file leads out of `directory` or is over a cap.
    """
    annotations = _yaml_mapping(directory, "annotations.yaml")
    return {
        "inputs": _yaml_mapping(directory, "input.yaml"),
        "annotations": annotations,
        **_annotation_contents(directory, annotations),
        **_metadata(directory),
    }


def _metadata(directory: Path) -> dict[str, Any]:
    """Run metadata: `run_result.json` keys, `conversation`, `tool_calls` (when present)."""
    record: dict[str, Any] = {}
    metrics = _json(directory, "run_result.json")
    if isinstance(metrics, dict):
        record.update({k: metrics[k] for k in _METRICS if k in metrics})
    for name in ("conversation.json", "messages.json"):
        conversation = _json(directory, name)
        if isinstance(conversation, list):
            record["conversation"] = conversation
            break
    tool_calls = _json(directory, "tool_calls.json")
    if isinstance(tool_calls, list):
        record["tool_calls"] = tool_calls
    return record


def _named(directory: Path, name: str, cap: int = MAX_DATA_BYTES) -> bytes | None:
    """The bytes of a file the record names (None when absent), capped and confined."""
    try:
        return read_bytes(directory, name, author=False, cap=cap)
    except (FileNotFoundError, IsADirectoryError):
        return None
    except OutsideWorkspace:
        raise OutsideWorkspace(
            f"{directory / name}: leads outside {directory} (through a symlink or '..'), "
            f"so it is not read; make it a regular file inside that directory"
        ) from None
    except CapExceeded as exc:
        raise CapExceeded(f"{directory / name}: {exc}") from None


def _yaml_mapping(directory: Path, name: str) -> dict[str, Any]:
    import yaml

    data = _named(directory, name, MAX_YAML_BYTES)
    if data is None:
        return {}
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


def _annotation_contents(directory: Path, annotations: dict[str, Any]) -> dict[str, str]:
    """`annotation_<key>_content` for each annotation naming a file in `directory`; all of
    them together at most `MAX_DATA_BYTES`."""
    contents: dict[str, str] = {}
    left = MAX_DATA_BYTES
    for key, value in annotations.items():
        if not isinstance(value, str) or not value or len(value) >= 256 or "\n" in value:
            continue
        try:
            data = read_bytes(directory, value, author=False, cap=left)
        except CapExceeded as exc:
            why = (
                exc
                if left == MAX_DATA_BYTES
                else f"the files annotations name are over {_DATA_MIB} in all (the cap)"
            )
            raise CapExceeded(f"{directory / value}: {why}") from None
        except (OSError, OutsideWorkspace):
            continue  # not a file in the directory: the annotation is just a value
        contents[f"annotation_{key}_content"] = data.decode("utf-8", "replace")
        left -= len(data)
    return contents


def _json(directory: Path, name: str) -> Any:
    """The parsed file (None when absent or not JSON), under the depth and size caps."""
    data = _named(directory, name)
    if data is None:
        return None
    try:
        return loads_json(data, str(directory / name))
    except CapExceeded:
        raise
    except ValueError:
        return None


def _files(directory: Path, skip: tuple[str, ...]) -> dict[str, Any]:
    found, cut = walk_files(directory)
    if cut is not None:
        raise CapExceeded(f"{directory}: {cut}; the case's files were not read")
    files: dict[str, Any] = {}
    budget = MAX_TOTAL_BYTES
    for rel in (r.as_posix() for r in found):
        if rel in skip:
            continue
        try:
            files[rel], size = _content(directory, rel, budget)
        except OutsideWorkspace:
            continue  # a symlink out of the directory: never followed
        budget -= size
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
