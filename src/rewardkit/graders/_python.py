"""`python`: the grader's `source` defines `grade(sample, item) -> float`; it runs in the jail.

The source is the grader author's, but it reads untrusted sample data, so it runs as a
jailed program (`rewardkit.jail`), never in our process: no network, no file outside
its cell, a memory cap, and a deadline that ends it. `sample` and `item` enter as JSON.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from rewardkit.core._errors import ConfigError
from rewardkit.graders._graded import Graded, threshold_note
from rewardkit.graders._input import GraderInput

__all__ = ["MEMORY_MB", "TIMEOUT", "PythonGrader", "start_jail"]

TIMEOUT = 30.0
"""The default deadline of one `grade` call, in seconds (the grader's `timeout` sets it)."""
MEMORY_MB = 512
_HARNESS = Path(__file__).with_name("_jailed.py")


@dataclass(frozen=True, kw_only=True)
class PythonGrader:
    """What `grade(sample, item)` returns, run in the jail under `timeout`."""

    kind: ClassVar[str] = "python"
    name: str
    source: str
    timeout: float = TIMEOUT
    pass_threshold: float | None = None

    def evaluate(self, given: GraderInput) -> Graded:
        from rewardkit.jail import JailError, run_python

        files = {
            "main.py": _HARNESS.read_text(encoding="utf-8"),
            "grader.py": self.source,
            "input.json": json.dumps({"sample": given.sample, "item": given.item}),
        }
        try:
            run = run_python(
                "main.py", files=files, timeout=self.timeout, memory_mb=MEMORY_MB, report=True
            )
        except JailError as exc:
            return Graded.failed(str(exc))
        if run.timed_out:
            return Graded.failed(f"grade did not return within {self.timeout:g}s (the deadline)")
        record = _last_record(run.report) if run.ok else {}
        if "error" in record:
            return Graded.failed(str(record["error"]))
        score = record.get("score")
        if not isinstance(score, float):
            tail = run.stderr.strip().splitlines()[-1:] or [run.describe()]
            return Graded.failed(f"the python grader failed: {tail[0][:300]}")
        if not math.isfinite(score):
            return Graded.failed(f"grade returned {score!r}, not a finite number")
        passed, note = threshold_note(score, self.pass_threshold)
        return Graded(score, f"grade returned {score:g}{note}", passed=passed)


def _last_record(report: str) -> dict[str, object]:
    """The harness's record: the last line on descriptor 3 (the grader's own lines come first)."""
    try:
        record = json.loads(report.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {}
    return record if isinstance(record, dict) else {}


def start_jail() -> None:
    """Start this process's jail now, at load: where it cannot start, loading fails with
    one error instead of every sample failing.

    Raises:
        ConfigError: the jail cannot start (python graders could never run).
    """
    from rewardkit.jail import JailError, run_python

    try:
        run_python("main.py", files={"main.py": ""}, timeout=10.0)
    except JailError as exc:
        raise ConfigError(
            f"python graders run in the jail, which cannot start here: {exc}"
        ) from None
