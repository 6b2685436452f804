"""Eval cases: a directory of case directories, each turned into the record judges see.

A case directory holds `input.yaml`, an optional `annotations.yaml` and whatever the run
produced. The record has `case_id`, `case_path`, `inputs`, `annotations`, `files`
(`{relpath: text}`, binaries as a stub), `stdout`/`stderr` (from `stdout.log`/`stderr.log`),
`annotation_<key>_content` for annotations that name a file, and, when the run left them in
`run_result.json` / `tool_calls.json`, `exit_code`, `cost_usd`, `num_turns`, `duration_s`,
`token_usage`, `tool_calls`, and `conversation` (a list of messages) from `conversation.json`
or `messages.json`. Case content is untrusted: nothing outside the case directory is
read (symlinks that leave it are skipped), and sizes are capped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rewardkit._errors import ConfigError
from rewardkit.criteria._paths import OutsideWorkspace, inside

__all__ = ["case_dirs", "case_record"]

MAX_FILE_BYTES = 1 << 20
MAX_FILES = 2000
MAX_TOTAL_BYTES = 64 << 20
_CONFIG_FILES = ("input.yaml", "annotations.yaml")
_METRICS = ("exit_code", "cost_usd", "num_turns", "duration_s", "token_usage")


def case_dirs(root: Path) -> list[Path]:
    """The case directories under `root`, sorted; hidden ones are skipped."""
    if not root.is_dir():
        raise ConfigError(
            "cases directory not found. Set dataset.path in eval.yaml or pass --cases DIR.",
            path=root,
        )
    return sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def case_record(case_dir: Path, case_id: str | None = None) -> dict[str, Any]:
    """Build the record of one case.

    Raises:
        ConfigError: when `input.yaml` or `annotations.yaml` is not valid YAML (with its line).
    """
    annotations = _yaml_mapping(case_dir / "annotations.yaml")
    record: dict[str, Any] = {
        "case_id": case_id or case_dir.name,
        "case_path": str(case_dir),
        "inputs": _yaml_mapping(case_dir / "input.yaml"),
        "annotations": annotations,
        "files": _files(case_dir),
    }
    for stream in ("stdout", "stderr"):
        record[stream] = _read(case_dir, f"{stream}.log")
    for key, value in annotations.items():
        if isinstance(value, str) and len(value) < 256 and "\n" not in value:
            content = _read(case_dir, value)
            if content is not None:
                record[f"annotation_{key}_content"] = content
    metrics = _json(case_dir, "run_result.json")
    if isinstance(metrics, dict):
        record.update({k: metrics[k] for k in _METRICS if k in metrics})
    for name in ("conversation.json", "messages.json"):
        conversation = _json(case_dir, name)
        if isinstance(conversation, list):
            record["conversation"] = conversation
            break
    tool_calls = _json(case_dir, "tool_calls.json")
    if isinstance(tool_calls, list):
        record["tool_calls"] = tool_calls
    return record


def _yaml_mapping(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        problem = getattr(exc, "problem", exc)
        raise ConfigError(f"invalid YAML: {problem}", path=path, key=where) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"must be a mapping (got {type(data).__name__})", path=path)
    return data


def _files(case_dir: Path) -> dict[str, Any]:
    files: dict[str, Any] = {}
    budget = MAX_TOTAL_BYTES
    root = case_dir.resolve()
    for path in sorted(case_dir.rglob("*")):
        rel = path.relative_to(case_dir)
        if any(part.startswith(".") for part in rel.parts) or str(rel) in _CONFIG_FILES:
            continue
        if len(files) >= MAX_FILES:
            break
        try:
            real = inside(root, rel)
        except OutsideWorkspace:
            continue  # a symlink out of the case: never follow it
        if not real.is_file():
            continue
        size = real.stat().st_size
        files[rel.as_posix()] = _content(real, rel, too_big=size > min(MAX_FILE_BYTES, budget))
        budget -= size if isinstance(files[rel.as_posix()], str) else 0
    return files


def _content(path: Path, rel: Path, *, too_big: bool) -> Any:
    stub = {"_binary": True, "path": str(path), "name": rel.name}
    if too_big:
        return stub
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return stub
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return stub


def _read(case_dir: Path, rel: str) -> str | None:
    try:
        path = inside(case_dir, rel)
    except OutsideWorkspace:
        return None
    if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def _json(case_dir: Path, rel: str) -> Any:
    text = _read(case_dir, rel)
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None
