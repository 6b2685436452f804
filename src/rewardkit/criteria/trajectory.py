"""Built-in criteria on the agent's ATIF trajectory (`steps[].source`, `steps[].tool_calls`).

The default path is Harbor's own log, written by the harness rather than the agent, so an
absolute path is read as given; a relative path is confined to the workspace. Either way the
read is capped and the JSON depth-checked. A missing or malformed trajectory scores 0 with a
warning; one over a cap is an error outcome naming the cap.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from rewardkit.core._untrusted import CapExceeded, OutsideWorkspace, loads_json, read_text
from rewardkit.criteria._paths import warn_outside
from rewardkit.criteria._registry import builtin

__all__ = ["trajectory_tool_not_used", "trajectory_tool_used", "trajectory_turn_count"]

_DEFAULT_PATH = "/logs/agent/trajectory.json"


def _warn(crit: str, path: str, problem: str) -> None:
    warnings.warn(f"{crit}: trajectory '{path}' {problem}, assigning reward 0", stacklevel=3)


def _read(crit: str, workspace: Path, path: str) -> str | None:
    """The trajectory's text (an author's path, capped), or None after a warning."""
    try:
        return read_text(workspace, path)
    except OutsideWorkspace as exc:
        warn_outside(crit, exc)
    except FileNotFoundError:
        if Path(path).is_absolute():
            _warn(crit, path, "not found")
        else:
            warnings.warn(
                f"{crit}: '{path}' not found in workspace, assigning reward 0", stacklevel=3
            )
    except (OSError, UnicodeDecodeError) as exc:
        _warn(crit, path, f"could not be read ({type(exc).__name__})")
    return None


def _load(crit: str, workspace: Path, path: str) -> list[dict[str, Any]] | None:
    """The trajectory's steps (dicts only), or None after a warning if it cannot be used."""
    text = _read(crit, workspace, path)
    if text is None:
        return None
    try:
        data = loads_json(text, f"{crit}: trajectory '{path}'")
    except CapExceeded:
        raise
    except ValueError:
        _warn(crit, path, "is not valid JSON")
        return None
    if not isinstance(data, dict):
        _warn(crit, path, "is not a JSON object")
        return None
    steps = data.get("steps")
    return [s for s in steps if isinstance(s, dict)] if isinstance(steps, list) else []


def _tool_names(steps: list[dict[str, Any]]) -> Iterator[object]:
    for step in steps:
        calls = step.get("tool_calls")
        if isinstance(calls, list):
            yield from (call.get("function_name") for call in calls if isinstance(call, dict))


@builtin("Agent used tool '{tool_name}' (trajectory: {path})")
def trajectory_tool_used(
    workspace: Path, tool_name: str, min_count: int = 1, path: str = _DEFAULT_PATH
) -> bool:
    """True if the agent called `tool_name` at least `min_count` times."""
    steps = _load("trajectory_tool_used", workspace, path)
    if steps is None:
        return False
    return sum(1 for name in _tool_names(steps) if name == tool_name) >= min_count


@builtin("Agent did not use tool '{tool_name}' (trajectory: {path})")
def trajectory_tool_not_used(workspace: Path, tool_name: str, path: str = _DEFAULT_PATH) -> bool:
    """True if the agent never called `tool_name`; False if the trajectory is unusable."""
    steps = _load("trajectory_tool_not_used", workspace, path)
    return steps is not None and all(name != tool_name for name in _tool_names(steps))


@builtin("Agent completed task within {max_turns} turns (trajectory: {path})")
def trajectory_turn_count(workspace: Path, max_turns: int, path: str = _DEFAULT_PATH) -> float:
    """1.0 within `max_turns` agent steps, decaying linearly to 0.0 at twice that many."""
    steps = _load("trajectory_turn_count", workspace, path)
    if steps is None:
        return 0.0
    turns = sum(1 for step in steps if step.get("source") == "agent")
    if turns <= max_turns:
        return 1.0
    if max_turns <= 0:  # no budget to decay over (Harbor divides by zero here)
        return 0.0
    return max(0.0, 1.0 - (turns - max_turns) / max_turns)
