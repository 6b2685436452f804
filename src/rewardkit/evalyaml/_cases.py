"""Eval cases: a directory of case directories, each turned into the record judges see.

The record is the harness's (its keys: docs/eval-yaml.md) and has two halves. What the run
*produced* comes from the case directory: `files`, `<output>_content`/`<output>_file`,
`modified_files`, `stdout`/`stderr`, `events`, `conversation`, `tool_calls` and the run
metadata (`exit_code`, `cost_usd`, ...). What the case is *given* — `inputs` (the `input.yaml`
mapping; prompts print it as the harness's text), `annotations` and
`annotation_<key>_content` — comes from the dataset case (`Layout.dataset`)
when the cases are a harness run's, else from the case directory itself (the merged layout).
In a run, files the run writes at its root (`run_result.json`, batch-mode `stdout.log`,
`events.json`) fill in what the case directory lacks. The Harbor bridge reads the given
half from the trusted tests directory only (see docs/eval-yaml.md).

A multi-step run (`execution.steps`) also has `steps`: for each declared step the run reached,
its own sub-record, read from `<case>/steps/<id>/` (the step's `stdout.log`, `stderr.log`,
`events` parsed from its transcript) and its metrics (the case's `steps` entry of
`run_result.json`). `step_record` is what a judge with `step: <id>` sees: the case record with
the step's run data in place of the whole case's; the files stay the case's (the steps share
one workspace).

Every read is capped and confined (`rewardkit.evalyaml._case_files`).

Over 350 lines: the record's two halves, each key read as the harness reads it (the capped file
reads themselves are `_case_files`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rewardkit.core._untrusted import CapExceeded, OutsideWorkspace, confine, read_bytes
from rewardkit.evalyaml._case_files import (
    MAX_DATA_BYTES,
    Budget,
    json_file,
    named,
    output_files,
    yaml_mapping,
)
from rewardkit.evalyaml._case_text import conversation
from rewardkit.evalyaml._events import stream_events

__all__ = [
    "MERGED",
    "Layout",
    "case_record",
    "given",
    "produced",
    "run_result",
    "step_record",
]

GIVEN_FILES = ("input.yaml", "annotations.yaml")
METRICS = ("exit_code", "cost_usd", "num_turns", "duration_s", "token_usage")
STEP_KEYS = ("stdout", "stderr", "events", "conversation", "tool_calls", *METRICS)
"""The keys of the record a step's sub-record stands in for (the run data of one step)."""
MODIFIED = "_modified"
_NOT_EDITS = (".work", "subagents", "hooks")
"""Harness scaffolding under `_modified/`, never shown as the agent's edits."""
_DATA_MIB = f"{MAX_DATA_BYTES >> 20} MiB"


@dataclass(frozen=True, kw_only=True)
class Layout:
    """Where the parts of a case record live, besides the case directory."""

    dataset: Path | None = None
    """The dataset directory whose `<case>/` holds `input.yaml` and `annotations.yaml`, when
    the cases are kept apart from it (a harness run); None: the case directory holds them."""
    run: Path | None = None
    """The harness run directory holding `cases/`: its `run_result.json`, and the logs and
    `events.json` of a batch-mode run."""
    outputs: tuple[str, ...] = ()
    """eval.yaml's `outputs[].path`: when any, `files` holds only these and `_modified/`."""
    tools: tuple[str, ...] = ()
    """eval.yaml's `outputs[].tool`: `tool_calls` lists the matching calls in `events`."""
    traces: frozenset[str] = frozenset(("stdout", "stderr", "events", "metrics"))
    """eval.yaml's `traces:`: the run data loaded into the record (a part left out is absent,
    as if the run had not captured it)."""
    steps: tuple[str, ...] = ()
    """eval.yaml's `execution.steps` ids: each reached step's sub-record is read into
    `steps` (only declared ids are read, so the agent cannot add more)."""


MERGED = Layout()
"""The merged layout: each case directory holds both halves of its record."""


def case_record(
    case_dir: Path, case_id: str | None = None, layout: Layout = MERGED
) -> dict[str, Any]:
    """Build the record of one eval case (see the module docstring).

    Raises:
        ConfigError: `input.yaml` or `annotations.yaml` is not valid YAML (with its line).
        UntrustedInputError: a named file leads out of its directory or is over a cap.
    """
    case_id = case_id or case_dir.name
    source = layout.dataset / case_id if layout.dataset is not None else case_dir
    truth = _truth(source)
    skip: frozenset[str] = frozenset()
    if layout.dataset is None:  # the given half sits beside the outputs: never an output
        skip = frozenset(GIVEN_FILES).union(_named_by(truth))
    record: dict[str, Any] = {
        "case_id": case_id,
        "case_path": str(case_dir),
        "case_dir": str(case_dir.resolve()),
        **_outputs(case_dir, layout, skip),
    }
    for stream in ("stdout", "stderr"):
        data = _logged(case_dir, layout.run, f"{stream}.log") if stream in layout.traces else None
        record[stream] = None if data is None else data.decode("utf-8", "replace")
    hooks = yaml_mapping(case_dir, "hook_outputs.yaml")
    if hooks is not None:
        record["hook_outputs"] = hooks
    metrics = _case_metrics(case_dir, case_id, layout)
    record |= _metadata(case_dir, layout, record["stdout"], metrics)
    if layout.steps:
        record["steps"] = _steps(case_dir, layout, metrics.get("steps"))
    return record | truth


def step_record(record: Mapping[str, Any], step: str) -> dict[str, Any] | None:
    """What a judge with `step: <step>` sees: `record` with the step's run data (`STEP_KEYS`:
    its logs, events, conversation, tool calls, metrics) in place of the whole case's, and
    `_scoped_step` naming it. None when the case has no such step (the run stopped before it,
    or is not a multi-step run)."""
    steps = record.get("steps")
    sub = steps.get(step) if isinstance(steps, Mapping) else None
    if not isinstance(sub, Mapping):
        return None
    shared = {k: v for k, v in record.items() if k not in STEP_KEYS}
    return {**shared, **sub, "_scoped_step": step}


def produced(directory: Path, *, skip: tuple[str, ...] = ()) -> dict[str, Any]:
    """`files`, `stdout` and `stderr`: what the run left in `directory` (`skip`: not files).

    Raises:
        CapExceeded: the walk hit a cap, or a log is over `MAX_DATA_BYTES`.
        OutsideWorkspace: a log leads out of `directory`.
    """
    record: dict[str, Any] = {
        "files": output_files(directory, skip=frozenset(skip), budget=Budget())
    }
    for stream in ("stdout", "stderr"):
        data = named(directory, f"{stream}.log")
        record[stream] = None if data is None else data.decode("utf-8", "replace")
    return record


def given(directory: Path) -> dict[str, Any]:
    """What the case is given and its run metadata, all from `directory` (the bridge's).

    Raises:
        ConfigError: `input.yaml` or `annotations.yaml` is not a valid YAML mapping.
        UntrustedInputError: a named file leads out of `directory` or is over a cap.
    """
    record = _truth(directory)
    metrics = json_file(directory, "run_result.json")
    if isinstance(metrics, dict):
        record.update({k: metrics[k] for k in METRICS if metrics.get(k) is not None})
    record |= _listed(directory)
    return record


def run_result(run: Path) -> dict[str, Any] | None:
    """The run's `run_result.json` (None when absent or not a JSON object)."""
    data = json_file(run, "run_result.json")
    return data if isinstance(data, dict) else None


def _truth(directory: Path) -> dict[str, Any]:
    """`inputs` (`input.yaml`), `annotations` and annotation contents."""
    annotations = yaml_mapping(directory, "annotations.yaml") or {}
    return {
        "inputs": yaml_mapping(directory, "input.yaml") or {},
        "annotations": annotations,
        **_annotation_contents(directory, annotations),
    }


def _outputs(case_dir: Path, layout: Layout, skip: frozenset[str]) -> dict[str, Any]:
    """`files` (the declared outputs and `_modified/`, else every file), the convenience
    keys of each declared output and `modified_files`."""
    budget = Budget()
    record: dict[str, Any] = {}
    if layout.outputs:
        files: dict[str, Any] = {}
        for path in layout.outputs:
            found = output_files(case_dir, path, budget=budget)
            files |= found
            first = next(
                (r for r in sorted(found) if _top_level(r, path) and _text(found[r])), None
            )
            if first is not None:
                key = Path(path).name
                record[f"{key}_content"] = found[first]
                record[f"{key}_file"] = str(case_dir / first)
        files |= output_files(case_dir, MODIFIED, budget=budget)
    else:
        files = output_files(case_dir, skip=skip, budget=budget)
    record["files"] = {rel: c for rel, c in files.items() if not _scaffolding(rel)}
    edits = {
        rel[len(MODIFIED) + 1 :]: c
        for rel, c in record["files"].items()
        if rel.startswith(MODIFIED + "/") and _text(c)
    }
    if edits:
        record["modified_files"] = edits
    return record


def _scaffolding(rel: str) -> bool:
    """Whether `rel` is harness scaffolding under `_modified/`, not an edit of the agent's."""
    return rel.startswith(MODIFIED + "/") and rel[len(MODIFIED) + 1 :].startswith(_NOT_EDITS)


def _top_level(rel: str, path: str) -> bool:
    """Whether `rel` is directly inside the output `path` (or is that file)."""
    base = Path(path).as_posix()
    return rel == base or (rel.startswith(base + "/") and "/" not in rel[len(base) + 1 :])


def _text(content: Any) -> bool:
    return isinstance(content, str)


def _case_metrics(case_dir: Path, case_id: str, layout: Layout) -> dict[str, Any]:
    """The case's entry of the run's `run_result.json` (`per_case`; the run's totals stand in
    for a metric it lacks), else, in the merged layout, the case's own `run_result.json`."""
    if layout.run is None:
        own = json_file(case_dir, "run_result.json")
        return own if isinstance(own, dict) else {}
    meta = run_result(layout.run)  # the harness writes it at the run's root only
    if meta is None:
        return {}
    per_case = meta.get("per_case")
    mine = per_case.get(case_id) if isinstance(per_case, dict) else None
    mine = mine if isinstance(mine, dict) else {}
    return {k: mine.get(k, meta.get(k)) for k in METRICS} | {"steps": mine.get("steps")}


def _metadata(
    case_dir: Path, layout: Layout, stdout: str | None, metrics: Mapping[str, Any]
) -> dict[str, Any]:
    """Run metrics (`_case_metrics`), `events` (the case's, else the run's), `conversation`
    and `tool_calls`."""
    record: dict[str, Any] = {}
    if "metrics" in layout.traces:
        record.update({k: metrics[k] for k in METRICS if metrics.get(k) is not None})
    events = _events(case_dir, layout.run) if "events" in layout.traces else []
    record["events"] = events
    listed = _listed(case_dir)
    if "conversation" not in listed:
        listed["conversation"] = conversation({"events": events, "stdout": stdout})
    if "tool_calls" not in listed and events and layout.tools:
        listed["tool_calls"] = _calls(events, layout.tools)
    return record | listed


def _steps(case_dir: Path, layout: Layout, metrics: Any) -> dict[str, dict[str, Any]]:
    """The sub-record of each declared step that has a `steps/<id>/` directory (the harness
    makes one for every step it ran); `metrics` is the case's `steps` entry of
    `run_result.json`.

    Raises:
        OutsideWorkspace: a step's directory leads out of the case.
    """
    found: dict[str, dict[str, Any]] = {}
    for step in layout.steps:
        rel = f"steps/{step}"
        try:
            where = confine(case_dir, rel, author=False)
        except OutsideWorkspace:
            raise OutsideWorkspace(
                f"{case_dir / rel}: leads outside {case_dir} (through a symlink), so it is not "
                f"read; make it a directory inside the case"
            ) from None
        if where.is_dir():
            mine = metrics.get(step) if isinstance(metrics, dict) else None
            found[step] = _step(case_dir, rel, layout, mine if isinstance(mine, dict) else {})
    return found


def _step(case_dir: Path, rel: str, layout: Layout, metrics: Mapping[str, Any]) -> dict[str, Any]:
    """One step's run data, read from `case_dir/rel` as the case's own is, under the same
    caps: logs, `events` (its `events.json`, else its stream-json `stdout.log`, parsed as
    the harness does), `conversation`, `tool_calls` and metrics."""
    needed = {"stdout": "stdout" in layout.traces or "events" in layout.traces}
    needed["stderr"] = "stderr" in layout.traces
    logs = {s: named(case_dir, f"{rel}/{s}.log") if read else None for s, read in needed.items()}
    text = {s: None if d is None else d.decode("utf-8", "replace") for s, d in logs.items()}
    sub: dict[str, Any] = {s: text[s] if s in layout.traces else None for s in text}
    events: list[Any] = []
    if "events" in layout.traces:
        data = json_file(case_dir, f"{rel}/events.json")
        if isinstance(data, list):
            events = data
        elif data is None and text["stdout"]:
            events = stream_events(text["stdout"], str(case_dir / rel / "stdout.log"))
    sub["events"] = events
    sub["conversation"] = conversation({"events": events, "stdout": sub["stdout"]})
    if events and layout.tools:
        sub["tool_calls"] = _calls(events, layout.tools)
    if "metrics" in layout.traces:
        sub.update({k: metrics[k] for k in METRICS if metrics.get(k) is not None})
    return sub


def _events(case_dir: Path, run: Path | None) -> list[Any]:
    """`events.json`, else a Harbor pod's raw `events.jsonl` (stream-json, parsed): the
    case's, else (batch mode) the run's; [] when absent or no list."""
    for directory in (case_dir, run):
        if directory is None:
            continue
        data = json_file(directory, "events.json")
        if data is not None:
            return data if isinstance(data, list) else []
        raw = named(directory, "events.jsonl")
        if raw is not None:
            what = str(directory / "events.jsonl")
            return stream_events(raw.decode("utf-8", "replace"), what)
    return []


def _calls(events: list[Any], tools: tuple[str, ...]) -> list[dict[str, Any]]:
    """`{name, input}` of each root-agent tool call in `events` matching a declared tool."""
    calls = []
    for event in events:
        if not isinstance(event, dict) or event.get("type") != "assistant":
            continue
        if event.get("parent_tool_use_id") or not isinstance(event.get("tools"), list):
            continue
        for tool in event["tools"]:
            name = str(tool.get("name", "")) if isinstance(tool, dict) else ""
            if name and any(pattern in name for pattern in tools):
                calls.append({"name": name, "input": tool.get("input", {})})
    return calls


def _listed(directory: Path) -> dict[str, Any]:
    """`conversation` (`conversation.json` or `messages.json`) and `tool_calls`
    (`tool_calls.json`), each a JSON list, when `directory` has them."""
    record: dict[str, Any] = {}
    for name in ("conversation.json", "messages.json"):
        conversation = json_file(directory, name)
        if isinstance(conversation, list):
            record["conversation"] = conversation
            break
    tool_calls = json_file(directory, "tool_calls.json")
    if isinstance(tool_calls, list):
        record["tool_calls"] = tool_calls
    return record


def _logged(case_dir: Path, run: Path | None, name: str) -> bytes | None:
    """A log of the case, else (batch mode) of the run."""
    data = named(case_dir, name)
    if data is None and run is not None:
        data = named(run, name)
    return data


def _named_by(truth: dict[str, Any]) -> set[str]:
    """The files annotations name (ground truth read into `annotation_<key>_content`)."""
    annotations = truth["annotations"]
    return {v for k, v in annotations.items() if f"annotation_{k}_content" in truth}


def _annotation_contents(directory: Path, annotations: dict[str, Any]) -> dict[str, str]:
    """`annotation_<key>_content` for each annotation naming a file in `directory`; all of
    them together at most `MAX_DATA_BYTES`."""
    contents: dict[str, str] = {}
    left = MAX_DATA_BYTES
    for key, value in annotations.items():
        if not isinstance(value, str) or not value or len(value) >= 256 or "\n" in value:
            continue
        if value != value.strip():
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
