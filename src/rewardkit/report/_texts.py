"""Each listed case's input and output, for the page's case view.

Read after the statistics, for the cases the page lists (the first `MAX_CASES`), each text
capped (`INPUT_CHARS`, `OUTPUT_CHARS`), so memory stays flat in the number of cases:

- a results file: its rollouts (`--rollouts`, joined by `id`): the prompt (or the messages
  before the completion) and the completion;
- an eval run: the suite's case directories (`--eval`, and `--cases` as `rewardkit eval` took
  it): `input.yaml`, and the files and stdout the run left;
- a Harbor job: each trial's agent logs (`agent/*.txt`); the task's instruction is not there.

The texts are untrusted (the agent wrote them; the page escapes them). A file that cannot be
read is the run's problem; why a case has no input or output is said once, in `Run.missing`.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from rewardkit.core._errors import ConfigError, UntrustedInputError
from rewardkit.core._untrusted import open_file, walk_files
from rewardkit.report._fields import why_unreadable
from rewardkit.report._rollouts import completion_text, prompt_text, samples
from rewardkit.report._run import Case, Run, excerpt

__all__ = ["INPUT_CHARS", "OUTPUT_CHARS", "attach_texts"]

INPUT_CHARS = 2_000
OUTPUT_CHARS = 4_000
MAX_LOGS = 20
"""The most `agent/*.txt` logs read of one Harbor trial."""
MAX_LOG_BYTES = 16 << 20
Texts = dict[str, tuple[str | None, str | None, int]]
"""Case id → its input and output, and how much of the output was left unread (a trial's
logs are read only as far as the page shows them)."""


def attach_texts(
    run: Run, *, rollouts: Path | None = None, suite: Path | None = None, cases: Path | None = None
) -> None:
    """Give `run`'s listed cases their input and output where they can be read.

    Raises:
        ConfigError: `suite` is not a valid eval.yaml, or its cases directory is not found.
    """
    if run.kind == "results":
        texts = _rollouts(run, rollouts)
    elif run.kind == "eval":
        texts = _eval(run, suite, cases)
    else:
        texts = _harbor(run)
    run.cases[:] = [_with(case, *texts.get(case.id, (None, None, 0))) for case in run.cases]


def _with(case: Case, given: str | None, produced: str | None, unread: int) -> Case:
    output = None if not produced else excerpt(produced, OUTPUT_CHARS)
    if output is not None and unread:
        output = replace(output, more=output.more + unread)
    return replace(case, input=None if not given else excerpt(given, INPUT_CHARS), output=output)


def _rollouts(run: Run, path: Path | None) -> Texts:
    if path is None:
        hint = "a results file holds none; pass --rollouts with the rollouts it was scored from"
        run.missing = {"input": hint, "output": hint}
        return {}
    run.missing = {
        "input": f"no prompt for this id in {path}",
        "output": f"no completion for this id in {path}",
    }
    wanted = {case.id for case in run.cases}
    found: Texts = {}
    try:
        for key, sample in samples(path):
            if key in wanted and isinstance(sample, dict):
                found[key] = (prompt_text(sample), completion_text(sample), 0)
    except (OSError, UntrustedInputError):
        pass  # `rollout_lengths` reported it
    return found


def _eval(run: Run, suite_path: Path | None, cases: Path | None) -> Texts:
    if suite_path is None:
        hint = "summary.json holds none; pass --eval with the eval.yaml (and --cases as given to "
        run.missing = {"input": hint + "rewardkit eval)", "output": hint + "rewardkit eval)"}
        return {}
    from rewardkit.evalyaml._cases import case_record
    from rewardkit.evalyaml._runs import find_cases
    from rewardkit.evalyaml._suite import load_suite

    suite = load_suite(suite_path, untrusted=[cases] if cases is not None else [])
    run.name = suite.name
    root, names, layout = find_cases(suite, cases)
    run.missing = {
        "input": "no input.yaml for this case",
        "output": f"no case directory of this name in {root}",
    }
    found: Texts = {}
    for case in run.cases:
        if names.index(case.id) is None:
            continue
        try:
            record = case_record(root / case.id, case.id, layout)
        except (ConfigError, OSError, UntrustedInputError) as exc:
            run.problem(str(root / case.id), why_unreadable(exc))
            continue
        found[case.id] = (_given(record), _produced(record), 0)
    return found


def _given(record: dict[str, Any]) -> str:
    """The case's `input.yaml`, as YAML."""
    import yaml

    inputs = record.get("inputs")
    return yaml.safe_dump(inputs, sort_keys=False, allow_unicode=True) if inputs else ""


def _produced(record: dict[str, Any]) -> str:
    """The files the run left (as `### path` sections), then its stdout if not one of them."""
    from rewardkit.evalyaml._case_text import files_text

    text = files_text(record).strip("\n")
    stdout = record.get("stdout")
    if stdout and "stdout.log" not in (record.get("files") or {}):
        text += f"\n\n### stdout\n\n{stdout}"
    return text.strip("\n")


def _harbor(run: Run) -> Texts:
    run.missing = {
        "input": "a Harbor job directory holds no task instruction",
        "output": "no agent log (agent/*.txt) in the trial directory",
    }
    found: Texts = {}
    for case in run.cases:
        verifier = Path(case.source)
        trial = verifier.parent if verifier.name == "verifier" else verifier
        logs, unread = _agent_logs(trial / "agent", run)
        if logs:
            found[case.id] = (None, logs, unread)
    return found


def _agent_logs(directory: Path, run: Run) -> tuple[str, int]:
    """The trial's `agent/*.txt` logs, each as a `### name` section, read only as far as the
    page shows them (each character takes at most 4 bytes); and the bytes left unread."""
    if not directory.is_dir():
        return "", 0
    files, _ = walk_files(directory, max_entries=MAX_LOGS, max_depth=1)
    parts: list[str] = []
    wanted, unread = OUTPUT_CHARS * 4, 0
    for rel in files:
        if rel.suffix != ".txt":
            continue
        try:
            with open_file(directory, rel, author=False, cap=MAX_LOG_BYTES) as file:
                size = os.fstat(file.fileno()).st_size
                data = file.read(wanted)
        except (OSError, UntrustedInputError) as exc:
            run.problem(str(directory / rel), why_unreadable(exc))
            continue
        wanted -= len(data)
        unread += size - len(data)
        if data:
            parts.append(f"### {rel}\n\n{data.decode('utf-8', 'replace').strip(chr(10))}")
    return "\n\n".join(parts), unread
